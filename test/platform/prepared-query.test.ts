/** Queries compiled once and run with new values: each call sees its own arguments, on both databases. */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Executor } from '../../src/db/database.js';
import { preparedQuery, preparedRowQuery } from '../../src/db/prepared.js';
import { openMigratedDb, type MigratedDb } from '../support/migrated-db.js';

let opened: MigratedDb;
let db: Db;

const organization = (id: string, plan: string) => ({
  id,
  name: `Org ${id}`,
  plan,
  settings: '{}',
  created_at: '2026-11-22T00:00:00.000Z',
});

beforeAll(async () => {
  opened = await openMigratedDb();
  db = opened.db;
  await db.kysely
    .insertInto('organizations')
    .values([organization('org_a', 'free'), organization('org_b', 'pro'), organization('org_c', 'pro')])
    .execute();
});
afterAll(() => opened.close());

const byPlan = preparedQuery((db: Executor, plan: string, limit: number) =>
  db
    .selectFrom('organizations')
    .select('id')
    .where('plan', '=', plan)
    .where('name', 'like', 'Org %') // a value built into the query, kept on every call
    .orderBy('id')
    .limit(limit),
);

describe('preparedQuery', () => {
  it('runs each call with its own arguments', async () => {
    expect(await byPlan(db.kysely, 'pro', 10)).toEqual([{ id: 'org_b' }, { id: 'org_c' }]);
    expect(await byPlan(db.kysely, 'free', 10)).toEqual([{ id: 'org_a' }]);
    expect(await byPlan(db.kysely, 'pro', 1)).toEqual([{ id: 'org_b' }]);
    expect(await byPlan(db.kysely, 'enterprise', 10)).toEqual([]);
  });

  it('substitutes an argument used twice in both places', async () => {
    const either = preparedQuery((db: Executor, id: string) =>
      db
        .selectFrom('organizations')
        .select('id')
        .where((eb) => eb.or([eb('id', '=', id), eb('name', '=', sql<string>`'Org ' || ${id}`)])),
    );
    expect(await either(db.kysely, 'org_c')).toEqual([{ id: 'org_c' }]);
    expect(await either(db.kysely, 'org_a')).toEqual([{ id: 'org_a' }]);
  });

  it('runs inside a transaction and sees its uncommitted rows', async () => {
    await db.kysely
      .transaction()
      .execute(async (trx) => {
        await trx.insertInto('organizations').values(organization('org_d', 'enterprise')).execute();
        expect(await byPlan(trx, 'enterprise', 10)).toEqual([{ id: 'org_d' }]);
        throw new Error('roll back');
      })
      .catch((error: unknown) => expect((error as Error).message).toBe('roll back'));
    expect(await byPlan(db.kysely, 'enterprise', 10)).toEqual([]);
  });

  it('is built once per database, its transactions included', async () => {
    let builds = 0;
    const named = preparedQuery((db: Executor, id: string) => {
      builds += 1;
      return db.selectFrom('organizations').select('name').where('id', '=', id);
    });
    expect(await named(db.kysely, 'org_a')).toEqual([{ name: 'Org org_a' }]);
    for (const id of ['org_b', 'org_c'])
      expect(await db.kysely.transaction().execute((trx) => named(trx, id))).toEqual([{ name: `Org ${id}` }]);
    expect(builds).toBe(1);
    // Another database compiles its own.
    const other = await openMigratedDb();
    try {
      expect(await named(other.db.kysely, 'org_a')).toEqual([]);
      expect(builds).toBe(2);
    } finally {
      await other.close();
    }
  });

  it('refuses an argument that shapes the query instead of being a value', async () => {
    // The placeholder is truthy, so the query would always filter — and never by the argument.
    const shaped = preparedQuery((db: Executor, onlyPro: boolean) => {
      const query = db.selectFrom('organizations').select('id');
      return onlyPro ? query.where('plan', '=', 'pro') : query;
    });
    await expect(shaped(db.kysely, false)).rejects.toThrow('argument 0 is not a value');
  });

  it('refuses a call whose arguments do not match the query built', async () => {
    // A default value hides the argument from build.length: it would be built in, not substituted.
    const defaulted = preparedQuery((db: Executor, plan: string = 'pro') =>
      db.selectFrom('organizations').select('id').where('plan', '=', plan),
    );
    await expect(defaulted(db.kysely, 'free')).rejects.toThrow('1 arguments for 0');
  });
});

