/**
 * A fresh database for each test file: an in-memory SQLite, or a new PostgreSQL database that is
 * dropped afterwards, so that runs and files never see each other's rows. PostgreSQL databases are
 * named after the run (APPMETA_TEST_RUN), so that the global teardown can drop what a failed test
 * left behind.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type TestDialect = 'sqlite' | 'postgres';

export const testDialect = (): TestDialect =>
  process.env.APPMETA_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

export const testRedisUrl = (): string | null =>
  testDialect() === 'postgres' ? (process.env.APPMETA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379') : null;

export const adminUrl = () =>
  process.env.APPMETA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const prefix = (run: string) => `appmeta_test_${run}_`;

export interface TestDatabase {
  /** A DATABASE_URL for the service. */
  url: string;
  drop(): Promise<void>;
}

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(options: { file?: string } = {}): Promise<TestDatabase> {
  if (testDialect() === 'sqlite') {
    return { url: `file:${options.file ?? ':memory:'}`, drop: async () => undefined };
  }
  const name = `${prefix(process.env.APPMETA_TEST_RUN ?? 'adhoc')}${randomBytes(6).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(),
  };
}

/** Drops every database of a run; answers their names. */
export async function dropRunDatabases(run: string): Promise<string[]> {
  return withAdmin(async (admin) => {
    const { rows } = await admin.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE starts_with(datname, $1)',
      [prefix(run)],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    return rows.map((row) => row.datname);
  });
}
