/**
 * Versions and release notes (design.md §13, stores-media.md B1, B2). What the stores said of an
 * app's releases at the last sync is kept per store; the rules of release notes are checked
 * against it before any store call: App Store What's New (the listing field `whatsNew` of the
 * version being prepared) only on an editable version that is not the app's first; Google Play
 * notes per track release and language, at most 500 characters, never empty, only in languages
 * that have a listing. Play notes have a working copy and a base like listing fields: sync merges
 * them three-way, the changeset carries them, a push writes them in the edit of the texts.
 */
import type {
  LocaleChange,
  ReleaseNotesChange,
  ReleaseNotesResult,
  StoreConnector,
  StoreReleases,
  StoreTrack,
  StoreVersion,
} from '../../connectors/store-connector.js';
import { StoreError } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { AppError, invalid, invalidField, notFound, type ErrorDetail } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { isStoreLocale, mapLocale, type Store } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import { actorOf } from '../audit/index.js';
import {
  listingsWithFields,
  mergeField,
  type Changelog,
  type FieldEdits,
  type ReleaseNotesChanges,
} from '../listings/index.js';
import { isLinked, lockProject, type Project, type ProjectsService } from '../projects/index.js';
import { notesInLocales } from './release-notes-changes.js';
import { releasesRepository as repo, type NoteHistoryRow, type NoteRow } from './releases.repository.js';

/** supply's order of tracks when a version code is looked for (B2.4). */
const TRACK_ORDER = ['production', 'beta', 'alpha', 'internal'];
const trackRank = (track: string) => {
  const rank = TRACK_ORDER.indexOf(track);
  return rank === -1 ? TRACK_ORDER.length : rank;
};

/** Google Play's limit of a release note (stores.md §3). */
export const PLAY_NOTES_MAX = 500;
const VERSION_STRING = /^\d+(\.\d+){0,3}$/;

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
  /** The listings' partial update: App Store What's New is the listing field `whatsNew`. */
  updateListing: (
    ctx: RequestContext,
    projectId: string,
    store: Store,
    locale: string,
    edits: FieldEdits,
  ) => Promise<unknown>;
}

const stateOf = (row: NoteRow): NoteView['state'] =>
  row.in_conflict === 1 ? 'conflict' : row.value === row.base ? 'unchanged' : 'modified';

const noteView = (row: NoteRow): NoteView => ({
  locale: row.locale,
  value: row.value,
  base: row.base,
  state: stateOf(row),
  ...(row.in_conflict === 1 && { storeValue: row.conflict_value }),
});

/** The release of a track that holds a version code, and its key (the release's first code). */
function releaseOf(tracks: StoreTrack[], track: string, versionCode: string) {
  const found = tracks.find((t) => t.track === track);
  if (found === undefined) return { track: undefined, release: undefined };
  return { track: found, release: found.releases.find((r) => r.versionCodes.includes(versionCode)) };
}

