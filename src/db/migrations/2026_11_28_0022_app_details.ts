import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * App details and App Review information (design.md §19):
 * - app_details: a project's value of each detail per store, with working copy, base and
 *   conflict like a listing field. The demo account password's value, base and conflict value are
 *   sealed (AES-256-GCM, the credentials' key ring), never stored in the clear.
 * - app_details_history: every change of a detail (a secret's as "set"/"cleared", never its value).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_details')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('value', 'text')
    .addColumn('base', 'text')
    .addColumn('in_conflict', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('conflict_value', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_details_pk', ['project_id', 'store', 'field'])
    .execute();
  await db.schema
    .createTable('app_details_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('old_value', 'text')
    .addColumn('new_value', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('actor_member_id', 'text')
    .addColumn('actor_operator', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('app_details_history_idx')
    .on('app_details_history')
    .columns(['project_id', 'store', 'created_at desc', 'id desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('app_details_history').execute();
  await db.schema.dropTable('app_details').execute();
}
