import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A bearer secret: a prefix that says what it is, then 32 random bytes in base64url. Stored hashed. */
export function newSecret(prefix: string): { secret: string; hash: string } {
  const secret = prefix + randomBytes(32).toString('base64url');
  return { secret, hash: hashSecret(secret) };
}

/** Whether a value has the shape newSecret gives with this prefix (checked before any lookup). */
export const isSecretOf = (prefix: string, value: string): boolean =>
  value.startsWith(prefix) && /^[A-Za-z0-9_-]{43}$/.test(value.slice(prefix.length));

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** Constant-time comparison of two hex digests of equal length. */
export const sameHash = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
