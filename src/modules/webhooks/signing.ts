/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `v1,` and the base64
 * HMAC-SHA256, keyed by the secret's bytes, of `<webhook-id>.<webhook-timestamp>.<body>`.
 */
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = () => `${PREFIX}${randomBytes(32).toString('base64')}`;

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a delivery; during a secret's rotation, signed by both secrets. */
export function signatureHeaders(secrets: string[], id: string, timestampSeconds: number, body: string) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => sign(secret, id, timestampSeconds, body)).join(' '),
  };
}
