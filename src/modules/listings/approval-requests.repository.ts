/** Queries of approval requests (design.md §15): members ask, an approval or a new change closes. */
import type { Executor } from '../../db/database.js';
import type { ApprovalRequestsTable } from '../../db/tables.js';

export type ApprovalRequestRow = ApprovalRequestsTable & { requester_name: string | null };

export async function insertApprovalRequest(db: Executor, row: ApprovalRequestsTable): Promise<void> {
  await db.insertInto('approval_requests').values(row).execute();
}

/** The project's open requests, oldest first, with the requester's name. */
export function openApprovalRequests(db: Executor, projectId: string): Promise<ApprovalRequestRow[]> {
  return db
    .selectFrom('approval_requests')
    .leftJoin('members', 'members.id', 'approval_requests.requested_by')
    .selectAll('approval_requests')
    .select('members.name as requester_name')
    .where('approval_requests.project_id', '=', projectId)
    .where('approval_requests.status', '=', 'open')
    .orderBy('approval_requests.created_at')
    .orderBy('approval_requests.id')
    .execute();
}

/** Closes the project's open requests: all of them, or those for another changeset than `keepHash`. */
export async function closeApprovalRequests(
  db: Executor,
  projectId: string,
  close: { status: 'approved' | 'superseded'; at: string; by: string | null; keepHash?: string },
): Promise<void> {
  let query = db
    .updateTable('approval_requests')
    .set({ status: close.status, closed_at: close.at, closed_by: close.by })
    .where('project_id', '=', projectId)
    .where('status', '=', 'open');
  if (close.keepHash !== undefined) query = query.where('diff_hash', '!=', close.keepHash);
  await query.execute();
}