export function createReleasesService(deps: ReleasesServiceDeps) {
  const { db, clock, projects, credentials } = deps;

  async function snapshotsOf(executor: Executor, projectId: string) {
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
  const versionsView = (versions: StoreVersion[]) => {
    const oldest = versions.at(-1)?.id;
    return versions.map((v) => ({ ...v, firstVersion: v.id === oldest }));
  };

  function requireAppStore(project: Project) {
    if (!isLinked(project, 'appstore')) {
      throw invalidField('store', 'the project has no appStoreAppId; set it with PATCH /projects/:projectId');
    }
  }

  /** Whether What's New may be written now, from the last sync: the version being prepared, not the first. */
  async function whatsNewRule(
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

  /**
   * Writes Google Play notes, all or nothing: every entry is checked first (the release, the
   * language, its listing, never empty, at most 500 characters), each problem named by
   * `fieldOf(index, name)`; then all are written in one transaction with their history.
   */
  async function writePlayNotes(
    ctx: RequestContext,
    projectId: string,
    entries: (NoteKey & { text: string | null })[],
    source: 'edit' | 'revert' | 'copy' | 'import',
    fieldOf: (index: number, name: string) => string,
  ): Promise<PlayNoteView[]> {
    const project = await projects.require(ctx, projectId);
    if (!isLinked(project, 'playstore')) {
      throw invalidField(
        'store',
        'the project has no playStorePackageName; set it with PATCH /projects/:projectId',
      );
    }
    const snapshot = (await snapshotsOf(db, projectId)).playstore;
    if (snapshot === null) {
      throw new AppError('CONFLICT', 'Sync the project first: its Google Play tracks are not known yet');
    }
    const problems: ErrorDetail[] = [];
    const resolved = entries.map((entry, i) => {
      const { track, release } = releaseOf(snapshot.releases.tracks, entry.track, entry.versionCode);
      if (track === undefined) {
        problems.push({
          field: fieldOf(i, 'track'),
          message: `Google Play has no track ${entry.track} for this app`,
        });
      } else if (release === undefined) {
        problems.push({
          field: fieldOf(i, 'versionCode'),
          message: `no release of track ${entry.track} contains version code ${entry.versionCode}`,
        });
      }
      if (!isStoreLocale('playstore', entry.locale)) {
        problems.push({
          field: fieldOf(i, 'locale'),
          message: `"${entry.locale}" is not a Google Play language code`,
        });
      }
      if (entry.text !== null) {
        const length = [...entry.text].length;
        if (entry.text.trim() === '') {
          problems.push({
            field: fieldOf(i, 'text'),
            message: 'release notes are never empty; send null to remove them',
          });
        } else if (length > PLAY_NOTES_MAX) {
          problems.push({
            field: fieldOf(i, 'text'),
            message: `Google Play takes release notes of up to ${PLAY_NOTES_MAX} characters; this one has ${length}`,
            limit: PLAY_NOTES_MAX,
            length,
          });
        }
      }
      return { ...entry, versionCode: release?.versionCodes[0] ?? entry.versionCode };
    });
    if (problems.length > 0) {
      throw invalid(problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
    }
    const at = clock.now().toISOString();
    const actor = actorOf(ctx);
    return db.transaction().execute(async (trx) => {
      await lockProject(trx, projectId);
      const listed = new Set(
        (await listingsWithFields(trx, ctx.organizationId, projectId))
          .filter((l) => l.store === 'playstore' && l.status === 'active')
          .map((l) => l.locale),
      );
      const unlisted = resolved.flatMap((entry, i) =>
        entry.text !== null && !listed.has(entry.locale)
          ? [
              {
                field: fieldOf(i, 'locale'),
                message: `Google Play takes notes only in languages that have a listing: add the ${entry.locale} listing first`,
              },
            ]
          : [],
      );
      if (unlisted.length > 0) {
        throw invalid(unlisted.map((p) => `${p.field}: ${p.message}`).join('; '), unlisted);
      }
      const views: PlayNoteView[] = [];
      const history: NoteHistoryRow[] = [];
      for (const entry of resolved) {
        const [current] = (
          await repo.notes(trx, projectId, { track: entry.track, versionCode: entry.versionCode })
        ).filter((row) => row.locale === entry.locale);
        // Editing a note in conflict resolves it, as for listing fields: the store's text becomes the base.
        const row: NoteRow = {
          project_id: projectId,
          track: entry.track,
          version_code: entry.versionCode,
          locale: entry.locale,
          value: entry.text,
          base: current?.in_conflict === 1 ? current.conflict_value : (current?.base ?? null),
          in_conflict: 0,
          conflict_value: null,
          updated_at: at,
        };
        if (row.value === null && row.base === null) await repo.deleteNote(trx, row);
        else await repo.upsertNote(trx, row);
        if ((current?.value ?? null) !== entry.text) {
          history.push({
            id: newId('rnh'),
            project_id: projectId,
            track: entry.track,
            version_code: entry.versionCode,
            locale: entry.locale,
            old_value: current?.value ?? null,
            new_value: entry.text,
            source,
            actor_member_id: actor.memberId,
            actor_operator: actor.operator,
            created_at: at,
          });
        }
        views.push({ track: entry.track, versionCode: entry.versionCode, ...noteView(row) });
      }
      await repo.insertHistory(trx, history);
      return views;
    });
  }

  return {
    /**
     * Takes What's New out of an App Store push plan when the rule says no, with a failure per
     * locale saying why (before any store call).
     */
    async withoutRefusedWhatsNew(
      projectId: string,
      changes: LocaleChange[],
    ): Promise<{ changes: LocaleChange[]; refused: { locale: string; reason: string }[] }> {
      if (!changes.some((c) => 'whatsNew' in c.fields)) return { changes, refused: [] };
      const rule = await whatsNewRule(projectId);
      if (rule.allowed) return { changes, refused: [] };
      const refused = changes
        .filter((c) => 'whatsNew' in c.fields)
        .map((c) => ({ locale: c.locale, reason: rule.reason }));
      const kept = changes
        .map((c) => ({
          ...c,
          fields: Object.fromEntries(Object.entries(c.fields).filter(([f]) => f !== 'whatsNew')),
        }))
        .filter((c) => Object.keys(c.fields).length > 0);
      return { changes: kept, refused };
    },

    /** Versions and tracks as the last sync read them. */
    async list(ctx: RequestContext, projectId: string): Promise<ReleasesView> {
      authorize(ctx, 'releases.list');
      await projects.require(ctx, projectId);
      const { appstore, playstore } = await snapshotsOf(db, projectId);
      return {
        appStore: appstore && { readAt: appstore.readAt, versions: versionsView(appstore.releases.versions) },
        playStore: playstore && { readAt: playstore.readAt, tracks: playstore.releases.tracks },
      };
    },

    /** Creates the next App Store version; the store's refusal is passed on with its reason. */
    async createVersion(ctx: RequestContext, projectId: string, versionString: string) {
      authorize(ctx, 'releases.create');
      const project = await projects.require(ctx, projectId);
      requireAppStore(project);
      if (!VERSION_STRING.test(versionString)) {
        throw invalidField(
          'versionString',
          'a version string is up to four numbers separated by dots, e.g. 2.4.0',
        );
      }
      const connector = await credentials.connectorFor(ctx.organizationId, 'appstore');
      if (connector === null) {
        throw new AppError(
          'CONFLICT',
          'No App Store credentials are set for this organization: an admin sets them with PUT /api/v1/organization/credentials/appstore',
        );
      }
      const appId = project.appStoreAppId!;
      let version: StoreVersion;
      try {
        version = await connector.createVersion(appId, versionString);
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        throw new AppError(
          'CONFLICT',
          `App Store Connect refused version ${versionString}: ${error.message}`,
          [{ field: 'versionString', message: `${error.code}: ${error.message}` }],
        );
      }
      const releases = await connector.readReleases(appId);
      await repo.putSnapshot(db, {
        project_id: projectId,
        store: 'appstore',
        data: JSON.stringify(releases),
        read_at: clock.now().toISOString(),
      });
      ctx.log.info({ projectId, versionString }, 'app store version created');
      return { version, versions: versionsView(releases.versions) };
    },

    /** Notes per locale: App Store What's New of a version, or Google Play notes per release. */
    async notes(
      ctx: RequestContext,
      projectId: string,
      query: { store: Store; version?: string; track?: string; versionCode?: string },
    ) {
      authorize(ctx, 'releaseNotes.list');
      await projects.require(ctx, projectId);
      const snapshots = await snapshotsOf(db, projectId);
      if (query.store === 'appstore') {
        const versions = versionsView(snapshots.appstore?.releases.versions ?? []);
        const version =
          query.version === undefined
            ? versions.find((v) => v.editable)
            : versions.find((v) => v.versionString === query.version);
        if (version === undefined) {
          if (query.version !== undefined) throw notFound('Version');
          return { store: 'appstore' as const, version: null, notes: [] };
        }
        // Only the version being prepared has its texts here (stores.md §2.1).
        const rows = version.editable
          ? (await listingsWithFields(db, ctx.organizationId, projectId)).filter(
              (l) => l.store === 'appstore' && l.status === 'active',
            )
          : [];
        const notes: NoteView[] = rows.flatMap((listing) => {
          const field = listing.fields.find((f) => f.field === 'whatsNew');
          if (field === undefined || (field.value === null && field.base === null)) return [];
          return [
            {
              locale: listing.locale,
              value: field.value,
              base: field.base,
              state:
                field.in_conflict === 1 ? 'conflict' : field.value === field.base ? 'unchanged' : 'modified',
              ...(field.in_conflict === 1 && { storeValue: field.conflict_value }),
            },
          ];
        });
        return { store: 'appstore' as const, version, notes };
      }
      const tracks = snapshots.playstore?.releases.tracks ?? [];
      const rows = await repo.notes(db, projectId, {
        ...(query.track !== undefined && { track: query.track }),
      });
      const releases = tracks
        .filter((t) => query.track === undefined || t.track === query.track)
        .flatMap((t) =>
          t.releases
            .filter((r) => r.versionCodes.length > 0)
            .filter((r) => query.versionCode === undefined || r.versionCodes.includes(query.versionCode))
            .map((r) => ({
              track: t.track,
              versionCode: r.versionCodes[0]!,
              name: r.name,
              status: r.status,
              versionCodes: r.versionCodes,
              notes: rows
                .filter((row) => row.track === t.track && row.version_code === r.versionCodes[0])
                .map(noteView),
            })),
        );
      return { store: 'playstore' as const, releases };
    },

    /** App Store: What's New of a version, checked against the version's rules first. */
    async updateAppStoreNote(
      ctx: RequestContext,
      projectId: string,
      versionString: string,
      locale: string,
      text: string | null,
    ) {
      authorize(ctx, 'releaseNotes.updateAppStore');
      const project = await projects.require(ctx, projectId);
      requireAppStore(project);
      const snapshot = (await snapshotsOf(db, projectId)).appstore;
      if (snapshot === null) {
        throw new AppError('CONFLICT', 'Sync the project first: its App Store versions are not known yet');
      }
      const version = versionsView(snapshot.releases.versions).find((v) => v.versionString === versionString);
      if (version === undefined) throw notFound('Version');
      if (!version.editable) {
        throw new AppError(
          'CONFLICT',
          `Version ${versionString} is ${version.state}: What's New is written only while a version is being prepared`,
          [{ field: 'versionString', message: `not editable (${version.state})` }],
        );
      }
      if (version.firstVersion) {
        throw new AppError(
          'CONFLICT',
          `Version ${versionString} is the app's first: App Store Connect takes What's New only from the second version on`,
          [{ field: 'versionString', message: "an app's first version has no What's New" }],
        );
      }
      return deps.updateListing(ctx, projectId, 'appstore', locale, { whatsNew: text });
    },

    /** Google Play: the notes of the track's release holding `versionCode`, in one language. */
    async updatePlayNote(
      ctx: RequestContext,
      projectId: string,
      key: NoteKey,
      text: string | null,
    ): Promise<PlayNoteView> {
      authorize(ctx, 'releaseNotes.updatePlay');
      const [written] = await writePlayNotes(ctx, projectId, [{ ...key, text }], 'edit', (_i, name) => name);
      return written!;
    },

    /** A Google Play note's changes, newest first. */
    async history(
      ctx: RequestContext,
      projectId: string,
      key: NoteKey,
      page: { limit: number; offset: number },
    ) {
      authorize(ctx, 'releaseNotes.history');
      await projects.require(ctx, projectId);
      const snapshot = (await snapshotsOf(db, projectId)).playstore;
      const versionCode =
        releaseOf(snapshot?.releases.tracks ?? [], key.track, key.versionCode).release?.versionCodes[0] ??
        key.versionCode;
      const rows = await repo.history(
        db,
        { projectId, track: key.track, versionCode, locale: key.locale },
        page,
      );
      return {
        entries: rows.map((row) => ({
          id: row.id,
          old: row.old_value,
          new: row.new_value,
          source: row.source,
          actor: { memberId: row.actor_member_id, operator: row.actor_operator },
          createdAt: row.created_at,
        })),
      };
    },

    /** Sets a Google Play note back to its text before (default) or after a history entry. */
    async revert(
      ctx: RequestContext,
      projectId: string,
      input: { historyId: string; to?: 'before' | 'after' },
    ): Promise<PlayNoteView> {
      authorize(ctx, 'releaseNotes.revert');
      await projects.require(ctx, projectId);
      const entry = await repo.historyEntry(db, projectId, input.historyId);
      if (entry === undefined) throw notFound('History entry');
      const text = input.to === 'after' ? entry.new_value : entry.old_value;
      const [written] = await writePlayNotes(
        ctx,
        projectId,
        [{ track: entry.track, versionCode: entry.version_code, locale: entry.locale, text }],
        'revert',
        (_i, name) => name,
      );
      return written!;
    },

    /**
     * Copies release notes into a Google Play release: from the App Store's What's New (of the
     * version being prepared, locales mapped to Play's) or from another Play release. Every note is
     * checked against Play's rules first — one over 500 characters is refused, never cut — and
     * all or nothing is written.
     */
    async copy(
      ctx: RequestContext,
      projectId: string,
      input: {
        from: { store: Store; track?: string; versionCode?: string };
        to: { track: string; versionCode: string };
        locales?: string[];
      },
    ): Promise<{ copied: { from: string; to: string }[]; notes: PlayNoteView[] }> {
      authorize(ctx, 'releaseNotes.copy');
      await projects.require(ctx, projectId);
      const sources: { from: string; to: string; text: string }[] = [];
      if (input.from.store === 'appstore') {
        const listings = await listingsWithFields(db, ctx.organizationId, projectId);
        for (const listing of listings) {
          if (listing.store !== 'appstore' || listing.status !== 'active') continue;
          const text = listing.fields.find((f) => f.field === 'whatsNew')?.value ?? null;
          const to = mapLocale('appstore', 'playstore', listing.locale);
          if (text !== null && to !== null) sources.push({ from: listing.locale, to, text });
        }
      } else {
        if (input.from.track === undefined || input.from.versionCode === undefined) {
          throw invalidField('from.track', 'give the track and version code of the release to copy from');
        }
        const snapshot = (await snapshotsOf(db, projectId)).playstore;
        const { release } = releaseOf(
          snapshot?.releases.tracks ?? [],
          input.from.track,
          input.from.versionCode,
        );
        if (release === undefined) throw invalidField('from.versionCode', 'no such release: sync first?');
        const rows = await repo.notes(db, projectId, {
          track: input.from.track,
          versionCode: release.versionCodes[0]!,
        });
        for (const row of rows)
          if (row.value !== null) sources.push({ from: row.locale, to: row.locale, text: row.value });
      }
      const chosen = sources.filter(
        (source) => input.locales === undefined || input.locales.includes(source.to),
      );
      if (chosen.length === 0) throw invalidField('from', 'there are no notes to copy from there');
      const notes = await writePlayNotes(
        ctx,
        projectId,
        chosen.map((source) => ({ ...input.to, locale: source.to, text: source.text })),
        'copy',
        (i, name) => `notes.${chosen[i]!.from}.${name}`,
      );
      return { copied: chosen.map(({ from, to }) => ({ from, to })), notes };
    },

    /**
     * Google Play notes as supply writes them (B2.4): `changelogs/<versionCode>.txt` for every
     * version code of the release, in each language with notes.
     */
    async changelogFiles(ctx: RequestContext, projectId: string) {
      const tracks = (await snapshotsOf(db, projectId)).playstore?.releases.tracks ?? [];
      const files: { locale: string; name: string; text: string }[] = [];
      for (const row of await repo.notes(db, projectId)) {
        if (row.value === null) continue;
        const codes = releaseOf(tracks, row.track, row.version_code).release?.versionCodes ?? [
          row.version_code,
        ];
        for (const code of codes) files.push({ locale: row.locale, name: `${code}.txt`, text: row.value });
      }
      return files;
    },

    /**
     * Checks supply's changelogs of an imported tree and answers how to write them. A version
     * code names the release holding it (production first, then beta, alpha, internal, others);
     * `default.txt` goes to the newest release of the first of those tracks that has one, in the
     * languages without their own file.
     */
    async prepareChangelogs(
      ctx: RequestContext,
      projectId: string,
      changelogs: Changelog[],
      newLocales: string[],
    ): Promise<{ skipped: { path: string; reason: string }[]; write: () => Promise<number> }> {
      const tracks = [...((await snapshotsOf(db, projectId)).playstore?.releases.tracks ?? [])].sort(
        (a, b) => trackRank(a.track) - trackRank(b.track),
      );
      // A changelog of a release the store no longer has (an old version) is skipped, not an
      // error: repositories keep them all.
      const skipped: { path: string; reason: string }[] = [];
      const holding = (code: string) =>
        tracks.flatMap((t) =>
          t.releases.filter((r) => r.versionCodes.includes(code)).map((r) => ({ t, r })),
        )[0];
      const newest = tracks
        .flatMap((t) => t.releases.filter((r) => r.versionCodes.length > 0).map((r) => ({ t, r })))
        .sort(
          (a, b) =>
            trackRank(a.t.track) - trackRank(b.t.track) ||
            Number(b.r.versionCodes[0]) - Number(a.r.versionCodes[0]),
        )[0];
      const entries: (NoteKey & { text: string; path: string })[] = [];
      for (const changelog of changelogs.filter((c) => c.versionCode !== null)) {
        const found = holding(changelog.versionCode!);
        if (found === undefined) {
          skipped.push({
            path: changelog.path,
            reason: `no Google Play release holds version code ${changelog.versionCode} (as the last sync read the tracks)`,
          });
          continue;
        }
        entries.push({
          track: found.t.track,
          versionCode: found.r.versionCodes[0]!,
          locale: changelog.locale,
          text: changelog.text,
          path: changelog.path,
        });
      }
      for (const changelog of changelogs.filter((c) => c.versionCode === null)) {
        if (newest === undefined) {
          skipped.push({
            path: changelog.path,
            reason: 'no Google Play release to take it (as the last sync read the tracks)',
          });
          continue;
        }
        const own = entries.some(
          (e) =>
            e.locale === changelog.locale &&
            e.track === newest.t.track &&
            e.versionCode === newest.r.versionCodes[0],
        );
        if (!own) {
          entries.push({
            track: newest.t.track,
            versionCode: newest.r.versionCodes[0]!,
            locale: changelog.locale,
            text: changelog.text,
            path: changelog.path,
          });
        }
      }
      // The rules of an edit, checked now, before the import writes anything.
      const listed = new Set([
        ...newLocales,
        ...(await listingsWithFields(db, ctx.organizationId, projectId))
          .filter((l) => l.store === 'playstore' && l.status === 'active')
          .map((l) => l.locale),
      ]);
      const refused = entries.flatMap((entry) => {
        const length = [...entry.text].length;
        if (length > PLAY_NOTES_MAX) {
          return [
            {
              field: entry.path,
              message: `${length} characters; Google Play takes ${PLAY_NOTES_MAX}`,
              limit: PLAY_NOTES_MAX,
              length,
            },
          ];
        }
        if (!listed.has(entry.locale)) {
          return [
            {
              field: entry.path,
              message: `Google Play takes notes only in languages that have a listing (${entry.locale})`,
            },
          ];
        }
        return [];
      });
      if (refused.length > 0)
        throw invalid(refused.map((p) => `${p.field}: ${p.message}`).join('; '), refused);
      return {
        skipped,
        write: async () =>
          entries.length === 0
            ? 0
            : (await writePlayNotes(ctx, projectId, entries, 'import', (i) => entries[i]!.path)).length,
      };
    },

    /**
     * After a store was read: keeps what it said of its releases and, for Google Play, merges
     * the notes three-way (a release gone from the store takes its untouched notes with it).
     * In the caller's transaction.
     */
    async recordStore(
      trx: Executor,
      ctx: RequestContext,
      projectId: string,
      store: Store,
      releases: StoreReleases,
    ): Promise<NotesConflict[]> {
      const at = clock.now().toISOString();
      await repo.putSnapshot(trx, {
        project_id: projectId,
        store,
        data: JSON.stringify(releases),
        read_at: at,
      });
      if (store !== 'playstore') return [];
      const conflicts: NotesConflict[] = [];
      const local = await repo.notes(trx, projectId);
      const seen = new Set<string>();
      const history = [];
      const actor = actorOf(ctx);
      for (const track of releases.tracks) {
        for (const release of track.releases) {
          const versionCode = release.versionCodes[0];
          if (versionCode === undefined) continue;
          const rows = local.filter((r) => r.track === track.track && r.version_code === versionCode);
          const languages = new Set([...Object.keys(release.releaseNotes), ...rows.map((r) => r.locale)]);
          for (const locale of languages) {
            seen.add(`${track.track}/${versionCode}/${locale}`);
            const row = rows.find((r) => r.locale === locale);
            const next = mergeField(
              row && { value: row.value, base: row.base, inConflict: row.in_conflict === 1 },
              release.releaseNotes[locale] ?? null,
            );
            if (next === null) continue;
            if (next.conflict !== undefined) {
              conflicts.push({
                store,
                locale,
                field: `releaseNotes.${track.track}.${versionCode}`,
                localValue: next.value,
                storeValue: next.conflict,
              });
            }
            const key = { project_id: projectId, track: track.track, version_code: versionCode, locale };
            if (next.value === null && next.base === null && next.conflict === undefined)
              await repo.deleteNote(trx, key);
            else {
              await repo.upsertNote(trx, {
                ...key,
                value: next.value,
                base: next.base,
                in_conflict: next.conflict === undefined ? 0 : 1,
                conflict_value: next.conflict ?? null,
                updated_at: at,
              });
            }
            if ((row?.value ?? null) !== next.value) {
              history.push({
                id: newId('rnh'),
                ...key,
                old_value: row?.value ?? null,
                new_value: next.value,
                source: 'sync',
                actor_member_id: actor.memberId,
                actor_operator: actor.operator,
                created_at: at,
              });
            }
          }
        }
      }
      // Notes of releases the store no longer has: gone with them unless edited here.
      for (const row of local) {
        if (seen.has(`${row.track}/${row.version_code}/${row.locale}`)) continue;
        if (row.value === row.base && row.in_conflict === 0) await repo.deleteNote(trx, row);
      }
      await repo.insertHistory(trx, history);
      return conflicts;
    },

    /**
     * The notes a push writes, from the approved changeset (the wanted languages only);
     * conflicts left out (and said).
     */
    pushPlan(
      all: ReleaseNotesChanges,
      locales: string[] | undefined,
    ): {
      notes: ReleaseNotesChange[];
      conflicts: { track: string; versionCode: string; locale: string }[];
    } {
      const notes: ReleaseNotesChange[] = [];
      const conflicts = [];
      for (const [track, byCode] of Object.entries(notesInLocales(all, locales).changes)) {
        for (const [versionCode, byLocale] of Object.entries(byCode)) {
          const change: ReleaseNotesChange = { track, versionCode, notes: {} };
          for (const [locale, note] of Object.entries(byLocale)) {
            if (note.conflict !== undefined) conflicts.push({ track, versionCode, locale });
            else change.notes[locale] = note.new;
          }
          if (Object.keys(change.notes).length > 0) notes.push(change);
        }
      }
      return { notes, conflicts };
    },

    /** After a push: the notes the store took become the base. */
    async recordPush(projectId: string, pushed: ReleaseNotesChange[], results: ReleaseNotesResult[]) {
      const at = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        for (const result of results.filter((r) => r.written)) {
          const change = pushed.find((c) => c.track === result.track && c.versionCode === result.versionCode);
          const rows = await repo.notes(trx, projectId, {
            track: result.track,
            versionCode: result.versionCode,
          });
          for (const [locale, value] of Object.entries(change?.notes ?? {})) {
            // The base moves to what the store took; an edit made since stays pending.
            const row = rows.find((r) => r.locale === locale);
            if (row === undefined) continue;
            if (value === null && row.value === null) await repo.deleteNote(trx, row);
            else
              await repo.upsertNote(trx, {
                ...row,
                base: value,
                in_conflict: 0,
                conflict_value: null,
                updated_at: at,
              });
          }
        }
      });
    },
  };
}

export type ReleasesService = ReturnType<typeof createReleasesService>;
