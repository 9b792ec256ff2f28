import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * In-app purchases and subscriptions (design.md §17):
 * - store_products: what the last sync read of each product — kind, reference name, state, the
 *   store's own id of it (App Store resource id; Google Play needs none beyond the product id).
 *   appmeta never creates or deletes products: a product gone from the store goes from here.
 * - product_texts: a product's text per locale and field, with working copy, base and conflict
 *   like a listing field.
 * - product_texts_history: every change of a product text, for history and revert.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('store_products')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('reference_name', 'text')
    .addColumn('state', 'text')
    .addColumn('store_ref', 'text')
    .addColumn('read_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('store_products_pk', ['project_id', 'store', 'product_id'])
    .execute();

  await db.schema
    .createTable('product_texts')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('value', 'text')
    .addColumn('base', 'text')
    .addColumn('in_conflict', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('conflict_value', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_texts_pk', ['project_id', 'store', 'product_id', 'locale', 'field'])
    .execute();

  await db.schema
    .createTable('product_texts_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('old_value', 'text')
    .addColumn('new_value', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('actor_member_id', 'text')
    .addColumn('actor_operator', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('product_texts_history_idx')
    .on('product_texts_history')
    .columns(['project_id', 'store', 'product_id', 'locale', 'created_at desc', 'id desc'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['product_texts_history', 'product_texts', 'store_products']) {
    await db.schema.dropTable(table).execute();
  }
}
