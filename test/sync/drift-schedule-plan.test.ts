/**
 * The drift schedule runs every minute on every instance: it reads the projects linked to a
 * store through their partial index, not the whole projects table, which may hold millions of
 * projects that are linked to nothing.
 */
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { linkedProjects } from '../../src/modules/drift/drift.repository.js';
import { openMigratedDb, type MigratedDb } from '../support/migrated-db.js';

const UNLINKED = 5_000;

let migrated: MigratedDb;
beforeAll(async () => {
  migrated = await openMigratedDb();
  const { kysely } = migrated.db;
  const now = new Date().toISOString();
  await kysely
    .insertInto('organizations')
    .values({ id: 'org_plan', name: 'Plan', plan: 'free', settings: '{}', created_at: now })
    .execute();
  const project = (i: number, linked: boolean) => ({
    id: `prj_plan${i}`,
    organization_id: 'org_plan',
    name: `P${i}`,
    app_store_app_id: linked ? String(i) : null,
    created_at: now,
    updated_at: now,
  });
  for (let i = 0; i < UNLINKED; i += 500) {
    await kysely
      .insertInto('projects')
      .values(Array.from({ length: 500 }, (_, k) => project(i + k, false)))
      .execute();
  }
  await kysely.insertInto('projects').values(project(UNLINKED, true)).execute();
  // Both planners choose by statistics, as they would on a database that has been running.
  await sql`analyze`.execute(kysely);
});
afterAll(async () => migrated?.close());

it('reads the linked projects through projects_linked_idx', async () => {
  const { kysely } = migrated.db;
  const query = linkedProjects(kysely).compile();
  const explain = migrated.config.kind === 'postgres' ? 'explain ' : 'explain query plan ';
  const plan = await kysely.executeQuery(CompiledQuery.raw(explain + query.sql, [...query.parameters]));
  expect(JSON.stringify(plan.rows)).toContain('projects_linked_idx');
  expect((await linkedProjects(kysely).execute()).map((row) => row.id)).toEqual([`prj_plan${UNLINKED}`]);
});
