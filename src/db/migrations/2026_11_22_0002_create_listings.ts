import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('listings')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    // 'active', or 'removed': deleted locally, still in the store until a push with prune.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('listings_project_store_locale_unique', ['project_id', 'store', 'locale'])
    .execute();

  await db.schema
    .createTable('listing_fields')
    .addColumn('listing_id', 'text', (c) => c.notNull().references('listings.id').onDelete('cascade'))
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('value', 'text')
    .addColumn('base', 'text')
    // When a sync found the store changed to something else than the local edit: the store's value.
    .addColumn('conflict_value', 'text')
    .addColumn('in_conflict', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('listing_fields_pk', ['listing_id', 'field'])
    .execute();

  await db.schema
    .createTable('listing_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('old_value', 'text')
    .addColumn('new_value', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('actor_member_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('listing_history_listing_idx')
    .on('listing_history')
    .columns(['project_id', 'store', 'locale', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('diff_hash', 'text', (c) => c.notNull())
    .addColumn('approved_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('approvals_project_idx')
    .on('approvals')
    .columns(['project_id', 'created_at desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['approvals', 'listing_history', 'listing_fields', 'listings']) {
    await db.schema.dropTable(table).execute();
  }
}
