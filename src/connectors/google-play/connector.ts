/**
 * Google Play connector: listing texts per language inside an edit — read then delete the edit;
 * write changed languages, commit once, and delete the edit whenever it did not commit, so that no
 * edit is left open (stores.md §2.2).
 */
import {
  createAccountRegistry,
  DEFAULT_POLICY,
  type AccountRegistry,
  type RetryPolicy,
} from '../resilience.js';
import {
  StoreError,
  type FieldValues,
  type LocaleChange,
  type LocaleFailure,
  type MediaSlotResult,
  type PlayStoreSecret,
  type PushOptions,
  type PushReport,
  type ReleaseNotesResult,
  type StoreConnector,
  type StoreReleases,
  type StoreMedia,
  type StoreSnapshot,
} from '../store-connector.js';
import { createPlayClient } from './client.js';
import { createPlayImages, type PlaySlotWrite } from './images.js';
import { createPlayTracks } from './tracks.js';

const LISTING_FIELDS = ['title', 'shortDescription', 'fullDescription', 'video'] as const;
const CONCURRENCY_PER_ACCOUNT = 8;

export interface GooglePlayConnectorOptions {
  baseUrl: string;
  tokenUrl: string;
  policy?: RetryPolicy;
  now?: () => number;
  /** Calls in flight per service account (default 8). */
  concurrency?: number;
  /** The accounts' bulkheads and breakers (shared by the connectors of one factory). */
  accounts?: AccountRegistry;
}

interface Listing {
  language: string;
  title?: string;
  shortDescription?: string;
  fullDescription?: string;
  video?: string;
}

const fieldsOf = (listing: Listing): FieldValues =>
  Object.fromEntries(LISTING_FIELDS.map((field) => [field, listing[field] ?? null]));

/** PATCH merges: clearing a text means sending it empty. */
const nullsAsEmpty = (fields: FieldValues): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v ?? '']));

