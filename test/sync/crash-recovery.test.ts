/**
 * kill -9 of the instance running background operations (design.md §11): once its lease lapses
 * (60 s), another instance resumes them — a push too, with the changeset it started with — and no
 * store write is repeated: texts the store has are not written again, media files it settled are
 * not uploaded again. The lease is the design's 60 s; rather than wait it out, the surviving
 * instance runs on a clock that far ahead of the dead one's, which is what it sees once the lease
 * has lapsed (the leases the dead instance wrote come from its own, real clock).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, TEST_SECRET_KEY, type Harness } from '../support/harness.js';
import { LEASE_MS } from '../../src/modules/sync/operation-runner.js';
import { distinctColour, image } from '../support/media.js';
import { printedAdminKey, serve, type ServedProcess } from '../support/serve.js';

let dir: string;
let database: TestDatabase;
let emu: RunningEmulators;
let served: ServedProcess | undefined;
let survivor: Harness | undefined;

/** The clock of an instance started once the dead instance's leases have lapsed. */
const afterTheLease = { now: () => new Date(Date.now() + LEASE_MS + 1_000) };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-crash-'));
  database = await createTestDatabase({ file: path.join(dir, 'crash.db') });
  emu = await startEmulators();
});
afterAll(async () => {
  if (served !== undefined && served.child.exitCode === null) served.child.kill('SIGKILL');
  await survivor?.close();
  await emu?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

it(
  'resumes a sync that had not written and a push that had, without writing anything twice',
  { timeout: 150_000 },
  async () => {
    served = serve({
      DATABASE_URL: database.url,
      APPMETA_SECRET_KEY: TEST_SECRET_KEY,
      ...emu.env,
    });
    const url = await served.listening;
    const key = printedAdminKey(served)!;
    const call = async (
      method: string,
      route: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${url}/api/v1${route}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    for (const store of ['appstore', 'playstore'] as const) {
      expect((await call('PUT', `/organization/credentials/${store}`, emu.credentials[store])).status).toBe(
        200,
      );
    }
    const pushed = (
      await call('POST', '/projects', {
        name: 'Pushed',
        appStoreAppId: APP_ID,
        playStorePackageName: PACKAGE,
      })
    ).body.data.project.id;
    const synced = (await call('POST', '/projects', { name: 'Synced', playStorePackageName: PACKAGE })).body
      .data.project.id;
    expect((await call('POST', `/projects/${pushed}/sync`, {})).status).toBe(200);
    await call('PATCH', `/projects/${pushed}/listings/appstore/en-US`, { promotionalText: 'Radar' });
    await call('PATCH', `/projects/${pushed}/listings/appstore/de-DE`, {
      name: 'Wetter Pro',
      description: 'Wetter.',
    });
    // Google Play takes its part at once (it is not slowed): written and committed before the kill.
    await call('PATCH', `/projects/${pushed}/listings/playstore/en-US`, {
      shortDescription: 'Radar and rain',
    });

    // The store answers slowly: the push is mid-write and the sync mid-read when the instance dies.
    emu.faults.set([
      { route: 'PATCH /v1/*', latencyMs: 2_000 },
      { route: 'POST /v1/app*Localizations', latencyMs: 2_000 },
      { route: 'GET */listings', latencyMs: 2_000 },
    ]);
    const async = { prefer: 'respond-async' };
    const push = (await call('POST', `/projects/${pushed}/push`, {}, async)).body.data.operation.id;
    const deadline = Date.now() + 10_000;
    // Google Play's part is committed before the sync of the other project (of the same app)
    // opens an edit of its own, which would end the push's.
    const playHas = () =>
      (emu.play.snapshot(PACKAGE)['en-US'] as { shortDescription?: string } | undefined)?.shortDescription ===
      'Radar and rain';
    while (!playHas()) {
      if (Date.now() > deadline) throw new Error('Google Play was not written');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const sync = (await call('POST', `/projects/${synced}/sync`, {}, async)).body.data.operation.id;
    const status = async (project: string, id: string) =>
      (await call('GET', `/projects/${project}/operations/${id}`)).body.data.operation.status as string;
    while ((await status(pushed, push)) !== 'running' || (await status(synced, sync)) !== 'running') {
      if (Date.now() > deadline) throw new Error('the operations did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    served.child.kill('SIGKILL');
    await served.exited;
    // Writes the store had already received still land; none may come after this.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    emu.faults.clear();
    const writes = emu.appStore.counters.writes;
    expect(writes).toBeGreaterThan(0);
    const playWrites = () =>
      emu.calls.filter(
        (c) => /^(PATCH|PUT) \/androidpublisher\/.*\/listings\//.test(c) || c.endsWith(':commit'),
      ).length;
    const playWritesBefore = playWrites();
    expect(emu.calls.some((c) => c.startsWith('POST /androidpublisher/') && c.endsWith(':commit'))).toBe(
      true,
    );

    survivor = await startHarness({ database, env: emu.env, worker: true, clock: afterTheLease });
    const admin = survivor.client(key);
    const finished = async (project: string, id: string) => {
      const until = Date.now() + 100_000;
      for (;;) {
        const operation = (await admin.get(`/api/v1/projects/${project}/operations/${id}`)).body.data
          .operation;
        if (!['queued', 'running'].includes(operation.status)) return operation;

        if (Date.now() > until) {
          // What the surviving instance warned about says why.
          console.log(survivor!.logs.filter((l) => /"level":(40|50)/.test(l)).join('\n'));
          throw new Error(`operation still ${operation.status}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    };
    const [pushOutcome, syncOutcome] = await Promise.all([finished(pushed, push), finished(synced, sync)]);
    expect(syncOutcome.status).toBe('succeeded');
    expect(syncOutcome.outcome.playStore).toMatchObject({ synced: true });
    // The push had begun writing: it is resumed with the changeset it started with, and writes
    // only what the store does not have yet (at most the three writes of the push), then nothing.
    expect(pushOutcome.status).toBe('succeeded');
    expect(pushOutcome.outcome.appStore).toMatchObject({ pushed: true, locales: 2 });
    // Google Play's locale was recorded as written: the resumed push does not send it again.
    expect(pushOutcome.outcome.playStore).toMatchObject({ pushed: true, locales: 1 });
    expect(playWrites()).toBe(playWritesBefore);
    const resumedWrites = emu.appStore.counters.writes - writes;
    expect(resumedWrites).toBeGreaterThan(0);
    expect(resumedWrites).toBeLessThanOrEqual(3);
    const again = await admin.post(`/api/v1/projects/${pushed}/push`, {});
    expect(again.body.data.appStore).toMatchObject({ pushed: true, locales: 0 });
    expect(emu.appStore.counters.writes - writes).toBe(resumedWrites);
    // The project is free again: a synchronous sync runs at once.
    expect((await admin.post(`/api/v1/projects/${pushed}/sync`, {})).status).toBe(200);
  },
);

it(
  'resumes a media push whose instance died, without uploading a file the store had settled',
  { timeout: 150_000 },
  async () => {
    const own = await createTestDatabase({ file: path.join(dir, 'media-crash.db') });
    // Both instances keep media files in one place, as a deployment's instances do.
    const blobs = { BLOB_STORE_URL: `file:${path.join(dir, 'blobs')}` };
    const instance = serve({
      DATABASE_URL: own.url,
      APPMETA_SECRET_KEY: TEST_SECRET_KEY,
      ...emu.env,
      ...blobs,
    });
    let resumer: Harness | undefined;
    try {
      emu.restore();
      const url = await instance.listening;
      const key = printedAdminKey(instance)!;
      const auth = { authorization: `Bearer ${key}` };
      const call = async (
        method: string,
        route: string,
        body?: unknown,
        headers: Record<string, string> = {},
      ) => {
        const res = await fetch(`${url}/api/v1${route}`, {
          method,
          headers: { ...auth, 'content-type': 'application/json', ...headers },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return (await res.json()) as any;
      };
      await call('PUT', '/organization/credentials/appstore', emu.credentials.appstore);
      const project = (await call('POST', '/projects', { name: 'Media', appStoreAppId: APP_ID })).data.project
        .id;
      await call('POST', `/projects/${project}/sync`, {});
      const md5s: string[] = [];
      for (let i = 0; i < 3; i += 1) {
        const res = await fetch(`${url}/api/v1/projects/${project}/media/appstore/en-US/APP_IPHONE_67`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'image/png' },
          body: await image({ width: 1290, height: 2796, colour: distinctColour() }),
        });
        md5s.push(((await res.json()) as any).data.md5);
      }
      // Two files go through and settle; the third reservation hangs when the instance dies.
      emu.faults.set([{ route: 'POST /v1/appScreenshots', latencyMs: 4_000, after: 2 }]);
      const operation = (await call('POST', `/projects/${project}/push`, {}, { prefer: 'respond-async' }))
        .data.operation.id;
      const settled = () =>
        [...emu.appStore.media.assets.values()].filter((a) => a.state === 'COMPLETE').length;
      const deadline = Date.now() + 20_000;
      while (settled() < 2) {
        if (Date.now() > deadline) throw new Error('the first files did not settle');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      instance.child.kill('SIGKILL');
      await instance.exited;
      await new Promise((resolve) => setTimeout(resolve, 4_500));
      emu.faults.clear();
      const uploadsBefore = emu.calls.filter((c) => c.startsWith('PUT /emulator-uploads/')).length;
      expect(uploadsBefore).toBe(2);

      resumer = await startHarness({
        database: own,
        env: { ...emu.env, ...blobs },
        worker: true,
        clock: afterTheLease,
      });
      const admin = resumer.client(key);
      const until = Date.now() + 100_000;
      let outcome;
      for (;;) {
        outcome = (await admin.get(`/api/v1/projects/${project}/operations/${operation}`)).body.data
          .operation;
        if (!['queued', 'running'].includes(outcome.status)) break;
        if (Date.now() > until) throw new Error(`operation still ${outcome.status}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(outcome.status, JSON.stringify(outcome.outcome)).toBe('succeeded');
      // Each file's bytes went to the store once: the two settled ones were recognised.
      expect(emu.calls.filter((c) => c.startsWith('PUT /emulator-uploads/'))).toHaveLength(3);
      const set = [...emu.appStore.media.sets.values()].find((s) => s.displayType === 'APP_IPHONE_67')!;
      expect(set.items.map((id) => emu.appStore.media.assets.get(id)!.checksum)).toEqual(md5s);
    } finally {
      if (instance.child.exitCode === null) instance.child.kill('SIGKILL');
      await resumer?.close();
      await own.drop();
    }
  },
);
