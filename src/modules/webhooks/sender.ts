/**
 * One POST to a webhook endpoint: at most 10 s, redirects never followed, private addresses
 * refused at connect time unless allowed. Answers what happened; never throws.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { isPrivateAddress, PrivateAddressError, publicOnlyLookup } from '../../shared/network-guard.js';

export const WEBHOOK_TIMEOUT_MS = 10_000;
/** What is kept of a response body in the delivery log. */
const RESPONSE_EXCERPT = 500;

export interface Attempt {
  at: string;
  /** The response status; null when none came. */
  status: number | null;
  durationMs: number;
  error: string | null;
  response: string | null;
}

export async function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { allowPrivate: boolean; timeoutMs?: number; now: () => Date },
): Promise<Attempt> {
  const started = performance.now();
  const at = options.now().toISOString();
  const done = (status: number | null, error: string | null, response: string | null): Attempt => ({
    at,
    status,
    durationMs: Math.round(performance.now() - started),
    error,
    response,
  });
  const target = new URL(url);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && net.isIP(host) !== 0 && isPrivateAddress(host)) {
    return done(null, new PrivateAddressError(host, host).message, null);
  }
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise<Attempt>((resolve) => {
    const request = transport.request(
      target,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'appmeta-webhooks/1',
        },
        timeout: options.timeoutMs ?? WEBHOOK_TIMEOUT_MS,
        ...(!options.allowPrivate && { lookup: publicOnlyLookup }),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          if (size < RESPONSE_EXCERPT) chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8').slice(0, RESPONSE_EXCERPT);
          let error: string | null = null;
          if (status >= 300 && status < 400) {
            error = `redirect to ${String(response.headers.location ?? '(no Location)')} not followed`;
          } else if (status < 200 || status >= 300) {
            error = `the endpoint answered ${status}`;
          }
          resolve(done(status, error, text));
        });
        response.on('error', (error) => resolve(done(response.statusCode ?? null, error.message, null)));
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`no answer within ${(options.timeoutMs ?? WEBHOOK_TIMEOUT_MS) / 1000} s`)),
    );
    request.on('error', (error) => resolve(done(null, error.message, null)));
    request.end(body);
  });
}
