import type { Executor } from '../../db/database.js';
import type { AuditLogTable } from '../../db/tables.js';

export async function insertAuditEntry(db: Executor, row: AuditLogTable): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/** One page of the organization's entries, newest first, and how many there are in all. */
export async function auditPage(
  db: Executor,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: AuditLogTable[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('audit_log')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.count) };
}
