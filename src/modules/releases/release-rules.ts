/**
 * What the releases feature knows of the stores' releases: the snapshot the last sync kept per
 * store, the App Store versions as shown, the rule of What's New, the order of Google Play tracks,
 * and the shapes of notes as answered.
 */
import type {
  StoreConnector,
  StoreReleases,
  StoreTrack,
  StoreVersion,
} from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { invalidField } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import type { Store } from '../../shared/stores.js';
import type { AuditLog } from '../audit/index.js';
import type { ListingsService } from '../listings/index.js';
import { isLinked, type Project, type ProjectsService } from '../projects/index.js';
import { releasesRepository as repo, type NoteRow } from './releases.repository.js';

/** supply's order of tracks when a version code is looked for (B2.4). */
const TRACK_ORDER = ['production', 'beta', 'alpha', 'internal'];
export const trackRank = (track: string) => {
  const rank = TRACK_ORDER.indexOf(track);
  return rank === -1 ? TRACK_ORDER.length : rank;
};

/** Google Play's limit of a release note (stores.md §3). */
export const PLAY_NOTES_MAX = 500;
export const VERSION_STRING = /^\d+(\.\d+){0,3}$/;

export interface ReleasesView {
  appStore: { readAt: string; versions: (StoreVersion & { firstVersion: boolean })[] } | null;
  playStore: { readAt: string; tracks: StoreTrack[] } | null;
}

/** A Google Play note's place: the track, a version code of the release, the language. */
export interface NoteKey {
  track: string;
  versionCode: string;
  locale: string;
}

export interface NoteView {
  locale: string;
  value: string | null;
  base: string | null;
  state: 'unchanged' | 'modified' | 'conflict';
  storeValue?: string | null;
}

export type PlayNoteView = NoteView & { track: string; versionCode: string };

/** A release-notes conflict, reported by sync beside text conflicts. */
export interface NotesConflict {
  store: Store;
  locale: string;
  field: string;
  localValue: string | null;
  storeValue: string | null;
}

export interface ReleasesServiceDeps {
  db: Executor;
  clock: Clock;
  projects: Pick<ProjectsService, 'require'>;
  credentials: { connectorFor(organizationId: string, store: Store): Promise<StoreConnector | null> };
  audit: Pick<AuditLog, 'record'>;
  /** The listings' partial update, audited as `action`: App Store What's New is the field `whatsNew`. */
  updateListing: ListingsService['updateAs'];
}

export const stateOf = (row: NoteRow): NoteView['state'] =>
  row.in_conflict === 1 ? 'conflict' : row.value === row.base ? 'unchanged' : 'modified';

export const noteView = (row: NoteRow): NoteView => ({
  locale: row.locale,
  value: row.value,
  base: row.base,
  state: stateOf(row),
  ...(row.in_conflict === 1 && { storeValue: row.conflict_value }),
});

/** The release of a track that holds a version code, and its key (the release's first code). */
export function releaseOf(tracks: StoreTrack[], track: string, versionCode: string) {
  const found = tracks.find((t) => t.track === track);
  if (found === undefined) return { track: undefined, release: undefined };
  return { track: found, release: found.releases.find((r) => r.versionCodes.includes(versionCode)) };
}

/** What the last sync read of each store's releases (null: never read). */
export async function snapshotsOf(executor: Executor, projectId: string) {
  const rows = await repo.snapshots(executor, projectId);
  const of = (store: Store) => {
    const row = rows.find((r) => r.store === store);
    return row === undefined
      ? null
      : { readAt: row.read_at, releases: JSON.parse(row.data) as StoreReleases };
  };
  return { appstore: of('appstore'), playstore: of('playstore') };
}

/** The App Store versions as shown: newest first, each saying whether it is the app's first. */
export const versionsView = (versions: StoreVersion[]) => {
  const oldest = versions.at(-1)?.id;
  return versions.map((v) => ({ ...v, firstVersion: v.id === oldest }));
};

export function requireAppStore(project: Project) {
  if (!isLinked(project, 'appstore')) {
    throw invalidField('store', 'the project has no appStoreAppId; set it with PATCH /projects/:projectId');
  }
}

/** Whether What's New may be written now, from the last sync: the version being prepared, not the first. */
export async function whatsNewRule(
  db: Executor,
  projectId: string,
): Promise<{ allowed: true } | { allowed: false; reason: string }> {
  const snapshot = (await snapshotsOf(db, projectId)).appstore;
  if (snapshot === null) return { allowed: true }; // never synced: the store decides
  const versions = versionsView(snapshot.releases.versions);
  const editable = versions.find((v) => v.editable);
  if (editable === undefined) {
    return {
      allowed: false,
      reason:
        "No App Store version is being prepared: create the next version (POST /projects/:projectId/releases/appstore) before writing What's New",
    };
  }
  if (editable.firstVersion) {
    return {
      allowed: false,
      reason: `Version ${editable.versionString} is the app's first: App Store Connect takes What's New only from the second version on`,
    };
  }
  return { allowed: true };
}
