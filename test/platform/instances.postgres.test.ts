/**
 * Two instances on one PostgreSQL database, each with its workers (pg-boss): they share the
 * queue, and never run two operations of one project at once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { APP_ID, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Harness } from '../support/harness.js';

let database: TestDatabase;
let emu: RunningEmulators;
const instances: Harness[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
  emu = await startEmulators();
  for (let i = 0; i < 2; i += 1) instances.push(await startHarness({ database, env: emu.env, worker: true }));
});
afterAll(async () => {
  for (const instance of instances) await instance.close();
  await emu?.close();
  await database?.drop();
});

it('share one queue and run the operations of a project one at a time', { timeout: 60_000 }, async () => {
  const [one, two] = instances as [Harness, Harness];
  const org = await one.given.organization();
  await org.admin.api.request('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore);
  const projects = await Promise.all(
    [1, 2, 3].map(async () => (await one.given.project(org.admin, { appStoreAppId: APP_ID })).id),
  );
  // (App Store only: Google Play keeps one open edit per app, and all three projects are one app.)
  // Slow store reads keep each sync running long enough for the next one to want the project.
  emu.faults.set([{ route: 'GET *', latencyMs: 100 }]);
  const started: { project: string; id: string }[] = [];
  for (let round = 0; round < 3; round += 1) {
    for (const [index, project] of projects.entries()) {
      const via = (round + index) % 2 === 0 ? one : two;
      const res = await via
        .client(org.admin.apiKey)
        .request('POST', `/api/v1/projects/${project}/sync`, {}, { prefer: 'respond-async' });
      expect(res.status).toBe(202);
      started.push({ project, id: res.body.data.operation.id });
    }
  }
  const deadline = Date.now() + 45_000;
  const rows = async () =>
    one.db.kysely
      .selectFrom('operations')
      .select(['id', 'project_id', 'status', 'started_at', 'finished_at'])
      .where(
        'id',
        'in',
        started.map((s) => s.id),
      )
      .execute();
  let done = await rows();
  while (done.some((row) => row.status === 'queued' || row.status === 'running')) {
    if (Date.now() > deadline) throw new Error('operations still unfinished');
    await new Promise((resolve) => setTimeout(resolve, 100));
    done = await rows();
  }
  expect(done.map((row) => row.status)).toEqual(started.map(() => 'succeeded'));
  for (const project of projects) {
    const runs = done
      .filter((row) => row.project_id === project)
      .map((row) => [Date.parse(row.started_at), Date.parse(row.finished_at!)] as const)
      .sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < runs.length; i += 1) expect(runs[i]![0]).toBeGreaterThanOrEqual(runs[i - 1]![1]);
  }
  // Both instances' workers took part, and every operation ran exactly once.
  const ranBy = instances.map((instance) =>
    instance.logs
      .filter((line) => line.includes('"msg":"sync started"'))
      .map((line) => JSON.parse(line).operationId),
  );
  expect(ranBy[0]!.length).toBeGreaterThan(0);
  expect(ranBy[1]!.length).toBeGreaterThan(0);
  expect([...ranBy[0]!, ...ranBy[1]!].sort()).toEqual(started.map((s) => s.id).sort());
});
