/**
 * PostgreSQL plans a named statement once per connection only when a plan made without the
 * parameters' values is estimated no worse; a bound LIMIT or OFFSET defeats that, and a page
 * query was planned again on every run (db/dialects.ts). The first page of projects must be
 * planned once.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import { projectsRepository } from '../../src/modules/projects/projects.repository.js';
import { openMigratedDb, type MigratedDb } from '../support/migrated-db.js';

let opened: MigratedDb;
let db: Db;
const CREATED = '2026-11-27T00:00:00.000Z';

beforeAll(async () => {
  opened = await openMigratedDb();
  db = opened.db;
  await db.kysely
    .insertInto('organizations')
    .values({
      id: 'org_plans',
      name: 'Plans',
      plan: 'pro',
      settings: '{}',
      created_at: CREATED,
      project_count: 30,
    })
    .execute();
  await db.kysely
    .insertInto('projects')
    .values(
      Array.from({ length: 30 }, (_, i) => ({
        id: `proj_plans_${String(i).padStart(2, '0')}`,
        organization_id: 'org_plans',
        name: `Plans ${i}`,
        created_at: CREATED,
        updated_at: CREATED,
      })),
    )
    .execute();
});
afterAll(() => opened.close());

/** How the statements of this connection that read projects have been planned so far. */
const plansOfProjectPages = (trx: Parameters<typeof projectsRepository.listPage>[0]) =>
  sql<{ statement: string; generic_plans: number; custom_plans: number }>`
    select statement, generic_plans::int, custom_plans::int from pg_prepared_statements
    where statement like 'select "id", "name"%from "projects"%order by%'`.execute(trx);

it('plans the first page of projects once per connection, and pages still read the right rows', async () => {
  // One transaction: one connection, whose named statements pg_prepared_statements shows.
  await db.kysely.transaction().execute(async (trx) => {
    const runs = 12;
    for (let i = 0; i < runs; i++) {
      const first = await projectsRepository.listPage(trx, 'org_plans', { limit: 20, offset: 0 });
      expect(first.total).toBe(30);
      expect(first.projects.map((p) => p.id)).toEqual(
        Array.from({ length: 20 }, (_, j) => `proj_plans_${String(29 - j).padStart(2, '0')}`),
      );
    }
    const later = await projectsRepository.listPage(trx, 'org_plans', { limit: 20, offset: 20 });
    expect(later.projects.map((p) => p.id)).toEqual(
      Array.from({ length: 10 }, (_, j) => `proj_plans_${String(9 - j).padStart(2, '0')}`),
    );

    const { rows } = await plansOfProjectPages(trx);
    // The first page's statement is the one run most (the later page's ran once).
    const runsOf = (row: (typeof rows)[number]) => row.generic_plans + row.custom_plans;
    const firstPage = rows.sort((a, b) => runsOf(b) - runsOf(a))[0];
    expect(firstPage && runsOf(firstPage), JSON.stringify(rows)).toBeGreaterThanOrEqual(runs);
    // PostgreSQL makes five custom plans before it weighs the generic one, then keeps that.
    expect(firstPage!.custom_plans, firstPage!.statement).toBeLessThanOrEqual(5);
  });
});
