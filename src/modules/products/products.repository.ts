/** Queries of products: what the last sync read of each, their texts and the texts' history. */
import type { Executor } from '../../db/database.js';
import type { ProductTextsHistoryTable, ProductTextsTable, StoreProductsTable } from '../../db/tables.js';

export type ProductRow = StoreProductsTable;
export type TextRow = ProductTextsTable;
export type TextHistoryRow = ProductTextsHistoryTable;

export interface TextKey {
  projectId: string;
  store: string;
  productId: string;
  locale: string;
}

async function products(db: Executor, projectId: string, store?: string): Promise<ProductRow[]> {
  let query = db.selectFrom('store_products').selectAll().where('project_id', '=', projectId);
  if (store !== undefined) query = query.where('store', '=', store);
  return query.orderBy('store').orderBy('kind').orderBy('product_id').execute();
}

async function product(
  db: Executor,
  projectId: string,
  store: string,
  productId: string,
): Promise<ProductRow | undefined> {
  return db
    .selectFrom('store_products')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('store', '=', store)
    .where('product_id', '=', productId)
    .executeTakeFirst();
}

async function upsertProduct(db: Executor, row: Omit<ProductRow, 'linked_product_id'>): Promise<void> {
  await db
    .insertInto('store_products')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'store', 'product_id']).doUpdateSet({
        kind: row.kind,
        reference_name: row.reference_name,
        state: row.state,
        store_ref: row.store_ref,
        details: row.details,
        locked: row.locked,
        read_at: row.read_at,
      }),
    )
    .execute();
}

/** A product's counterpart in the other store (null: none linked). */
async function setLink(
  db: Executor,
  projectId: string,
  store: string,
  productId: string,
  linked: string | null,
) {
  await db
    .updateTable('store_products')
    .set({ linked_product_id: linked })
    .where('project_id', '=', projectId)
    .where('store', '=', store)
    .where('product_id', '=', productId)
    .execute();
}

/** A product gone from the store, with its texts. */
async function deleteProduct(db: Executor, projectId: string, store: string, productId: string) {
  await db
    .deleteFrom('product_texts')
    .where('project_id', '=', projectId)
    .where('store', '=', store)
    .where('product_id', '=', productId)
    .execute();
  await db
    .deleteFrom('store_products')
    .where('project_id', '=', projectId)
    .where('store', '=', store)
    .where('product_id', '=', productId)
    .execute();
}

async function texts(
  db: Executor,
  projectId: string,
  filter: { store?: string; productId?: string; locale?: string } = {},
): Promise<TextRow[]> {
  let query = db.selectFrom('product_texts').selectAll().where('project_id', '=', projectId);
  if (filter.store !== undefined) query = query.where('store', '=', filter.store);
  if (filter.productId !== undefined) query = query.where('product_id', '=', filter.productId);
  if (filter.locale !== undefined) query = query.where('locale', '=', filter.locale);
  return query.orderBy('store').orderBy('product_id').orderBy('locale').orderBy('field').execute();
}

async function upsertText(db: Executor, row: TextRow): Promise<void> {
  await db
    .insertInto('product_texts')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'store', 'product_id', 'locale', 'field']).doUpdateSet({
        value: row.value,
        base: row.base,
        in_conflict: row.in_conflict,
        conflict_value: row.conflict_value,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

async function deleteText(db: Executor, key: TextKey & { field: string }): Promise<void> {
  await db
    .deleteFrom('product_texts')
    .where('project_id', '=', key.projectId)
    .where('store', '=', key.store)
    .where('product_id', '=', key.productId)
    .where('locale', '=', key.locale)
    .where('field', '=', key.field)
    .execute();
}

async function insertHistory(db: Executor, rows: TextHistoryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('product_texts_history').values(rows).execute();
}

async function history(
  db: Executor,
  key: TextKey,
  page: { limit: number; offset: number },
): Promise<(TextHistoryRow & { actor_name: string | null })[]> {
  return db
    .selectFrom('product_texts_history')
    .leftJoin('members', 'members.id', 'product_texts_history.actor_member_id')
    .selectAll('product_texts_history')
    .select('members.name as actor_name')
    .where('product_texts_history.project_id', '=', key.projectId)
    .where('product_texts_history.store', '=', key.store)
    .where('product_texts_history.product_id', '=', key.productId)
    .where('product_texts_history.locale', '=', key.locale)
    .orderBy('product_texts_history.created_at', 'desc')
    .orderBy('product_texts_history.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

async function historyEntry(
  db: Executor,
  projectId: string,
  id: string,
): Promise<TextHistoryRow | undefined> {
  return db
    .selectFrom('product_texts_history')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export const productsRepository = {
  products,
  product,
  upsertProduct,
  setLink,
  deleteProduct,
  texts,
  upsertText,
  deleteText,
  insertHistory,
  history,
  historyEntry,
};
