/** Bearer tokens of the stores: signed JWTs (jose), reused until shortly before they expire. */
import { createPrivateKey } from 'node:crypto';
import type * as josePackage from 'jose';
import { lazyModule } from '../shared/lazy-module.js';

/** Loaded by the first token a connector mints rather than at start-up. */
const jose = lazyModule<typeof josePackage>('jose');

/**
 * Signs a compact JWT with a PEM private key (PKCS#8 or the older SEC1/PKCS#1 forms, as stores
 * hand them out). ES256 for Apple, RS256 for Google's assertion.
 */
export function signJwt(
  header: { alg: 'ES256' | 'RS256'; kid?: string; typ: 'JWT' },
  claims: josePackage.JWTPayload,
  privateKeyPem: string,
): Promise<string> {
  return new (jose().SignJWT)(claims).setProtectedHeader(header).sign(createPrivateKey(privateKeyPem));
}

/** A token that is reused until `refreshBeforeMs` before it expires; one mint at a time. */
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
