import type { Executor } from '../../db/database.js';
import type { StoreDriftTable } from '../../db/tables.js';
import type { Store } from '../../shared/stores.js';

/**
 * The projects linked to a store, with their organization's settings. The condition is the one
 * of the partial index projects_linked_idx, word for word, so that the databases read only them.
 */
export const linkedProjects = (db: Executor) =>
  db
    .selectFrom('projects as p')
    .innerJoin('organizations as o', 'o.id', 'p.organization_id')
    .select(['p.id', 'p.drift_checked_at', 'o.settings'])
    .where((eb) =>
      eb.or([eb('p.app_store_app_id', 'is not', null), eb('p.play_store_package_name', 'is not', null)]),
    );

/** What a drift check needs of a project: its organization and store links. */
export const projectToCheck = (db: Executor, projectId: string) =>
  db
    .selectFrom('projects')
    .select(['organization_id', 'app_store_app_id', 'play_store_package_name'])
    .where('id', '=', projectId)
    .executeTakeFirst();

/** The base of every field of a project's listings in one store. */
export const listingBases = (db: Executor, projectId: string, store: Store) =>
  db
    .selectFrom('listings as l')
    .innerJoin('listing_fields as f', 'f.listing_id', 'l.id')
    .select(['l.locale', 'f.field', 'f.base'])
    .where('l.project_id', '=', projectId)
    .where('l.store', '=', store)
    .execute();

/** A store's product texts as the last sync or push left them (their bases), and which products are known. */
export const productBases = async (db: Executor, projectId: string, store: Store) => ({
  texts: await db
    .selectFrom('product_texts')
    .select(['product_id', 'locale', 'field', 'base'])
    .where('project_id', '=', projectId)
    .where('store', '=', store)
    .execute(),
  products: (
    await db
      .selectFrom('store_products')
      .select('product_id')
      .where('project_id', '=', projectId)
      .where('store', '=', store)
      .execute()
  ).map((row) => row.product_id),
});

/** A store's app details as the last sync or push left them (their bases). */
export const detailBases = (db: Executor, projectId: string, store: Store) =>
  db
    .selectFrom('app_details')
    .select(['field', 'base'])
    .where('project_id', '=', projectId)
    .where('store', '=', store)
    .execute();

/** The drift recorded for a project's store. */
export const recordedDrift = (db: Executor, projectId: string, store: Store) =>
  db
    .selectFrom('store_drift')
    .select(['locale', 'field', 'store_value'])
    .where('project_id', '=', projectId)
    .where('store', '=', store)
    .execute();

/** Forgets the drift of a project's store: a sync made what the store holds the base. */
export async function clearStoreDrift(db: Executor, projectId: string, store: Store): Promise<void> {
  await db.deleteFrom('store_drift').where('project_id', '=', projectId).where('store', '=', store).execute();
}

/** Replaces the drift of a project's store by what a check found. */
export async function replaceDrift(
  db: Executor,
  projectId: string,
  store: Store,
  rows: Omit<StoreDriftTable, 'project_id' | 'store'>[],
): Promise<void> {
  await clearStoreDrift(db, projectId, store);
  for (const row of rows) {
    await db
      .insertInto('store_drift')
      .values({ project_id: projectId, store, ...row })
      .execute();
  }
}

/**
 * Claims a project's drift check with a compare-and-set on its last check time: true when this
 * caller moved it from `seen` to `at`, so two instances never queue the same check.
 */
export async function claimDriftCheck(
  db: Executor,
  projectId: string,
  seen: string | null,
  at: string,
): Promise<boolean> {
  const claimed = await db
    .updateTable('projects')
    .set({ drift_checked_at: at })
    .where('id', '=', projectId)
    .where((eb) => (seen === null ? eb('drift_checked_at', 'is', null) : eb('drift_checked_at', '=', seen)))
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}
