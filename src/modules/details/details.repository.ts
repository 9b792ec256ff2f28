/** Queries of app details: a project's value of each detail per store, and their history. */
import type { Executor } from '../../db/database.js';
import type { AppDetailsHistoryTable, AppDetailsTable } from '../../db/tables.js';

export type DetailRow = AppDetailsTable;
export type DetailHistoryRow = AppDetailsHistoryTable;

async function rows(db: Executor, projectId: string, store?: string): Promise<DetailRow[]> {
  let query = db.selectFrom('app_details').selectAll().where('project_id', '=', projectId);
  if (store !== undefined) query = query.where('store', '=', store);
  return query.orderBy('store').orderBy('field').execute();
}

async function upsert(db: Executor, row: DetailRow): Promise<void> {
  await db
    .insertInto('app_details')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'store', 'field']).doUpdateSet({
        value: row.value,
        base: row.base,
        in_conflict: row.in_conflict,
        conflict_value: row.conflict_value,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

async function remove(db: Executor, key: { projectId: string; store: string; field: string }): Promise<void> {
  await db
    .deleteFrom('app_details')
    .where('project_id', '=', key.projectId)
    .where('store', '=', key.store)
    .where('field', '=', key.field)
    .execute();
}

async function insertHistory(db: Executor, history: DetailHistoryRow[]): Promise<void> {
  if (history.length > 0) await db.insertInto('app_details_history').values(history).execute();
}

async function history(
  db: Executor,
  projectId: string,
  store: string,
  page: { limit: number; offset: number },
) {
  return db
    .selectFrom('app_details_history')
    .leftJoin('members', 'members.id', 'app_details_history.actor_member_id')
    .selectAll('app_details_history')
    .select('members.name as actor_name')
    .where('app_details_history.project_id', '=', projectId)
    .where('app_details_history.store', '=', store)
    .orderBy('app_details_history.created_at', 'desc')
    .orderBy('app_details_history.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export const detailsRepository = { rows, upsert, remove, insertHistory, history };
