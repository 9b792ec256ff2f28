/**
 * A fresh database for each test file: an in-memory SQLite, or a new PostgreSQL database that is
 * dropped afterwards, so that runs and files never see each other's rows.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type TestDialect = 'sqlite' | 'postgres';

export const testDialect = (): TestDialect =>
  process.env.APPMETA_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

export const testRedisUrl = (): string | null =>
  testDialect() === 'postgres' ? (process.env.APPMETA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379') : null;

const adminUrl = () => process.env.APPMETA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** A DATABASE_URL for the service. */
  url: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(options: { file?: string } = {}): Promise<TestDatabase> {
  if (testDialect() === 'sqlite') {
    return { url: `file:${options.file ?? ':memory:'}`, drop: async () => undefined };
  }
  const name = `appmeta_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
