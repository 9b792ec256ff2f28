import { isSecretOf, newSecret } from '../../shared/secret.js';

export { hashSecret, sameHash } from '../../shared/secret.js';

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
const DISPLAY_PREFIX_LENGTH = 12;

export interface NewSecret {
  secret: string;
  hash: string;
  prefix: string;
}

export function generateSecret(): NewSecret {
  const { secret, hash } = newSecret(SECRET_PREFIX);
  return { secret, hash, prefix: secret.slice(0, DISPLAY_PREFIX_LENGTH) };
}

export const isWellFormedSecret = (secret: string): boolean => isSecretOf(SECRET_PREFIX, secret);
