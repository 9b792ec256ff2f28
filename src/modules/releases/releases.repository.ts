/** Queries of releases: the stores' release snapshots, Google Play release notes and their history. */
import type { Executor } from '../../db/database.js';
import type { ReleaseNotesHistoryTable, ReleaseNotesTable, StoreReleasesTable } from '../../db/tables.js';

export type NoteRow = ReleaseNotesTable;
export type NoteHistoryRow = ReleaseNotesHistoryTable;

async function snapshots(db: Executor, projectId: string): Promise<StoreReleasesTable[]> {
  return db.selectFrom('store_releases').selectAll().where('project_id', '=', projectId).execute();
}

async function putSnapshot(db: Executor, row: StoreReleasesTable): Promise<void> {
  await db
    .insertInto('store_releases')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'store']).doUpdateSet({ data: row.data, read_at: row.read_at }),
    )
    .execute();
}

async function notes(
  db: Executor,
  projectId: string,
  filter: { track?: string; versionCode?: string } = {},
): Promise<NoteRow[]> {
  let query = db.selectFrom('release_notes').selectAll().where('project_id', '=', projectId);
  if (filter.track !== undefined) query = query.where('track', '=', filter.track);
  if (filter.versionCode !== undefined) query = query.where('version_code', '=', filter.versionCode);
  return query.orderBy('track').orderBy('version_code').orderBy('locale').execute();
}

async function upsertNote(db: Executor, row: NoteRow): Promise<void> {
  await db
    .insertInto('release_notes')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'track', 'version_code', 'locale']).doUpdateSet({
        value: row.value,
        base: row.base,
        in_conflict: row.in_conflict,
        conflict_value: row.conflict_value,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

async function deleteNote(
  db: Executor,
  key: Pick<NoteRow, 'project_id' | 'track' | 'version_code' | 'locale'>,
) {
  await db
    .deleteFrom('release_notes')
    .where('project_id', '=', key.project_id)
    .where('track', '=', key.track)
    .where('version_code', '=', key.version_code)
    .where('locale', '=', key.locale)
    .execute();
}

async function insertHistory(db: Executor, rows: NoteHistoryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('release_notes_history').values(rows).execute();
}

async function history(
  db: Executor,
  key: { projectId: string; track: string; versionCode: string; locale: string },
  page: { limit: number; offset: number },
): Promise<(NoteHistoryRow & { actor_name: string | null })[]> {
  return db
    .selectFrom('release_notes_history')
    .leftJoin('members', 'members.id', 'release_notes_history.actor_member_id')
    .selectAll('release_notes_history')
    .select('members.name as actor_name')
    .where('release_notes_history.project_id', '=', key.projectId)
    .where('release_notes_history.track', '=', key.track)
    .where('release_notes_history.version_code', '=', key.versionCode)
    .where('release_notes_history.locale', '=', key.locale)
    .orderBy('release_notes_history.created_at', 'desc')
    .orderBy('release_notes_history.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

async function historyEntry(
  db: Executor,
  projectId: string,
  id: string,
): Promise<NoteHistoryRow | undefined> {
  return db
    .selectFrom('release_notes_history')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export const releasesRepository = {
  snapshots,
  putSnapshot,
  notes,
  upsertNote,
  deleteNote,
  insertHistory,
  history,
  historyEntry,
};
