import type { SelectQueryBuilder } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { AuditLogTable, Database } from '../../db/tables.js';

/** Which entries to read: by member, project, action (an operation id, or a prefix ending in `.`), time. */
export interface AuditFilter {
  actor?: string;
  projectId?: string;
  action?: string;
  /** Entries at or after this instant. */
  from?: string;
  /** Entries before this instant. */
  to?: string;
}

export async function insertAuditEntry(db: Executor, row: AuditLogTable): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/** The names an entry records: the member's and the project's, as they are at the time of the change. */
export async function namesAt(
  db: Executor,
  memberId: string | null,
  projectId: string | null,
): Promise<{ memberName: string | null; projectName: string | null }> {
  const [member, project] = await Promise.all([
    memberId === null
      ? undefined
      : db.selectFrom('members').select('name').where('id', '=', memberId).executeTakeFirst(),
    projectId === null
      ? undefined
      : db.selectFrom('projects').select('name').where('id', '=', projectId).executeTakeFirst(),
  ]);
  return { memberName: member?.name ?? null, projectName: project?.name ?? null };
}

function filtered(db: Executor, organizationId: string, filter: AuditFilter) {
  let query = db.selectFrom('audit_log').where('organization_id', '=', organizationId);
  if (filter.actor !== undefined) query = query.where('actor_member_id', '=', filter.actor);
  if (filter.projectId !== undefined) query = query.where('project_id', '=', filter.projectId);
  if (filter.action !== undefined) {
    // Actions are letters and dots (checked at the edge), so a prefix needs no LIKE escaping.
    query = filter.action.endsWith('.')
      ? query.where('action', 'like', `${filter.action}%`)
      : query.where('action', '=', filter.action);
  }
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
  return query;
}

const newestFirst = <O>(query: SelectQueryBuilder<Database, 'audit_log', O>) =>
  query.orderBy('created_at', 'desc').orderBy('id', 'desc');

/** One page of the organization's entries, newest first, and how many match in all. */
export async function auditPage(
  db: Executor,
  organizationId: string,
  filter: AuditFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: AuditLogTable[]; total: number }> {
  const [rows, count] = await Promise.all([
    newestFirst(filtered(db, organizationId, filter).selectAll())
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    filtered(db, organizationId, filter)
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.count) };
}

/** The next `limit` entries after `after` (newest first), for reading the whole log in batches. */
export function auditBatch(
  db: Executor,
  organizationId: string,
  filter: AuditFilter,
  after: { createdAt: string; id: string } | null,
  limit: number,
): Promise<AuditLogTable[]> {
  let query = filtered(db, organizationId, filter).selectAll();
  if (after !== null) {
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', after.createdAt),
        eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
      ]),
    );
  }
  return newestFirst(query).limit(limit).execute();
}
