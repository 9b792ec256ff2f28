/**
 * The keys that encrypt stored store credentials (AES-256-GCM). Each ciphertext records the id
 * of its key, so keys can be rotated: the current key encrypts, every known key decrypts.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';

export interface Sealed {
  keyId: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

export interface KeyRing {
  readonly currentKeyId: string;
  /** Encrypts `plaintext`, bound to `context` (additional data) so that a ciphertext cannot be moved to another row. */
  seal(plaintext: string, context: string): Sealed;
  open(sealed: Sealed, context: string): string;
}

export const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 12);

export function createKeyRing(current: Buffer, previous: Buffer[] = []): KeyRing {
  const keys = new Map([current, ...previous].map((key) => [keyIdOf(key), key]));
  const currentKeyId = keyIdOf(current);
  return {
    currentKeyId,
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', current, iv);
      cipher.setAAD(Buffer.from(context));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return {
        keyId: currentKeyId,
        iv: iv.toString('base64'),
        ciphertext: ciphertext.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
      };
    },
    open(sealed, context) {
      const key = keys.get(sealed.keyId);
      if (key === undefined) {
        throw new Error(
          `no key with id ${sealed.keyId}: set it in APPMETA_SECRET_KEY_PREVIOUS to read these credentials`,
        );
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      return Buffer.concat([
        decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
        decipher.final(),
      ]).toString('utf8');
    },
  };
}

/**
 * The key ring of a running service. Without APPMETA_SECRET_KEY (allowed in SQLite mode only,
 * design.md §2) a key is generated once into secret.key beside the database file, mode 0600.
 */
export function resolveKeyRing(config: Config, log: Logger): KeyRing {
  if (config.secretKey !== null) return createKeyRing(config.secretKey, config.previousSecretKeys);
  if (config.database.kind !== 'sqlite' || config.database.path === ':memory:') {
    log.warn('APPMETA_SECRET_KEY is unset: using a key that lives only as long as this process');
    return createKeyRing(randomBytes(32), config.previousSecretKeys);
  }
  const file = path.join(path.dirname(config.database.path), 'secret.key');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
    log.warn(
      { file },
      'APPMETA_SECRET_KEY is unset: generated a key for stored credentials; back it up with the database',
    );
  }
  const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a base64 32-byte key`);
  return createKeyRing(key, config.previousSecretKeys);
}
