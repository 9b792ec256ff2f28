/**
 * Google Play connector: OAuth2 JWT-bearer grant with the service account against
 * GOOGLE_TOKEN_URL (never the key's own token_uri), then the edit lifecycle: insert → listings →
 * commit, deleting the edit whenever anything fails so that no edit is left open.
 */
import type { PlayStoreSecret } from '../store-connector.js';
import { accountLimiter, DEFAULT_POLICY, NetworkError, send, type RetryPolicy } from '../http.js';
import { signJwt, tokenCache } from '../jwt.js';
import {
  StoreError,
  type FieldValues,
  type LocaleChange,
  type LocaleFailure,
  type PushOptions,
  type PushReport,
  type StoreConnector,
  type StoreSnapshot,
} from '../store-connector.js';
import { playError } from './errors.js';

export const ANDROIDPUBLISHER_SCOPE = 'https://www.googleapis.com/auth/androidpublisher';
const LISTING_FIELDS = ['title', 'shortDescription', 'fullDescription', 'video'] as const;
const ASSERTION_LIFETIME_S = 3600;
const CONCURRENCY_PER_ACCOUNT = 8;

export interface GooglePlayConnectorOptions {
  baseUrl: string;
  tokenUrl: string;
  policy?: RetryPolicy;
  now?: () => number;
  /** Calls in flight per service account (default 8). */
  concurrency?: number;
}

interface Listing {
  language: string;
  title?: string;
  shortDescription?: string;
  fullDescription?: string;
  video?: string;
}

export function createGooglePlayConnector(
  secret: PlayStoreSecret,
  options: GooglePlayConnectorOptions,
): StoreConnector {
  const policy = options.policy ?? DEFAULT_POLICY;
  const now = options.now ?? Date.now;
  const account = secret.serviceAccount;
  const concurrency = options.concurrency ?? CONCURRENCY_PER_ACCOUNT;
  const limit = accountLimiter(`playstore:${account.client_email}:${concurrency}`, concurrency);

  const tokens = tokenCache(
    async () => {
      const iat = Math.floor(now() / 1000);
      const assertion = signJwt(
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
      return { token: token.access_token, expiresAt: now() + token.expires_in * 1000 };
    },
    now,
    60_000,
  );

  async function sendOrThrow(call: Parameters<typeof send>[0], counter: { calls: number }) {
    try {
      return await limit(() => send(call, policy, counter));
    } catch (error) {
      if (error instanceof NetworkError)
        throw new StoreError('playstore', 'NETWORK_ERROR', error.message, null, true);
      throw error;
    }
  }

  const base = (pkg: string) =>
    `${options.baseUrl}/androidpublisher/v3/applications/${encodeURIComponent(pkg)}`;

  async function call<T>(
    counter: { calls: number },
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

  /** Runs `work` inside a new edit; the edit is deleted unless `work` committed it. */
  async function inEdit<T>(
    counter: { calls: number },
    pkg: string,
    work: (editId: string) => Promise<T>,
  ): Promise<T> {
    const edit = await call<{ id: string }>(counter, 'POST', `${base(pkg)}/edits`, {});
    try {
      return await work(edit.id);
    } finally {
      await call(counter, 'DELETE', `${base(pkg)}/edits/${edit.id}`).catch(() => undefined);
    }
  }

  const fieldsOf = (listing: Listing): FieldValues =>
    Object.fromEntries(LISTING_FIELDS.map((field) => [field, listing[field] ?? null]));

  return {
    store: 'playstore',

    async verify() {
      await tokens.get();
    },

    async read(pkg) {
      const counter = { calls: 0 };
      const snapshot: StoreSnapshot = new Map();
      await inEdit(counter, pkg, async (editId) => {
        const list = await call<{ listings?: Listing[] }>(
          counter,
          'GET',
          `${base(pkg)}/edits/${editId}/listings`,
        );
        for (const listing of list.listings ?? []) snapshot.set(listing.language, fieldsOf(listing));
      });
      return { snapshot, calls: counter.calls };
    },

    async write(pkg: string, changes: LocaleChange[], options: PushOptions): Promise<PushReport> {
      const counter = { calls: 0 };
      const failures: LocaleFailure[] = [];
      const written: string[] = [];
      const removed: string[] = [];
      let committed = false;
      const edit = await call<{ id: string }>(counter, 'POST', `${base(pkg)}/edits`, {});
      const editUrl = `${base(pkg)}/edits/${edit.id}`;
      try {
        await Promise.all(
          changes.map(async (change) => {
            const url = `${editUrl}/listings/${encodeURIComponent(change.locale)}`;
            try {
              if (change.create) {
                // PUT creates a language with its full listing (supply does the same).
                const listing = Object.fromEntries(
                  Object.entries(change.fields).filter(([, v]) => v !== null),
                );
                await call(counter, 'PUT', url, { language: change.locale, ...listing });
              } else {
                await call(counter, 'PATCH', url, {
                  language: change.locale,
                  ...nullsAsEmpty(change.fields),
                });
              }
              written.push(change.locale);
            } catch (error) {
              if (!(error instanceof StoreError)) throw error;
              failures.push({
                locale: change.locale,
                field: null,
                error: { code: error.code, message: error.message },
              });
            }
          }),
        );
        for (const locale of options.removeLocales ?? []) {
          await call(counter, 'DELETE', `${editUrl}/listings/${encodeURIComponent(locale)}`);
          removed.push(locale);
        }
        if (written.length > 0 || removed.length > 0) {
          const query = options.changesNotSentForReview ? '?changesNotSentForReview=true' : '';
          await call(counter, 'POST', `${editUrl}:commit${query}`, undefined, false);
          committed = true;
        }
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        // The edit did not commit: nothing of it reached the store.
        for (const locale of written) {
          failures.push({ locale, field: null, error: { code: error.code, message: error.message } });
        }
        written.length = 0;
        removed.length = 0;
      } finally {
        if (!committed) await call(counter, 'DELETE', editUrl).catch(() => undefined);
      }
      return { written: written.sort(), removed, failures, calls: counter.calls };
    },
  };
}

/** PATCH merges: clearing a text means sending it empty. */
function nullsAsEmpty(fields: FieldValues): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v ?? '']));
}
