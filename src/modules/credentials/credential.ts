import { createPrivateKey } from 'node:crypto';
import { invalid, invalidField } from '../../errors.js';
import type { AppStoreSecret, PlayStoreSecret, StoreSecret } from '../../connectors/store-connector.js';
import type { Store } from '../../shared/stores.js';

/** What the API shows of stored credentials: never a secret. */
export interface CredentialInfo {
  store: Store | 'deepl';
  configured: boolean;
  /** DeepL: whether the key is a DeepL API Free key (it ends with ":fx"). */
  free?: boolean;
  issuerId?: string;
  keyId?: string;
  clientEmail?: string;
  projectId?: string | null;
  updatedAt?: string;
  /** The last check with the store (or DeepL); null until one is made after the key was set. */
  lastVerification?: Verification | null;
}

export interface Verification {
  at: string;
  verified: boolean;
  error?: { code: string; message: string };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Checks App Store Connect API credentials: issuer UUID, 10-character key id, a P-256 .p8 key. */
export function parseAppStoreSecret(input: {
  issuerId: string;
  keyId: string;
  privateKey: string;
}): AppStoreSecret {
  if (!UUID.test(input.issuerId.trim()))
    throw invalidField('issuerId', 'must be the issuer UUID from App Store Connect');
  if (!/^[A-Z0-9]{10}$/.test(input.keyId.trim()))
    throw invalidField('keyId', 'must be the 10-character key id');
  const pem = input.privateKey.trim();
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    const details = key.asymmetricKeyDetails;
    if (key.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1') throw new Error('not P-256');
  } catch {
    throw invalidField('privateKey', 'must be the .p8 file: a PEM "PRIVATE KEY" on the P-256 curve');
  }
  return {
    store: 'appstore',
    issuerId: input.issuerId.trim().toLowerCase(),
    keyId: input.keyId.trim(),
    privateKey: pem,
  };
}

/** Checks a Google service-account JSON key (object or JSON text): client_email and an RSA private_key. */
export function parsePlayStoreSecret(input: { serviceAccount: unknown }): PlayStoreSecret {
  let account = input.serviceAccount;
  if (typeof account === 'string') {
    try {
      account = JSON.parse(account);
    } catch {
      throw invalidField('serviceAccount', 'is not valid JSON');
    }
  }
  if (typeof account !== 'object' || account === null || Array.isArray(account)) {
    throw invalidField('serviceAccount', 'must be the JSON key of a Google service account');
  }
  const raw = account as Record<string, unknown>;
  if (raw.type !== undefined && raw.type !== 'service_account') {
    throw invalidField('serviceAccount.type', 'must be "service_account"');
  }
  if (typeof raw.client_email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(raw.client_email)) {
    throw invalidField('serviceAccount.client_email', 'must be the service account e-mail');
  }
  if (typeof raw.private_key !== 'string') throw invalidField('serviceAccount.private_key', 'is required');
  try {
    const key = createPrivateKey({ key: raw.private_key, format: 'pem' });
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not RSA');
  } catch {
    throw invalidField('serviceAccount.private_key', 'must be an RSA private key in PEM');
  }
  return {
    store: 'playstore',
    serviceAccount: {
      client_email: raw.client_email,
      private_key: raw.private_key,
      ...(typeof raw.private_key_id === 'string' && { private_key_id: raw.private_key_id }),
      ...(typeof raw.project_id === 'string' && { project_id: raw.project_id }),
    },
  };
}

export function metadataOf(secret: StoreSecret): Omit<CredentialInfo, 'store' | 'configured' | 'updatedAt'> {
  return secret.store === 'appstore'
    ? { issuerId: secret.issuerId, keyId: secret.keyId }
    : {
        clientEmail: secret.serviceAccount.client_email,
        projectId: secret.serviceAccount.project_id ?? null,
      };
}

/** A DeepL authentication key: one token of printable characters (a UUID, ":fx" for API Free). */
export function parseDeeplKey(raw: string): string {
  const key = raw.trim();
  if (!/^[\x21-\x7e]{8,200}$/.test(key)) {
    throw invalidField(
      'apiKey',
      'must be the DeepL authentication key from your DeepL account (one token, no spaces)',
    );
  }
  return key;
}

export const deeplMetadataOf = (apiKey: string) => ({ free: apiKey.endsWith(':fx') });

export const unreadable = () =>
  invalid('The stored credentials cannot be decrypted with the configured keys');
