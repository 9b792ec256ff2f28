/**
 * Google Play notes in supply's fastlane layout (B2.4): `changelogs/<versionCode>.txt` out, and
 * an imported tree's changelogs checked and placed on the releases that hold their codes.
 */
import { invalid } from '../../errors.js';
import type { RequestContext } from '../access/index.js';
import { listingsWithFields, type Changelog } from '../listings/index.js';
import { releasesRepository as repo } from './releases.repository.js';
import {
  trackRank,
  PLAY_NOTES_MAX,
  type NoteKey,
  type ReleasesServiceDeps,
  releaseOf,
  snapshotsOf,
} from './release-rules.js';
import type { WritePlayNotes } from './play-notes-writer.js';

export function createChangelogs(deps: ReleasesServiceDeps, writePlayNotes: WritePlayNotes) {
  const { db } = deps;
  return {
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
  };
}
