/**
 * The Google Play Developer API as a client: the OAuth2 JWT-bearer grant with the service account
 * against GOOGLE_TOKEN_URL (never the key's own token_uri, design.md §2), calls under the
 * account's policies, errors mapped to StoreError, and edits that are always closed.
 */
import {
  NetworkError,
  send,
  StoreUnavailableError,
  type CallCounter,
  type HttpCall,
  type StoreClientOptions,
} from '../resilience.js';
import type { Readable } from 'node:stream';
import { StoreError, type MediaFile, type PlayStoreSecret } from '../store-connector.js';
import { signJwt, tokenCache } from '../tokens.js';
import { playError } from './errors.js';

export const ANDROIDPUBLISHER_SCOPE = 'https://www.googleapis.com/auth/androidpublisher';
const ASSERTION_LIFETIME_S = 3600;
/** An image upload or download may take far longer than an API call. */
const TRANSFER_TIMEOUT_MS = 5 * 60_000;

export interface PlayClientOptions extends StoreClientOptions {
  tokenUrl: string;
}

export type Counter = CallCounter;

export function createPlayClient(secret: PlayStoreSecret, options: PlayClientOptions) {
  const account = secret.serviceAccount;

  async function sendOrThrow(call: HttpCall, counter: Counter) {
    try {
      return await send(call, options.policy, options.account, counter, options.observer);
    } catch (error) {
      if (error instanceof NetworkError)
        throw new StoreError('playstore', 'NETWORK_ERROR', error.message, null, true);
      if (error instanceof StoreUnavailableError) {
        throw new StoreError('playstore', 'STORE_UNAVAILABLE', `Google Play is ${error.message}`, null, true);
      }
      throw error;
    }
  }

  const tokens = tokenCache(
    async () => {
      const iat = Math.floor(options.now() / 1000);
      const assertion = await signJwt(
        { alg: 'RS256', typ: 'JWT', ...(account.private_key_id && { kid: account.private_key_id }) },
        {
          iss: account.client_email,
          scope: ANDROIDPUBLISHER_SCOPE,
          aud: options.tokenUrl,
          iat,
          exp: iat + ASSERTION_LIFETIME_S,
        },
        account.private_key,
      );
      const response = await sendOrThrow(
        {
          method: 'POST',
          url: options.tokenUrl,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
            assertion,
          }).toString(),
          idempotent: true,
        },
        { calls: 0 },
      );
      if (response.status !== 200) throw playError(response.status, response.text);
      const token = JSON.parse(response.text) as { access_token: string; expires_in: number };
      return { token: token.access_token, expiresAt: options.now() + token.expires_in * 1000 };
    },
    options.now,
    60_000,
  );

  /** The URL of an app's resources. */
  const app = (pkg: string) =>
    `${options.baseUrl}/androidpublisher/v3/applications/${encodeURIComponent(pkg)}`;

  /** One call; throws StoreError for any error answer or when no answer came. */
  async function call<T>(
    counter: Counter,
    method: string,
    url: string,
    body?: unknown,
    idempotent = true,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const token = await tokens.get();
      const response = await sendOrThrow(
        {
          method,
          url,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          idempotent,
        },
        counter,
      );
      if (response.status === 401 && attempt === 0) {
        tokens.invalidate(); // an access token expired early or was revoked: mint a new one once
        continue;
      }
      if (response.status >= 400) throw playError(response.status, response.text);
      return (response.text === '' ? {} : JSON.parse(response.text)) as T;
    }
  }

  /** Uploads a file's bytes (streamed from the blob store) with its explicit type (A2.2). */
  async function upload(counter: Counter, url: string, file: MediaFile): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const token = await tokens.get();
      const response = await sendOrThrow(
        {
          method: 'POST',
          url,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': file.contentType,
            'content-length': String(file.bytes),
          },
          body: () => file.open(),
          // A POST whose outcome is unknown may have added the image: never sent twice.
          idempotent: false,
          timeoutMs: TRANSFER_TIMEOUT_MS,
        },
        counter,
      );
      if (response.status === 401 && attempt === 0) {
        tokens.invalidate();
        continue;
      }
      if (response.status >= 400) throw playError(response.status, response.text);
      return;
    }
  }

  /** Streams a file from Google's image URLs (no credentials: they are public CDN URLs). */
  async function download(url: string, into: (body: Readable) => Promise<void>): Promise<void> {
    const response = await sendOrThrow(
      { method: 'GET', url, idempotent: true, timeoutMs: TRANSFER_TIMEOUT_MS, onBody: into },
      { calls: 0 },
    );
    if (response.status >= 300) throw playError(response.status, response.text);
  }

  /** Opens an edit: every read and write of Google Play happens in one (stores.md §2.2). */
  const openEdit = async (counter: Counter, pkg: string) =>
    `${app(pkg)}/edits/${(await call<{ id: string }>(counter, 'POST', `${app(pkg)}/edits`, {})).id}`;

  /** Abandons an edit; a failure to do so leaves it to expire and is not an error of the operation. */
  const deleteEdit = (counter: Counter, editUrl: string) =>
    call(counter, 'DELETE', editUrl).then(
      () => undefined,
      () => undefined,
    );

  return {
    verify: () => tokens.get(),
    app,
    call,
    upload,
    download,
    openEdit,
    deleteEdit,
    /** Runs `work` inside a new edit; the edit is deleted afterwards (reads never commit). */
    async inEdit<T>(counter: Counter, pkg: string, work: (editUrl: string) => Promise<T>): Promise<T> {
      const editUrl = await openEdit(counter, pkg);
      try {
        return await work(editUrl);
      } finally {
        await deleteEdit(counter, editUrl);
      }
    },
  };
}

export type PlayClient = ReturnType<typeof createPlayClient>;
