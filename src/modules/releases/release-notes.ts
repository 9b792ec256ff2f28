/**
 * Release notes as people edit them: per locale, App Store What's New of a version and Google
 * Play notes per release; their history, revert and copy between releases.
 */
import { AppError, invalidField, notFound } from '../../errors.js';
import { mapLocale, type Store } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import { historyActor } from '../audit/index.js';
import { listingsWithFields } from '../listings/index.js';
import { releasesRepository as repo } from './releases.repository.js';
import {
  type NoteKey,
  type NoteView,
  type PlayNoteView,
  type ReleasesServiceDeps,
  noteView,
  releaseOf,
  snapshotsOf,
  versionsView,
  requireAppStore,
} from './release-rules.js';
import type { WritePlayNotes } from './play-notes-writer.js';

export function createReleaseNotes(deps: ReleasesServiceDeps, writePlayNotes: WritePlayNotes) {
  const { db, projects } = deps;
  return {
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
      return deps.updateListing(ctx, 'releaseNotes.updateAppStore', projectId, 'appstore', locale, {
        whatsNew: text,
      });
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
          actor: historyActor(row, 'playstore'),
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
  };
}
