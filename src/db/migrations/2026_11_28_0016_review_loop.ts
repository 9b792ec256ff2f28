import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The review loop (design.md §15): audit entries name who acted and the project they touched, as
 * both were called at the time (a removed member or a deleted project keeps its name in the log);
 * approval requests wait for an admin until an approval or a new change closes them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('audit_log').addColumn('actor_name', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('project_id', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('project_name', 'text').execute();
  await db.schema
    .createIndex('audit_log_project_created_idx')
    .on('audit_log')
    .columns(['organization_id', 'project_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('approval_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('diff_hash', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text')
    .addColumn('note', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('closed_at', 'text')
    .addColumn('closed_by', 'text')
    .execute();
  await db.schema
    .createIndex('approval_requests_open_idx')
    .on('approval_requests')
    .columns(['project_id', 'status', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('approval_requests').execute();
  await db.schema.dropIndex('audit_log_project_created_idx').execute();
  for (const column of ['project_name', 'project_id', 'actor_name']) {
    await db.schema.alterTable('audit_log').dropColumn(column).execute();
  }
}
