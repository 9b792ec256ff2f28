import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The shape of a key as the API shows it; the secret is never part of it. */
export interface ApiKey {
  id: string;
  name: string;
  memberId: string;
  /** The first characters of the secret, to recognise a key in a list. */
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
}

export const SECRET_PREFIX = 'amk_';
// amk_ + 32 random bytes in base64url (43 characters).
const SECRET_PATTERN = /^amk_[A-Za-z0-9_-]{43}$/;
const DISPLAY_PREFIX_LENGTH = 12;

export interface NewSecret {
  secret: string;
  hash: string;
  prefix: string;
}

export function generateSecret(): NewSecret {
  const secret = SECRET_PREFIX + randomBytes(32).toString('base64url');
  return { secret, hash: hashSecret(secret), prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH) };
}

export const hashSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export const isWellFormedSecret = (secret: string): boolean => SECRET_PATTERN.test(secret);

/** Constant-time comparison of two hex digests of equal length. */
export const sameHash = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
