/** On PostgreSQL, queries with parameters run as named statements: prepared once per connection. */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/database.js';
import { openMigratedDb, type MigratedDb } from '../support/migrated-db.js';

let opened: MigratedDb;
let db: Db;

beforeAll(async () => {
  opened = await openMigratedDb();
  db = opened.db;
});
afterAll(() => opened.close());

const preparedOn = async (connection: typeof db.kysely, fragment: string) =>
  (
    await sql<{
      name: string;
    }>`SELECT name FROM pg_prepared_statements WHERE statement LIKE ${`%${fragment}%`}`.execute(connection)
  ).rows.map((row) => row.name);

describe('named statements (PostgreSQL)', () => {
  it('prepares a query with parameters once per connection, whatever its values', async () => {
    await db.kysely.connection().execute(async (connection) => {
      for (const plan of ['free', 'pro', 'enterprise']) {
        await connection.selectFrom('organizations').select('id').where('plan', '=', plan).execute();
      }
      const names = await preparedOn(connection, 'where "plan" = $1');
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(/^appmeta_\d+$/);
    });
  });

  it('leaves a statement without parameters unnamed', async () => {
    await db.kysely.connection().execute(async (connection) => {
      await sql`SELECT count(*) FROM organizations WHERE plan IS NOT NULL`.execute(connection);
      expect(await preparedOn(connection, 'plan IS NOT NULL')).toEqual([]);
    });
  });

  it('runs a prepared statement again after another instance changed its table', async () => {
    await sql`CREATE TABLE widgets (id text PRIMARY KEY)`.execute(db.kysely);
    await sql`INSERT INTO widgets VALUES ('w1')`.execute(db.kysely);
    const other = createDb(opened.config);
    try {
      await db.kysely.connection().execute(async (connection) => {
        const read = () =>
          sql<Record<string, unknown>>`SELECT * FROM widgets WHERE id = ${'w1'}`.execute(connection);
        expect((await read()).rows).toEqual([{ id: 'w1' }]);
        // A migration run by another instance adds a column to the table.
        await sql`ALTER TABLE widgets ADD COLUMN color text DEFAULT 'blue'`.execute(other.kysely);
        expect((await read()).rows).toEqual([{ id: 'w1', color: 'blue' }]);
        expect((await read()).rows).toEqual([{ id: 'w1', color: 'blue' }]);
        // Renamed, not left unnamed: the statement is prepared again under its new name.
        expect(await preparedOn(connection, 'FROM widgets')).toHaveLength(2);
      });
    } finally {
      await other.destroy();
    }
  });
});
