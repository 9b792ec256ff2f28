/** Queries compiled once and run with new values: each call sees its own arguments, on both databases. */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db, Executor } from '../src/db/database.js';
import { preparedQuery } from '../src/db/prepared.js';
import { openMigratedDb, type MigratedDb } from './support/migrated-db.js';

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
