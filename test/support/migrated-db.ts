/** A fresh, migrated database opened directly (no app), for tests of the database layer itself. */
import { loadConfig, type DatabaseConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase } from './databases.js';
import { TEST_SECRET_KEY } from './harness.js';

export interface MigratedDb {
  db: Db;
  /** To open more connections to the same database (another instance). */
  config: DatabaseConfig;
  close(): Promise<void>;
}

export async function openMigratedDb(): Promise<MigratedDb> {
  const database = await createTestDatabase();
  const config = loadConfig({ DATABASE_URL: database.url, APPMETA_SECRET_KEY: TEST_SECRET_KEY }).database;
  const db = createDb(config);
  await migrateToLatest(db);
  return {
    db,
    config,
    async close() {
      await db.destroy();
      await database.drop();
    },
  };
}
