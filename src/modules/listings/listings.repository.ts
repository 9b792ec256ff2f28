import type { Executor } from '../../db/database.js';
import type { Store } from '../../shared/stores.js';
import { preparedQuery, preparedRowQuery } from '../../db/prepared.js';
import type {
  ApprovalsTable,
  ListingFieldsTable,
  ListingHistoryTable,
  ListingsTable,
} from '../../db/tables.js';

export type ListingRow = ListingsTable;
export type FieldRow = ListingFieldsTable;

export interface ListingWithFields extends ListingRow {
  fields: FieldRow[];
}

// The statements of an edit are prepared (db/prepared.ts): building them cost a quarter of an edit.
const listingByLocale = preparedQuery((db: Executor, projectId: string, store: string, locale: string) =>
  db
    .selectFrom('listings')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('store', '=', store)
    .where('locale', '=', locale),
);

export async function findListing(db: Executor, projectId: string, store: string, locale: string) {
  const [row] = await listingByLocale(db, projectId, store, locale);
  return row;
}

/** Every listing of a project (active and removed) with its fields, ordered by store and locale. */
export async function listListings(
  db: Executor,
  organizationId: string,
  projectId: string,
): Promise<ListingWithFields[]> {
  const rows = await db
    .selectFrom('listings')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('project_id', '=', projectId)
    .execute();
  if (rows.length === 0) return [];
  // Sorted here rather than in SQL so that both databases give the same (code-unit) order.
  rows.sort((a, b) => (a.store === b.store ? (a.locale < b.locale ? -1 : 1) : a.store < b.store ? -1 : 1));
  const fields = await db
    .selectFrom('listing_fields')
    .innerJoin('listings', 'listings.id', 'listing_fields.listing_id')
    .selectAll('listing_fields')
    .where('listings.project_id', '=', projectId)
    .execute();
  const byListing = new Map<string, FieldRow[]>();
  for (const field of fields) {
    const list = byListing.get(field.listing_id) ?? [];
    list.push(field);
    byListing.set(field.listing_id, list);
  }
  return rows.map((row) => ({ ...row, fields: byListing.get(row.id) ?? [] }));
}

const fieldsOf = preparedQuery((db: Executor, listingId: string) =>
  db.selectFrom('listing_fields').selectAll().where('listing_id', '=', listingId),
);

export async function listFields(db: Executor, listingId: string): Promise<FieldRow[]> {
  return fieldsOf(db, listingId);
}

/**
 * Inserts a listing unless one exists for its project, store and locale — two first edits of a
 * locale can arrive at once — and answers the row that is there now.
 */
export async function insertListing(db: Executor, row: ListingRow): Promise<ListingRow> {
  await db
    .insertInto('listings')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'store', 'locale']).doNothing())
    .execute();
  return (await findListing(db, row.project_id, row.store, row.locale)) ?? row;
}

export async function setListingStatus(db: Executor, id: string, status: 'active' | 'removed', at: string) {
  await db.updateTable('listings').set({ status, updated_at: at }).where('id', '=', id).execute();
}

const touch = preparedQuery((db: Executor, id: string, at: string) =>
  db.updateTable('listings').set({ updated_at: at }).where('id', '=', id),
);

export async function touchListing(db: Executor, id: string, at: string): Promise<void> {
  await touch(db, id, at);
}

export async function deleteListing(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('listings').where('id', '=', id).execute();
}

const FIELD_COLUMNS = [
  'listing_id',
  'field',
  'value',
  'base',
  'conflict_value',
  'in_conflict',
  'updated_at',
] as const satisfies readonly (keyof FieldRow)[];

const upsertFieldRow = preparedRowQuery(FIELD_COLUMNS, (db: Executor, row: FieldRow) =>
  db
    .insertInto('listing_fields')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['listing_id', 'field']).doUpdateSet({
        value: row.value,
        base: row.base,
        conflict_value: row.conflict_value,
        in_conflict: row.in_conflict,
        updated_at: row.updated_at,
      }),
    ),
);

export async function upsertField(db: Executor, row: FieldRow): Promise<void> {
  await upsertFieldRow(db, row);
}

