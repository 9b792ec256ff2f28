/**
 * What a store's part of a push leaves out before any store call (conflicts, What's New where the
 * rule says no, release notes and media in conflict) and what the store refused in its write —
 * each said as a failure naming its store, locale and field.
 */
import type { PushReport } from '../../connectors/store-connector.js';
import type { Store } from '../../shared/stores.js';
import type { StoreMediaService } from '../media/index.js';
import type { ReleasesService } from '../releases/index.js';
import type { Failure } from './sync.js';

type MediaPlan = Awaited<ReturnType<StoreMediaService['plan']>>;
type NotesPlan = ReturnType<ReleasesService['pushPlan']>;

const conflict = (store: Store, locale: string | null, field: string, message: string): Failure => ({
  store,
  locale,
  field,
  error: { code: 'CONFLICT', message },
});

/** What a store's part leaves out before any store call, each said as a failure. */
export function leftOut(
  store: Store,
  texts: { locale: string; field: string }[],
  whatsNewRefused: { locale: string; reason: string }[],
  notes: NotesPlan,
  media: MediaPlan,
): Failure[] {
  return [
    ...texts.map((c) =>
      conflict(
        store,
        c.locale,
        c.field,
        'The store changed this field too: edit it here to choose, then push',
      ),
    ),
    ...whatsNewRefused.map((r) => ({
      store,
      locale: r.locale,
      field: 'whatsNew',
      error: { code: 'NOT_EDITABLE', message: r.reason },
    })),
    ...notes.conflicts.map((c) =>
      conflict(
        store,
        c.locale,
        `releaseNotes.${c.track}.${c.versionCode}`,
        'The store changed these release notes too: edit them here to choose, then push',
      ),
    ),
    ...media.conflicts.map((c) =>
      conflict(
        store,
        c.locale,
        `media.${c.slotType}`,
        'The store changed these media too: edit the slot here to choose, then push',
      ),
    ),
  ];
}

/** What the store refused in its write, then what was left out before it. */
export function reportFailures(store: Store, report: PushReport, before: Failure[]): Failure[] {
  return [
    ...report.failures.map((f) => ({ store, locale: f.locale, field: f.field, error: f.error })),
    ...report.releaseNotes
      .filter((n) => !n.written)
      .map((n) => ({
        store,
        locale: null,
        field: `releaseNotes.${n.track}.${n.versionCode}`,
        error: n.error ?? { code: 'NOT_WRITTEN', message: 'The store did not take these notes' },
      })),
    ...report.media.flatMap((m) =>
      m.failures.map((f) => ({
        store,
        locale: f.locale,
        field: `media.${f.slotType}`,
        ...(f.sha256 !== null && { sha256: f.sha256 }),
        error: f.error,
      })),
    ),
    ...before,
  ];
}
