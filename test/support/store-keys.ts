/** Real key material for store credentials in tests: a P-256 .p8 for Apple, an RSA service account for Google. */
import { generateKeyPairSync, randomUUID } from 'node:crypto';

export function appStoreKeyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export function appStoreCredentials() {
  const keyId = `K${randomUUID().replace(/-/g, '').slice(0, 9).toUpperCase()}`;
  const { privateKey, publicKey } = appStoreKeyPair();
  return { issuerId: randomUUID(), keyId, privateKey, publicKey };
}

export function serviceAccount(
  email = `svc-${randomUUID().slice(0, 8)}@example-project.iam.gserviceaccount.com`,
) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    account: {
      type: 'service_account',
      project_id: 'example-project',
      private_key_id: randomUUID().replace(/-/g, ''),
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      client_email: email,
      client_id: '1234567890',
      token_uri: 'https://attacker.example/token',
    },
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
