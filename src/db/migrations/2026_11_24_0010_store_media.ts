import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Media to and from the stores (stores-media.md A1, A2).
 *
 * - store_media_files: what a store calls a file, beside our SHA-256. App Store Connect names a
 *   file by `sourceFileChecksum` (the MD5 of the file as uploaded) and serves a re-encoded copy, so
 *   a file first seen in the store is downloaded once and its checksum kept here; a sync then knows
 *   it without downloading again. Google Play names files by the SHA-256 of their bytes.
 * - media_slots.conflict: the store's files (SHA-256, in order) when a sync found the slot changed
 *   both here and in the store; null otherwise. Editing the slot resolves it, as for texts.
 * - operations.prepared: the changeset a background push was started with, so that a push
 *   resumed after a restart pushes what was approved, not what is pending by then.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('store_media_files')
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('checksum', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull().references('blobs.sha256'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('store_media_files_pk', ['organization_id', 'store', 'checksum'])
    .execute();
  await db.schema
    .createIndex('store_media_files_sha256_idx')
    .on('store_media_files')
    .columns(['sha256'])
    .execute();
  await db.schema.alterTable('media_slots').addColumn('conflict', 'text').execute();
  await db.schema.alterTable('operations').addColumn('prepared', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('operations').dropColumn('prepared').execute();
  await db.schema.alterTable('media_slots').dropColumn('conflict').execute();
  await db.schema.dropTable('store_media_files').execute();
}
