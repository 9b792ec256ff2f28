import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * A product's counterpart in the other store when their ids differ (design.md §17: "linked by the
 * user"), kept on both products and left alone by sync.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('store_products').addColumn('linked_product_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('store_products').dropColumn('linked_product_id').execute();
}
