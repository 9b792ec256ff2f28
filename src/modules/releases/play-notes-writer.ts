/**
 * Writing Google Play notes, all or nothing: every entry is checked against the last sync's tracks
 * and the rules first, then all are written in one transaction with their history.
 */
import { AppError, invalid, invalidField, type ErrorDetail } from '../../errors.js';
import { newId } from '../../shared/ids.js';
import { isStoreLocale } from '../../shared/stores.js';
import { requireLocalesInScope, type RequestContext } from '../access/index.js';
import { actorOf } from '../audit/index.js';
import { listingsWithFields } from '../listings/index.js';
import { isLinked, lockProject } from '../projects/index.js';
import { releasesRepository as repo, type NoteHistoryRow, type NoteRow } from './releases.repository.js';
import {
  PLAY_NOTES_MAX,
  type NoteKey,
  type PlayNoteView,
  type ReleasesServiceDeps,
  noteView,
  releaseOf,
  snapshotsOf,
} from './release-rules.js';

/** The operation each way of writing notes is audited as; an import's entry is the import's own. */
const ACTION_OF = {
  edit: 'releaseNotes.updatePlay',
  revert: 'releaseNotes.revert',
  copy: 'releaseNotes.copy',
  import: null,
} as const;

export function createPlayNotesWriter(
  deps: Pick<ReleasesServiceDeps, 'db' | 'clock' | 'projects' | 'audit'>,
) {
  const { db, clock, projects, audit } = deps;
  /**
   * Writes Google Play notes, all or nothing: every entry is checked first (the release, the
   * language, its listing, never empty, at most 500 characters), each problem named by
   * `fieldOf(index, name)`; then all are written in one transaction with their history.
   */
  return async function writePlayNotes(
    ctx: RequestContext,
    projectId: string,
    entries: (NoteKey & { text: string | null })[],
    source: 'edit' | 'revert' | 'copy' | 'import',
    fieldOf: (index: number, name: string) => string,
  ): Promise<PlayNoteView[]> {
    const project = await projects.require(ctx, projectId);
    requireLocalesInScope(
      ctx,
      entries.map((entry) => entry.locale),
    );
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
      const action = ACTION_OF[source];
      if (action !== null) {
        await audit.record(
          trx,
          ctx,
          action,
          { type: 'releaseNotes', id: 'playstore', projectId },
          { notes: resolved.map((e) => `${e.track}/${e.versionCode}/${e.locale}`) },
        );
      }
      return views;
    });
  };
}

export type WritePlayNotes = ReturnType<typeof createPlayNotesWriter>;
