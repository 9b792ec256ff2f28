import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Versions and release notes (design.md §13).
 *
 * - store_releases: what a store said of an app's releases at the last sync (App Store versions,
 *   Google Play tracks with their releases), as JSON: `GET /releases` answers from it, and the
 *   release-notes rules (which version is editable, whether it is the app's first, which release
 *   holds a version code) are checked against it before any store call.
 * - release_notes: Google Play's notes per track release (keyed by the release's first version
 *   code) and language, with working copy, base and conflict like a listing field. App Store's
 *   What's New stays the listing field `whatsNew` of the version being prepared.
 * - release_notes_history: every change of a note, for history and revert.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('store_releases')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('read_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('store_releases_pk', ['project_id', 'store'])
    .execute();

  await db.schema
    .createTable('release_notes')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('track', 'text', (c) => c.notNull())
    .addColumn('version_code', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('value', 'text')
    .addColumn('base', 'text')
    .addColumn('in_conflict', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('conflict_value', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('release_notes_pk', ['project_id', 'track', 'version_code', 'locale'])
    .execute();

  await db.schema
    .createTable('release_notes_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('track', 'text', (c) => c.notNull())
    .addColumn('version_code', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('old_value', 'text')
    .addColumn('new_value', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('actor_member_id', 'text')
    .addColumn('actor_operator', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('release_notes_history_idx')
    .on('release_notes_history')
    .columns(['project_id', 'track', 'version_code', 'locale', 'created_at desc', 'id desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['release_notes_history', 'release_notes', 'store_releases']) {
    await db.schema.dropTable(table).execute();
  }
}
