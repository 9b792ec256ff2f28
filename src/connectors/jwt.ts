import { createPrivateKey, sign } from 'node:crypto';

const b64url = (value: Buffer | string) => Buffer.from(value).toString('base64url');

/** Signs a compact JWT. ES256 signatures are raw r||s (JWS), not DER. */
export function signJwt(
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  privateKeyPem: string,
): string {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const key = createPrivateKey(privateKeyPem);
  const signature =
    header.alg === 'ES256'
      ? sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' })
      : sign('sha256', Buffer.from(input), key);
  return `${input}.${b64url(signature)}`;
}

/** A token that is reused until `refreshBeforeMs` before it expires. */
export function tokenCache<T extends { token: string; expiresAt: number }>(
  mint: () => Promise<T>,
  now: () => number,
  refreshBeforeMs: number,
) {
  let current: T | null = null;
  let pending: Promise<T> | null = null;
  return {
    async get(): Promise<string> {
      if (current !== null && current.expiresAt - refreshBeforeMs > now()) return current.token;
      pending ??= mint().finally(() => (pending = null));
      current = await pending;
      return current.token;
    },
    invalidate() {
      current = null;
    },
  };
}