export function createGooglePlayConnector(
  secret: PlayStoreSecret,
  options: GooglePlayConnectorOptions,
): StoreConnector {
  const accounts = options.accounts ?? createAccountRegistry();
  const client = createPlayClient(secret, {
    baseUrl: options.baseUrl,
    tokenUrl: options.tokenUrl,
    policy: options.policy ?? DEFAULT_POLICY,
    now: options.now ?? Date.now,
    account: accounts(
      `playstore:${secret.serviceAccount.client_email}`,
      options.concurrency ?? CONCURRENCY_PER_ACCOUNT,
    ),
  });

  const images = createPlayImages(client);
  const tracks = createPlayTracks(client);

  return {
    store: 'playstore',

    async verify() {
      await client.verify();
    },

    async read(pkg, readOptions = {}) {
      const counter = { calls: 0 };
      const snapshot: StoreSnapshot = new Map();
      let media: StoreMedia = new Map();
      const releases: StoreReleases = { versions: [], tracks: [] };
      await client.inEdit(counter, pkg, async (editUrl) => {
        const list = await client.call<{ listings?: Listing[] }>(counter, 'GET', `${editUrl}/listings`);
        for (const listing of list.listings ?? []) snapshot.set(listing.language, fieldsOf(listing));
        [media, releases.tracks] = await Promise.all([
          readOptions.media === false ? new Map() : images.read(counter, editUrl, [...snapshot.keys()]),
          readOptions.releases === false ? [] : tracks.read(counter, editUrl),
        ]);
      });
      return { snapshot, media, releases, calls: counter.calls };
    },

    async write(pkg: string, changes: LocaleChange[], options: PushOptions): Promise<PushReport> {
      const counter = { calls: 0, beforeWrite: options.beforeWrite };
      const failures: LocaleFailure[] = [];
      const written: string[] = [];
      const removed: string[] = [];
      let committed = false;
      let commitError: { code: string; message: string } | null = null;
      let notes: ReleaseNotesResult[] = [];
      const slotWrites: PlaySlotWrite[] = [];
      const slotErrors: MediaSlotResult[] = [];
      let textsSent = 0;
      const editUrl = await client.openEdit(counter, pkg);
      try {
        // A resumed push: what the store has already (its last edit may have committed).
        const stored = new Map<string, FieldValues>();
        if (options.readFirst === true) {
          const list = await client.call<{ listings?: Listing[] }>(counter, 'GET', `${editUrl}/listings`);
          for (const listing of list.listings ?? []) stored.set(listing.language, fieldsOf(listing));
        }
        await Promise.all(
          changes.map(async (change) => {
            const url = `${editUrl}/listings/${encodeURIComponent(change.locale)}`;
            try {
              const current = stored.get(change.locale);
              if (current !== undefined) {
                const differing = Object.fromEntries(
                  Object.entries(change.fields).filter(
                    ([field, value]) => (current[field] || null) !== (value || null),
                  ),
                );
                if (Object.keys(differing).length > 0) {
                  await client.call(counter, 'PATCH', url, {
                    language: change.locale,
                    ...nullsAsEmpty(differing),
                  });
                  textsSent += 1;
                }
              } else if (change.create) {
                // PUT creates a language with its full listing (supply does the same).
                const listing = Object.fromEntries(
                  Object.entries(change.fields).filter(([, v]) => v !== null),
                );
                await client.call(counter, 'PUT', url, { language: change.locale, ...listing });
                textsSent += 1;
              } else {
                await client.call(counter, 'PATCH', url, {
                  language: change.locale,
                  ...nullsAsEmpty(change.fields),
                });
                textsSent += 1;
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
          await client.call(counter, 'DELETE', `${editUrl}/listings/${encodeURIComponent(locale)}`);
          removed.push(locale);
        }
        // Media in the same edit as the texts: one commit carries both (A2).
        await Promise.all(
          (options.media ?? []).map(async (change) => {
            try {
              slotWrites.push(await images.writeSlot(counter, editUrl, change));
            } catch (error) {
              if (!(error instanceof StoreError)) throw error;
              slotErrors.push({
                locale: change.locale,
                slotType: change.slotType,
                stored: null,
                uploaded: 0,
                deleted: 0,
                reordered: false,
                failures: [
                  {
                    locale: change.locale,
                    slotType: change.slotType,
                    sha256: null,
                    error: { code: error.code, message: error.message },
                  },
                ],
              });
            }
          }),
        );
        const mediaWritten = slotWrites.some((w) => w.deleted > 0 || w.uploaded.length > 0);
        if ((options.releaseNotes ?? []).length > 0) {
          notes = await tracks.writeNotes(counter, editUrl, options.releaseNotes ?? []);
        }
        const notesWritten = notes.some((n) => n.written);
        if (textsSent > 0 || removed.length > 0 || mediaWritten || notesWritten) {
          const query = options.changesNotSentForReview ? '?changesNotSentForReview=true' : '';
          await client.call(counter, 'POST', `${editUrl}:commit${query}`, undefined, false);
          committed = true;
          for (const locale of written) options.onLocaleWritten?.(locale);
          for (const w of slotWrites) {
            for (const sha256 of w.uploaded) {
              options.onMediaItem?.({
                locale: w.change.locale,
                slotType: w.change.slotType,
                sha256,
                state: 'uploaded',
              });
            }
          }
        } else {
          // Every text was in the store already (a resumed push): nothing to commit.
          for (const locale of written) options.onLocaleWritten?.(locale);
        }
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        // The edit did not commit: nothing of it reached the store.
        for (const locale of written) {
          failures.push({ locale, field: null, error: { code: error.code, message: error.message } });
        }
        written.length = 0;
        removed.length = 0;
        commitError = { code: error.code, message: error.message };
        notes = notes.map((n) =>
          n.written ? { track: n.track, versionCode: n.versionCode, written: false, error: commitError! } : n,
        );
      } finally {
        // Removing the uncommitted edit is cleanup, never stopped by a cancel.
        counter.beforeWrite = undefined;
        if (!committed) await client.deleteEdit(counter, editUrl);
      }
      const media: MediaSlotResult[] = [
        ...slotErrors,
        ...slotWrites.map((w) => ({
          locale: w.change.locale,
          slotType: w.change.slotType,
          // Uncommitted, the store keeps what it had.
          stored: committed || commitError === null ? w.after : w.before,
          uploaded: committed ? w.uploaded.length : 0,
          deleted: committed ? w.deleted : 0,
          reordered: false,
          failures:
            commitError === null
              ? w.failures
              : [
                  ...w.failures,
                  { locale: w.change.locale, slotType: w.change.slotType, sha256: null, error: commitError },
                ],
        })),
      ];
      const uploadedBytes = committed ? slotWrites.reduce((sum, w) => sum + w.bytes, 0) : 0;
      return {
        written: written.sort(),
        removed,
        failures,
        media,
        uploadedBytes,
        releaseNotes: notes,
        calls: counter.calls,
      };
    },

    download: (url, into) => client.download(url, into),

    async readReleases(pkg) {
      const counter = { calls: 0 };
      return {
        versions: [],
        tracks: await client.inEdit(counter, pkg, (editUrl) => tracks.read(counter, editUrl)),
      };
    },

    createVersion() {
      return Promise.reject(
        new StoreError(
          'playstore',
          'UNSUPPORTED',
          'Google Play has no versions to create: a release is made by uploading a bundle to a track',
          null,
          false,
        ),
      );
    },
  };
}
