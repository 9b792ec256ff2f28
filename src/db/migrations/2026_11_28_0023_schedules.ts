import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Scheduled changes (design.md §20): a push of an approved changeset, or a release control, at a
 * time (UTC), run once across instances. A due schedule is claimed with a lease (compare-and-set
 * on status and lease), so that of several instances one acts and a dead one's claim lapses; the
 * push itself is a background operation, linked by id. A campaign keeps the values it replaced
 * (`revert_plan`) and pushes them back at `revert_at`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('schedules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('hash', 'text')
    .addColumn('release', 'text')
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('revert_at', 'text')
    .addColumn('time_zone', 'text')
    .addColumn('note', 'text')
    .addColumn('actor_member_id', 'text')
    .addColumn('actor_operator', 'text')
    .addColumn('actor_role', 'text', (c) => c.notNull())
    .addColumn('actor_access', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('operation_id', 'text')
    .addColumn('revert_operation_id', 'text')
    .addColumn('revert_plan', 'text')
    .addColumn('summary', 'text')
    .addColumn('reason', 'text')
    .addColumn('outcome', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // What every instance's tick asks: the schedules due by now, by status.
  await db.schema.createIndex('schedules_due_idx').on('schedules').columns(['status', 'at']).execute();
  await db.schema
    .createIndex('schedules_project_idx')
    .on('schedules')
    .columns(['project_id', 'at desc', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('schedules').execute();
}
