/**
 * Schedules across real processes (design.md §20), on the real clock: two `appmeta serve`
 * processes on one database run a due schedule once; a kill -9 of the only instance before the
 * schedule's time loses nothing (the next instance runs it); a kill -9 while its push is writing
 * repeats nothing (the push operation is resumed once its lease lapses, and the schedule settles
 * once). The lease is the design's 60 s: the surviving instance runs on a clock that far ahead.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { LEASE_MS } from '../../src/modules/sync/operation-runner.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, TEST_SECRET_KEY, type Harness } from '../support/harness.js';
import { printedAdminKey, serve, type ServedProcess } from '../support/serve.js';
import { until } from '../support/until.js';

let dir: string;
let emu: RunningEmulators;
const processes: ServedProcess[] = [];
const harnesses: Harness[] = [];
const databases: TestDatabase[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-schedule-crash-'));
  emu = await startEmulators();
});
afterEach(async () => {
  for (const p of processes.splice(0)) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  for (const h of harnesses.splice(0)) await h.close();
  for (const d of databases.splice(0)) await d.drop();
  emu.faults.clear();
  emu.restore();
});
afterAll(async () => {
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const promoWrites = () =>
  emu.calls.filter((c) => c.startsWith('PATCH /v1/appStoreVersionLocalizations/')).length;
const promoInStore = () => emu.appStore.snapshot(APP_ID)['ver-2']?.versions['en-US']?.promotionalText ?? null;

function client(url: string, key: string) {
  return async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as any };
  };
}

/** A served instance on a new database with a synced project and a pending promotional text. */
async function instanceWithPendingChange(name: string) {
  const database = await createTestDatabase({ file: path.join(dir, `${name}.db`) });
  databases.push(database);
  const env = { DATABASE_URL: database.url, APPMETA_SECRET_KEY: TEST_SECRET_KEY, ...emu.env };
  const first = serve(env);
  processes.push(first);
  const url = await first.listening;
  const key = printedAdminKey(first)!;
  const call = client(url, key);
  for (const store of ['appstore', 'playstore'] as const) {
    expect((await call('PUT', `/organization/credentials/${store}`, emu.credentials[store])).status).toBe(
      200,
    );
  }
  const project = (
    await call('POST', '/projects', { name, appStoreAppId: APP_ID, playStorePackageName: PACKAGE })
  ).body.data.project.id as string;
  expect((await call('POST', `/projects/${project}/sync`, {})).status).toBe(200);
  await call('PATCH', `/projects/${project}/listings/appstore/en-US`, { promotionalText: `Launch ${name}` });
  const hash = (await call('GET', `/projects/${project}/diff`)).body.data.hash as string;
  const schedule = async (inMs: number) => {
    const created = await call('POST', `/projects/${project}/schedules`, {
      at: new Date(Date.now() + inMs).toISOString(),
      hash,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body.data.schedule.id as string;
  };
  return { database, env, first, key, call, project, schedule };
}

const finished = (read: () => Promise<{ status: string }>) =>
  until(
    'the schedule to end',
    async () => {
      const schedule = await read();
      return ['scheduled', 'running'].includes(schedule.status) ? undefined : schedule;
    },
    60_000,
  );

it('runs a due schedule once with two instances on one database', { timeout: 120_000 }, async () => {
  const { env, key, call, project, schedule } = await instanceWithPendingChange('two');
  const second = serve(env);
  processes.push(second);
  const other = client(await second.listening, key);
  const writes = promoWrites();
  const id = await schedule(3_000);
  const ended = (await finished(
    async () => (await other('GET', `/projects/${project}/schedules/${id}`)).body.data.schedule,
  )) as any;
  expect(ended.status, ended.reason).toBe('completed');
  expect(promoInStore()).toBe('Launch two');
  expect(promoWrites() - writes).toBe(1);
  // Another round of both instances' ticks changes nothing.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  expect(promoWrites() - writes).toBe(1);
  const operations = (await call('GET', `/projects/${project}/operations`)).body.data.operations as {
    kind: string;
  }[];
  expect(operations.filter((o) => o.kind === 'push')).toHaveLength(1);
});

it('loses nothing when its only instance is killed before its time', { timeout: 120_000 }, async () => {
  const { database, first, key, project, schedule } = await instanceWithPendingChange('before');
  const writes = promoWrites();
  const id = await schedule(4_000);
  first.child.kill('SIGKILL');
  await first.exited;
  await new Promise((resolve) => setTimeout(resolve, 4_500));
  expect(promoWrites() - writes).toBe(0);
  const next = await startHarness({ database, env: emu.env, worker: true });
  harnesses.push(next);
  const admin = next.client(key);
  const ended = (await finished(
    async () => (await admin.get(`/api/v1/projects/${project}/schedules/${id}`)).body.data.schedule,
  )) as any;
  expect(ended.status, ended.reason).toBe('completed');
  expect(promoInStore()).toBe('Launch before');
  expect(promoWrites() - writes).toBe(1);
});

it('repeats nothing when its instance is killed during its push', { timeout: 150_000 }, async () => {
  const { database, first, key, call, project, schedule } = await instanceWithPendingChange('during');
  // The store answers slowly: the scheduled push is mid-write when the instance dies.
  emu.faults.set([{ route: 'PATCH /v1/appStoreVersionLocalizations/*', latencyMs: 2_500 }]);
  const id = await schedule(1_000);
  const running = await until<{ operationId: string }>(
    'the scheduled push to be running',
    async () => {
      const found = (await call('GET', `/projects/${project}/schedules/${id}`)).body.data.schedule;
      if (found.operationId === null) return undefined;
      const op = (await call('GET', `/projects/${project}/operations/${found.operationId}`)).body.data
        .operation;
      return op.status === 'running' ? found : undefined;
    },
    30_000,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));
  first.child.kill('SIGKILL');
  await first.exited;
  // A write the store had already received still lands.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  emu.faults.clear();
  const survivor = await startHarness({
    database,
    env: emu.env,
    worker: true,
    clock: { now: () => new Date(Date.now() + LEASE_MS + 1_000) },
  });
  harnesses.push(survivor);
  const admin = survivor.client(key);
  const ended = (await finished(
    async () => (await admin.get(`/api/v1/projects/${project}/schedules/${id}`)).body.data.schedule,
  )) as any;
  expect(ended.status, ended.reason).toBe('completed');
  expect(ended.operationId).toBe(running.operationId);
  expect(promoInStore()).toBe('Launch during');
  const events = await survivor.db.kysely
    .selectFrom('events')
    .select('type')
    .where('type', 'in', ['schedule.completed', 'schedule.failed', 'schedule.held'])
    .execute();
  expect(events).toEqual([{ type: 'schedule.completed' }]);
  const pushes = await survivor.db.kysely
    .selectFrom('operations')
    .select(['id', 'status'])
    .where('project_id', '=', project)
    .where('kind', '=', 'push')
    .execute();
  expect(pushes).toEqual([{ id: running.operationId, status: 'succeeded' }]);
});
