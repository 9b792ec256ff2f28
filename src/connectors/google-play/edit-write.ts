/**
 * A push to Google Play in one edit, as named steps: the listings (only what differs from the
 * store when resuming), locales removed, media slots and release notes in the same edit, one
 * commit when anything was sent, and the edit deleted whenever it did not commit.
 */
import {
  StoreError,
  type FieldValues,
  type LocaleChange,
  type LocaleFailure,
  type MediaSlotChange,
  type MediaSlotResult,
  type PushOptions,
  type PushReport,
  type ReleaseNotesResult,
} from '../store-connector.js';
import type { Counter, PlayClient } from './client.js';
import type { createPlayImages, PlaySlotWrite } from './images.js';
import type { createPlayTracks } from './tracks.js';

const LISTING_FIELDS = ['title', 'shortDescription', 'fullDescription', 'video'] as const;

export interface Listing {
  language: string;
  title?: string;
  shortDescription?: string;
  fullDescription?: string;
  video?: string;
}

export const fieldsOf = (listing: Listing): FieldValues =>
  Object.fromEntries(LISTING_FIELDS.map((field) => [field, listing[field] ?? null]));

/** PATCH merges: clearing a text means sending it empty. */
const nullsAsEmpty = (fields: FieldValues): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v ?? '']));

const failureOf = (error: StoreError) => ({ code: error.code, message: error.message });

/**
 * Writes the listings of the changed locales into the edit: a resumed push (`readFirst`) sends
 * only what differs from the store; a new language is PUT with its full listing (as supply does).
 */
async function writeListings(
  client: PlayClient,
  counter: Counter,
  editUrl: string,
  changes: LocaleChange[],
  readFirst: boolean,
) {
  const done = { written: [] as string[], failures: [] as LocaleFailure[], sent: 0 };
  const stored = new Map<string, FieldValues>();
  if (readFirst) {
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
            await client.call(counter, 'PATCH', url, { language: change.locale, ...nullsAsEmpty(differing) });
            done.sent += 1;
          }
        } else if (change.create) {
          const listing = Object.fromEntries(Object.entries(change.fields).filter(([, v]) => v !== null));
          await client.call(counter, 'PUT', url, { language: change.locale, ...listing });
          done.sent += 1;
        } else {
          await client.call(counter, 'PATCH', url, {
            language: change.locale,
            ...nullsAsEmpty(change.fields),
          });
          done.sent += 1;
        }
        done.written.push(change.locale);
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        done.failures.push({ locale: change.locale, field: null, error: failureOf(error) });
      }
    }),
  );
  return done;
}

/** A slot the store refused before anything of it was written. */
const refusedSlot = (change: MediaSlotChange, error: StoreError): MediaSlotResult => ({
  locale: change.locale,
  slotType: change.slotType,
  stored: null,
  uploaded: 0,
  deleted: 0,
  reordered: false,
  failures: [{ locale: change.locale, slotType: change.slotType, sha256: null, error: failureOf(error) }],
});

/** The media of the push as the store holds them after the edit: uncommitted, what it had. */
function mediaResults(
  writes: PlaySlotWrite[],
  refused: MediaSlotResult[],
  committed: boolean,
  commitError: { code: string; message: string } | null,
): MediaSlotResult[] {
  return [
    ...refused,
    ...writes.map((w) => ({
      locale: w.change.locale,
      slotType: w.change.slotType,
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
}

export function createPlayWrite(
  client: PlayClient,
  images: ReturnType<typeof createPlayImages>,
  tracks: ReturnType<typeof createPlayTracks>,
) {
  /** Media in the same edit as the texts: one commit carries both (A2). */
  async function writeSlots(counter: Counter, editUrl: string, changes: MediaSlotChange[]) {
    const writes: PlaySlotWrite[] = [];
    const refused: MediaSlotResult[] = [];
    await Promise.all(
      changes.map(async (change) => {
        try {
          writes.push(await images.writeSlot(counter, editUrl, change));
        } catch (error) {
          if (!(error instanceof StoreError)) throw error;
          refused.push(refusedSlot(change, error));
        }
      }),
    );
    return { writes, refused };
  }

  return async function write(
    pkg: string,
    changes: LocaleChange[],
    options: PushOptions,
  ): Promise<PushReport> {
    const counter = { calls: 0, beforeWrite: options.beforeWrite };
    let texts = { written: [] as string[], failures: [] as LocaleFailure[], sent: 0 };
    const removed: string[] = [];
    let slots = { writes: [] as PlaySlotWrite[], refused: [] as MediaSlotResult[] };
    let notes: ReleaseNotesResult[] = [];
    let committed = false;
    let commitError: { code: string; message: string } | null = null;
    const editUrl = await client.openEdit(counter, pkg);
    try {
      texts = await writeListings(client, counter, editUrl, changes, options.readFirst === true);
      for (const locale of options.removeLocales ?? []) {
        await client.call(counter, 'DELETE', `${editUrl}/listings/${encodeURIComponent(locale)}`);
        removed.push(locale);
      }
      slots = await writeSlots(counter, editUrl, options.media ?? []);
      if ((options.releaseNotes ?? []).length > 0) {
        notes = await tracks.writeNotes(counter, editUrl, options.releaseNotes ?? []);
      }
      const sent =
        texts.sent > 0 ||
        removed.length > 0 ||
        slots.writes.some((w) => w.deleted > 0 || w.uploaded.length > 0) ||
        notes.some((n) => n.written);
      // Every text already in the store (a resumed push): nothing to commit.
      if (sent) {
        const query = options.changesNotSentForReview ? '?changesNotSentForReview=true' : '';
        await client.call(counter, 'POST', `${editUrl}:commit${query}`, undefined, false);
        committed = true;
      }
      for (const locale of texts.written) options.onLocaleWritten?.(locale);
      for (const w of committed ? slots.writes : []) {
        for (const sha256 of w.uploaded) {
          options.onMediaItem?.({
            locale: w.change.locale,
            slotType: w.change.slotType,
            sha256,
            state: 'uploaded',
          });
        }
      }
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      // The edit did not commit: nothing of it reached the store.
      commitError = failureOf(error);
      for (const locale of texts.written) texts.failures.push({ locale, field: null, error: commitError });
      texts.written = [];
      removed.length = 0;
      notes = notes.map((n) =>
        n.written ? { track: n.track, versionCode: n.versionCode, written: false, error: commitError! } : n,
      );
    } finally {
      // Removing the uncommitted edit is cleanup, never stopped by a cancel.
      counter.beforeWrite = undefined;
      if (!committed) await client.deleteEdit(counter, editUrl);
    }
    return {
      written: texts.written.sort(),
      removed,
      failures: texts.failures,
      media: mediaResults(slots.writes, slots.refused, committed, commitError),
      uploadedBytes: committed ? slots.writes.reduce((sum, w) => sum + w.bytes, 0) : 0,
      releaseNotes: notes,
      calls: counter.calls,
    };
  };
}
