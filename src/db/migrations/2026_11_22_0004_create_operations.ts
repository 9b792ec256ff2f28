import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

export async function up(db: Kysely<any>): Promise<void> {
  // The project's operation lock: sync and push of one project never interleave, across instances.
  await db.schema.alterTable('projects').addColumn('operation_id', 'text').execute();
  await db.schema.alterTable('projects').addColumn('operation_expires_at', 'text').execute();

  await db.schema
    .createTable('operations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('actor_member_id', 'text')
    .addColumn('stores', 'text', (c) => c.notNull())
    .addColumn('locales', 'text')
    .addColumn('outcome', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema
    .createIndex('operations_project_started_idx')
    .on('operations')
    .columns(['project_id', 'started_at desc', 'id desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('operations').execute();
  await db.schema.alterTable('projects').dropColumn('operation_expires_at').execute();
  await db.schema.alterTable('projects').dropColumn('operation_id').execute();
}
