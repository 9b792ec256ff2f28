/**
 * The App Store Connect API as a JSON:API client: ES256 JWT auth (stores.md §1.1), calls under the
 * account's policies, errors mapped to StoreError, collections followed through links.next.
 */
import {
  NetworkError,
  send,
  StoreUnavailableError,
  type CallCounter,
  type HttpCall,
  type StoreClientOptions,
} from '../resilience.js';
import { StoreError, type AppStoreSecret } from '../store-connector.js';
import { signJwt, tokenCache } from '../tokens.js';
import { ascError } from './errors.js';
import type { JsonApiResource } from './mapper.js';

/** Apple refuses tokens that live longer than 20 minutes; ours live 15 and are renewed 1 minute early. */
const TOKEN_LIFETIME_S = 15 * 60;
/** A part or a download may take far longer than an API call. */
export const TRANSFER_TIMEOUT_MS = 5 * 60_000;

export type AscClientOptions = StoreClientOptions;

export type Counter = CallCounter;

export function createAscClient(secret: AppStoreSecret, options: AscClientOptions) {
  const tokens = tokenCache(
    async () => {
      const iat = Math.floor(options.now() / 1000);
      const token = await signJwt(
        { alg: 'ES256', kid: secret.keyId, typ: 'JWT' },
        { iss: secret.issuerId, iat, exp: iat + TOKEN_LIFETIME_S, aud: 'appstoreconnect-v1' },
        secret.privateKey,
      );
      return { token, expiresAt: (iat + TOKEN_LIFETIME_S) * 1000 };
    },
    options.now,
    60_000,
  );

  /** One call; throws StoreError for any error answer or when no answer came. */
  async function call(
    counter: Counter,
    method: string,
    pathOrUrl: string,
    body?: unknown,
  ): Promise<{ data: unknown; links?: { next?: string } }> {
    const url = pathOrUrl.startsWith('http') ? pathOrUrl : `${options.baseUrl}${pathOrUrl}`;
    for (let attempt = 0; ; attempt++) {
      const token = await tokens.get();
      let response;
      try {
        response = await send(
          {
            method,
            url,
            headers: {
              authorization: `Bearer ${token}`,
              accept: 'application/json',
              ...(body !== undefined && { 'content-type': 'application/json' }),
            },
            body: body === undefined ? undefined : JSON.stringify(body),
            // A POST that timed out may have created the localization: not blindly repeated.
            idempotent: method !== 'POST',
          },
          options.policy,
          options.account,
          counter,
          options.observer,
        );
      } catch (error) {
        if (error instanceof NetworkError)
          throw new StoreError('appstore', 'NETWORK_ERROR', error.message, null, true);
        if (error instanceof StoreUnavailableError) {
          throw new StoreError(
            'appstore',
            'STORE_UNAVAILABLE',
            `App Store Connect is ${error.message}`,
            null,
            true,
          );
        }
        throw error;
      }
      // Apple sometimes refuses a valid token once (stores.md §1.1): mint a new one and retry once.
      if (response.status === 401 && attempt === 0) {
        tokens.invalidate();
        continue;
      }
      if (response.status >= 400) throw ascError(response.status, response.text);
      return response.status === 204
        ? { data: null }
        : (JSON.parse(response.text) as { data: unknown; links?: { next?: string } });
    }
  }

  /**
   * A call outside the API (an upload part, a download): no JWT — the URL is the credential — but
   * under the account's policies. Throws StoreError when it still fails after its retries.
   */
  async function transfer(counter: Counter, call: HttpCall): Promise<void> {
    let response;
    try {
      response = await send(
        { timeoutMs: TRANSFER_TIMEOUT_MS, ...call },
        options.policy,
        options.account,
        counter,
        options.observer,
      );
    } catch (error) {
      if (error instanceof NetworkError || error instanceof StoreUnavailableError) {
        throw new StoreError('appstore', 'NETWORK_ERROR', error.message, null, true);
      }
      throw error;
    }
    if (response.status >= 300) {
      throw new StoreError(
        'appstore',
        'UPLOAD_FAILED',
        `${call.method} ${new URL(call.url).pathname} answered ${response.status}`,
        response.status,
        response.status >= 500,
      );
    }
  }

  /** Every item of a collection, following links.next until it is absent. */
  async function all(counter: Counter, path: string): Promise<JsonApiResource[]> {
    const items: JsonApiResource[] = [];
    let next: string | undefined = path;
    while (next !== undefined) {
      const page = await call(counter, 'GET', next);
      items.push(...(page.data as JsonApiResource[]));
      next = page.links?.next;
    }
    return items;
  }

  return { call, all, transfer };
}

export type AscClient = ReturnType<typeof createAscClient>;
