import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The media library (design.md §12).
 *
 * - blobs: one row per distinct file (content-addressed by SHA-256) in the blob store, with what
 *   was read from its bytes. `state` and `touched_at` make collection safe under concurrent
 *   uploads: an upload touches the row before it writes the file and the reference; collection
 *   marks a row `deleting` only when nothing references it and it was not touched within the grace.
 * - organization_blobs: the files an organization holds, each counted once in its storage
 *   (`organizations.media_bytes`, kept in the same transaction, so the quota check is one
 *   conditional UPDATE and exact under parallel uploads).
 * - media_items: a file placed in a slot (project, store, locale, slot type). Items are never
 *   changed; slots list them, so history can restore an earlier order and set.
 * - media_slots: per slot, the working copy (item ids, in order) and the base (the SHA-256 of what
 *   the store had at the last sync or push, in order; null while the store was never read).
 * - media_history: every change of a slot's working copy (old and new item ids).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('organizations')
    .addColumn('media_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('blobs')
    .addColumn('sha256', 'text', (c) => c.primaryKey())
    .addColumn('md5', 'text', (c) => c.notNull())
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('has_alpha', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'integer')
    .addColumn('has_thumbnail', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('touched_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('blobs_touched_idx').on('blobs').columns(['touched_at']).execute();

  await db.schema
    .createTable('organization_blobs')
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('sha256', 'text', (c) => c.notNull().references('blobs.sha256'))
    .addColumn('bytes', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_blobs_pk', ['organization_id', 'sha256'])
    .execute();
  await db.schema
    .createIndex('organization_blobs_sha256_idx')
    .on('organization_blobs')
    .columns(['sha256'])
    .execute();

  await db.schema
    .createTable('media_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('slot_type', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull().references('blobs.sha256'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('media_items_sha256_idx').on('media_items').columns(['sha256']).execute();
  await db.schema
    .createIndex('media_items_project_idx')
    .on('media_items')
    .columns(['project_id', 'store', 'locale', 'slot_type'])
    .execute();

  await db.schema
    .createTable('media_slots')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('slot_type', 'text', (c) => c.notNull())
    .addColumn('items', 'text', (c) => c.notNull())
    .addColumn('base', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('media_slots_pk', ['project_id', 'store', 'locale', 'slot_type'])
    .execute();

  await db.schema
    .createTable('media_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('slot_type', 'text', (c) => c.notNull())
    .addColumn('old_items', 'text', (c) => c.notNull())
    .addColumn('new_items', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('actor_member_id', 'text')
    .addColumn('actor_operator', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('media_history_slot_idx')
    .on('media_history')
    .columns(['project_id', 'store', 'locale', 'slot_type', 'created_at desc', 'id desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['media_history', 'media_slots', 'media_items', 'organization_blobs', 'blobs']) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable('organizations').dropColumn('media_bytes').execute();
}
