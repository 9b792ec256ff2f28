import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * App Store custom product pages and in-app events (design.md §18) are store items with texts like
 * products, kept in the same tables under their own kinds:
 * - details: what else the store says of the item, shown read-only (JSON: a page's URL, visibility
 *   and version; an event's badge, purpose, priority and schedule);
 * - locked: why the store refuses changes to the item's texts in its state, null when it takes them.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('store_products').addColumn('details', 'text').execute();
  await db.schema.alterTable('store_products').addColumn('locked', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('store_products').dropColumn('locked').execute();
  await db.schema.alterTable('store_products').dropColumn('details').execute();
}
