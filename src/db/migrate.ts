import { Migrator, type Migration, type MigrationResultSet } from 'kysely';
import type { Db } from './database.js';
import * as createCoreTables from './migrations/2026_11_22_0001_create_core_tables.js';
import * as createListings from './migrations/2026_11_22_0002_create_listings.js';
import * as createStoreCredentials from './migrations/2026_11_22_0003_create_store_credentials.js';
import * as createOperations from './migrations/2026_11_22_0004_create_operations.js';
import * as recordOperators from './migrations/2026_11_23_0005_record_operators.js';
import * as createSessions from './migrations/2026_11_23_0006_create_sessions.js';
import * as createIdempotencyKeys from './migrations/2026_11_23_0007_create_idempotency_keys.js';
import * as createEventsAndJobs from './migrations/2026_11_23_0008_create_events_and_jobs.js';
import * as createMedia from './migrations/2026_11_23_0009_create_media.js';
import * as storeMedia from './migrations/2026_11_24_0010_store_media.js';
import * as createReleases from './migrations/2026_11_24_0011_create_releases.js';
import * as createTranslations from './migrations/2026_11_24_0012_create_translations.js';
import * as indexLinkedProjects from './migrations/2026_11_27_0013_index_linked_projects.js';
import * as idempotencyPerCaller from './migrations/2026_11_27_0014_idempotency_per_caller.js';
import * as operationItems from './migrations/2026_11_27_0015_operation_items.js';
import * as reviewLoop from './migrations/2026_11_28_0016_review_loop.js';
import * as scopedAccess from './migrations/2026_11_28_0017_scoped_access.js';
import * as credentialsLastVerified from './migrations/2026_11_28_0018_credentials_last_verified.js';
import * as products from './migrations/2026_11_28_0019_products.js';
import * as productLinks from './migrations/2026_11_28_0020_product_links.js';
import * as marketingItems from './migrations/2026_11_28_0021_marketing_items.js';
import * as appDetails from './migrations/2026_11_28_0022_app_details.js';
import * as schedules from './migrations/2026_11_28_0023_schedules.js';
import * as queueIndexes from './migrations/2026_11_28_0024_queue_indexes.js';

/** Every migration, in order. Imported statically so that the set is fixed at build time. */
const MIGRATIONS: Record<string, Migration> = {
  '2026_11_22_0001_create_core_tables': createCoreTables,
  '2026_11_22_0002_create_listings': createListings,
  '2026_11_22_0003_create_store_credentials': createStoreCredentials,
  '2026_11_22_0004_create_operations': createOperations,
  '2026_11_23_0005_record_operators': recordOperators,
  '2026_11_23_0006_create_sessions': createSessions,
  '2026_11_23_0007_create_idempotency_keys': createIdempotencyKeys,
  '2026_11_23_0008_create_events_and_jobs': createEventsAndJobs,
  '2026_11_23_0009_create_media': createMedia,
  '2026_11_24_0010_store_media': storeMedia,
  '2026_11_24_0011_create_releases': createReleases,
  '2026_11_24_0012_create_translations': createTranslations,
  '2026_11_27_0013_index_linked_projects': indexLinkedProjects,
  '2026_11_27_0014_idempotency_per_caller': idempotencyPerCaller,
  '2026_11_27_0015_operation_items': operationItems,
  '2026_11_28_0016_review_loop': reviewLoop,
  '2026_11_28_0017_scoped_access': scopedAccess,
  '2026_11_28_0018_credentials_last_verified': credentialsLastVerified,
  '2026_11_28_0019_products': products,
  '2026_11_28_0020_product_links': productLinks,
  '2026_11_28_0021_marketing_items': marketingItems,
  '2026_11_28_0022_app_details': appDetails,
  '2026_11_28_0023_schedules': schedules,
  '2026_11_28_0024_queue_indexes': queueIndexes,
};

/**
 * Applies pending migrations; throws when one fails so that `appmeta migrate` exits non-zero.
 * An unreachable database is said as such first (DatabaseOpenError), not as a failed migration.
 */
export async function migrateToLatest(db: Db): Promise<MigrationResultSet> {
  await db.check();
  return checked(await migratorOf(db).migrateToLatest());
}

const migratorOf = (db: Db) =>
  new Migrator({ db: db.kysely, provider: { getMigrations: () => Promise.resolve(MIGRATIONS) } });

/** The names of every migration this build knows, in order. */
export const knownMigrations = (): string[] => Object.keys(MIGRATIONS);

/** The migrations applied to the database, in order. */
export async function appliedMigrations(db: Db): Promise<string[]> {
  const migrations = await migratorOf(db).getMigrations();
  return migrations
    .filter((migration) => migration.executedAt !== undefined)
    .map((migration) => migration.name);
}

/** Applies the migrations up to and including `name` (a restore, to the backup's schema). */
export async function migrateTo(db: Db, name: string): Promise<MigrationResultSet> {
  await db.check();
  return checked(await migratorOf(db).migrateTo(name));
}

function checked(result: MigrationResultSet): MigrationResultSet {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown';
    throw new Error(
      `migration ${failed} failed: ${String((result.error as Error).message ?? result.error)}`,
      {
        cause: result.error,
      },
    );
  }
  return result;
}
