import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * What a push has written, locale by locale, recorded as each is done: a push resumed after its
 * instance died skips them instead of writing them again (design.md §11).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('operation_items')
    .addColumn('operation_id', 'text', (c) => c.notNull().references('operations.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('done_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('operation_items_pk', ['operation_id', 'store', 'locale'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('operation_items').execute();
}