describe('preparedRowQuery', () => {
  const insertOrganization = preparedRowQuery(
    ['id', 'name', 'plan', 'settings', 'created_at'],
    (db: Executor, row: ReturnType<typeof organization>) => db.insertInto('organizations').values(row),
  );

  it('writes each call its own row', async () => {
    await insertOrganization(db.kysely, organization('org_r1', 'free'));
    await db.kysely.transaction().execute((trx) => insertOrganization(trx, organization('org_r2', 'team')));
    const rows = await db.kysely
      .selectFrom('organizations')
      .select(['id', 'plan'])
      .where('id', 'in', ['org_r1', 'org_r2'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: 'org_r1', plan: 'free' },
      { id: 'org_r2', plan: 'team' },
    ]);
    await db.kysely.deleteFrom('organizations').where('id', 'in', ['org_r1', 'org_r2']).execute();
  });

  it('refuses a row with a column it does not write', async () => {
    const row = { ...organization('org_r3', 'free'), project_count: 3 };
    await expect(insertOrganization(db.kysely, row)).rejects.toThrow(
      'column project_count is not one of its columns',
    );
  });
});

describe('LIMIT and OFFSET', () => {
  // A bound LIMIT makes SQLite prepare the statement again on every run, and PostgreSQL plan a
  // named statement again on every run; so does a bound OFFSET on PostgreSQL (db/dialects.ts).
  it('a whole-number LIMIT is written into the SQL, and still limits the rows', async () => {
    const query = db.kysely.selectFrom('organizations').select('id').orderBy('id').limit(2).offset(1);
    const { sql: text, parameters } = query.compile();
    expect(text).toMatch(db.dialect === 'sqlite' ? / limit 2 offset \?$/ : / limit 2 offset \$1$/);
    expect(parameters).toEqual([1]);
    expect((await query.execute()).map((row) => row.id)).toEqual(['org_b', 'org_c']);
  });

  it('OFFSET 0 is left out on PostgreSQL, and the rows are the same', async () => {
    const query = db.kysely.selectFrom('organizations').select('id').orderBy('id').limit(2).offset(0);
    const { sql: text, parameters } = query.compile();
    if (db.dialect === 'sqlite') {
      expect(text).toMatch(/ limit 2 offset \?$/);
      expect(parameters).toEqual([0]);
    } else {
      expect(text).toMatch(/ limit 2 ?$/);
      expect(parameters).toEqual([]);
    }
    expect((await query.execute()).map((row) => row.id)).toEqual(['org_a', 'org_b']);
  });

  it('stays a parameter when it is not a whole number known at compile time', () => {
    const { sql: text } = db.kysely
      .selectFrom('organizations')
      .select('id')
      .limit(sql<number>`${2}`)
      .compile();
    expect(text).toMatch(/ limit (\?|\$1)$/);
  });
});

describe('rows', () => {
  it('are objects of their columns, whatever the names: the last of a repeated name wins', async () => {
    const { rows } = await sql<
      Record<string, unknown>
    >`select 1 as "a", 2 as "a", 'x' as "__proto__", 3 as "it's ""quoted""", 4 as "values"`.execute(
      db.kysely,
    );
    const row = rows[0]!;
    expect(Object.keys(row)).toEqual(['a', '__proto__', `it's "quoted"`, 'values']);
    expect(row.a).toBe(2);
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).toBe('x');
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(row[`it's "quoted"`]).toBe(3);
    expect(row.values).toBe(4);
  });
});