const HISTORY_COLUMNS = [
  'id',
  'organization_id',
  'project_id',
  'store',
  'locale',
  'field',
  'old_value',
  'new_value',
  'source',
  'actor_member_id',
  'actor_operator',
  'created_at',
] as const satisfies readonly (keyof ListingHistoryTable)[];

const insertHistoryRow = preparedRowQuery(HISTORY_COLUMNS, (db: Executor, row: ListingHistoryTable) =>
  db.insertInto('listing_history').values(row),
);

/** One statement for any number of rows; one row (an edit of one field) is prepared. */
export async function insertHistory(db: Executor, rows: ListingHistoryTable[]): Promise<void> {
  if (rows.length === 1) await insertHistoryRow(db, rows[0]!);
  else if (rows.length > 1) await db.insertInto('listing_history').values(rows).execute();
}

export async function listHistory(
  db: Executor,
  projectId: string,
  store: string,
  locale: string,
  page: { limit: number; offset: number },
) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('listing_history')
      .leftJoin('members', 'members.id', 'listing_history.actor_member_id')
      .selectAll('listing_history')
      .select('members.name as actor_name')
      .where('listing_history.project_id', '=', projectId)
      .where('listing_history.store', '=', store)
      .where('listing_history.locale', '=', locale)
      // One write stamps all its fields with one time: name them in a fixed order, not by random id.
      .orderBy('listing_history.created_at', 'desc')
      .orderBy('listing_history.field')
      .orderBy('listing_history.id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('listing_history')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('project_id', '=', projectId)
      .where('store', '=', store)
      .where('locale', '=', locale)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.count) };
}

export async function findHistoryEntry(db: Executor, projectId: string, id: string) {
  return db
    .selectFrom('listing_history')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertApproval(db: Executor, row: ApprovalsTable) {
  await db.insertInto('approvals').values(row).execute();
}

export async function latestApproval(db: Executor, projectId: string) {
  return db
    .selectFrom('approvals')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/** Sorted locales with an active listing in either store (project metadata). */
const activeLocaleRows = preparedQuery((db: Executor, projectId: string) =>
  db
    .selectFrom('listings')
    .select('locale')
    .distinct()
    .where('project_id', '=', projectId)
    .where('status', '=', 'active'),
);

const activeLocaleRowsByStore = preparedQuery((db: Executor, projectId: string) =>
  db
    .selectFrom('listings')
    .select(['store', 'locale'])
    .where('project_id', '=', projectId)
    .where('status', '=', 'active'),
);

/** The locales with an active listing, per store, sorted. */
export async function activeLocalesByStore(
  db: Executor,
  projectId: string,
): Promise<Record<Store, string[]>> {
  const byStore: Record<Store, string[]> = { appstore: [], playstore: [] };
  for (const row of await activeLocaleRowsByStore(db, projectId))
    byStore[row.store as Store].push(row.locale);
  for (const locales of Object.values(byStore)) locales.sort();
  return byStore;
}

export async function activeLocales(db: Executor, projectId: string): Promise<string[]> {
  const rows = await activeLocaleRows(db, projectId);
  // Sorted here, not in SQL, so that both databases give the same (code-unit) order.
  return rows.map((row) => row.locale).sort();
}

/** The listing tables (listings, fields, history, approvals), for the services that the composition root gives it to. */
/** What the last drift check found in the stores that differs from the base (drift detection). */
export async function storeDrift(db: Executor, projectId: string) {
  const rows = await db
    .selectFrom('store_drift')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('store')
    .orderBy('locale')
    .orderBy('field')
    .execute();
  return rows.map((row) => ({
    store: row.store,
    locale: row.locale,
    field: row.field,
    base: row.base_value,
    storeValue: row.store_value,
    detectedAt: row.detected_at,
  }));
}

export const listingsRepository = {
  find: findListing,
  listWithFields: listListings,
  listFields,
  insert: insertListing,
  setStatus: setListingStatus,
  touch: touchListing,
  delete: deleteListing,
  upsertField,
  insertHistory,
  listHistory,
  findHistoryEntry,
  insertApproval,
  latestApproval,
  activeLocales,
  activeLocalesByStore,
  storeDrift,
};

export type ListingsRepository = typeof listingsRepository;
