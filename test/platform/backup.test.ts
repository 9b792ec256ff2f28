/**
 * appmeta backup and restore (design.md §21) through the CLI, as an operator runs them: a backup
 * taken while the service is writing, restored into an empty database and an empty blob store,
 * and a second instance on the restored copy that serves the same data — the same API key, the
 * same dashboard session, store credentials still sealed under the same key (a sync with them
 * works), the same media files. The edits running during the backup show that it is one snapshot:
 * every edit writes the field and its history entry together, and the restored copy has as many
 * history entries as the value it holds says. A restore into anything not empty is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, TEST_SECRET_KEY, type Harness } from '../support/harness.js';
import { distinctColour, image, upload } from '../support/media.js';

let dir: string;
let emu: RunningEmulators;
const databases: TestDatabase[] = [];
const harnesses: Harness[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-backup-test-'));
  emu = await startEmulators();
});
afterAll(async () => {
  for (const h of harnesses) await h.close();
  for (const database of databases) await database.drop();
  await emu?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An empty database (a file on SQLite: a backup reads a file) and an empty blob folder. */
async function emptyInstance(name: string) {
  const database = await createTestDatabase({ file: path.join(dir, `${name}.db`) });
  databases.push(database);
  const blobs = path.join(dir, `${name}-blobs`);
  const env = {
    DATABASE_URL: database.url,
    BLOB_STORE_URL: `file:${blobs}`,
    APPMETA_SECRET_KEY: TEST_SECRET_KEY,
  };
  return { database, blobs, env };
}

const started = async (instance: Awaited<ReturnType<typeof emptyInstance>>) => {
  const h = await startHarness({
    database: instance.database,
    env: { ...emu.env, BLOB_STORE_URL: instance.env.BLOB_STORE_URL },
  });
  harnesses.push(h);
  return h;
};

describe('appmeta backup and restore', () => {
  it('round-trips a running instance: data, keys, sessions, sealed credentials and media files', async () => {
    const source = await emptyInstance('source');
    const a = await started(source);
    const org = await a.given.organization({ plan: 'pro' });
    const admin = org.admin;
    const session = await a.given.session(admin);
    for (const store of ['appstore', 'playstore'] as const) {
      const res = await admin.api.request(
        'PUT',
        `/api/v1/organization/credentials/${store}`,
        emu.credentials[store],
      );
      expect(res.status).toBe(200);
    }
    const project = (await a.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE }))
      .id;
    expect((await admin.api.post(`/api/v1/projects/${project}/sync`, {})).status).toBe(200);
    const shot = await image({ width: 1290, height: 2796, colour: distinctColour() });
    const uploaded = await upload(
      a,
      admin.apiKey,
      `/api/v1/projects/${project}/media/appstore/en-US/APP_IPHONE_67`,
      shot,
    );
    expect(uploaded.status).toBe(201);
    const hook = await admin.api.post('/api/v1/organization/webhooks', {
      url: 'https://hooks.example.com/appmeta',
    });
    expect(hook.status).toBe(201);

    // Edits go on while the backup runs: each sets the field to the number of edits so far.
    let edits = 0;
    let editing = true;
    const editor = (async () => {
      while (editing) {
        const res = await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
          promotionalText: `edit ${edits + 1}`,
        });
        expect(res.status).toBe(200);
        edits += 1;
      }
    })();
    const archive = path.join(dir, 'backup.tar.gz');
    const backup = await runCli(['--json', 'backup', '--out', archive], source.env);
    editing = false;
    await editor;
    expect(backup.stderr).toContain('media files: 2');
    expect(backup.code, backup.stderr).toBe(0);
    const summary = JSON.parse(backup.stdout);
    expect(summary).toMatchObject({ file: archive, dialect: testDialect(), blobs: 2 });
    expect(fs.statSync(archive).size).toBe(summary.bytes);
    expect(fs.existsSync(`${archive}.part`)).toBe(false);

    const target = await emptyInstance('target');
    const restored = await runCli(['--json', 'restore', archive], target.env);
    expect(restored.code, restored.stderr).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ dialect: testDialect(), blobs: 2 });

    const b = await started(target);
    // Jobs not yet run come back with the data that needs them (pg-boss's table on PostgreSQL).
    expect((await b.services.queue.depth())['webhook.deliver']).toBeGreaterThan(0);
    const asAdmin = b.client(admin.apiKey);
    const projects = await asAdmin.get('/api/v1/projects');
    expect(projects.status).toBe(200);
    expect(projects.body.data.projects.map((p: { id: string }) => p.id)).toEqual([project]);

    // One snapshot: the value and the history entries written with it agree.
    const listing = await asAdmin.get(`/api/v1/projects/${project}/listings/appstore/en-US`);
    const value = listing.body.data.listing.fields.promotionalText.value as string | null;
    const count = value === null ? 0 : Number(/^edit (\d+)$/.exec(value)![1]);
    const editsInHistory: unknown[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await asAdmin.get(
        `/api/v1/projects/${project}/listings/appstore/en-US/history?limit=100&offset=${offset}`,
      );
      expect(page.status).toBe(200);
      const entries = page.body.data.entries as { field: string; new: string | null }[];
      editsInHistory.push(
        ...entries.filter((entry) => entry.field === 'promotionalText' && /^edit \d+$/.test(entry.new ?? '')),
      );
      if (entries.length < 100) break;
    }
    expect(editsInHistory).toHaveLength(count);
    expect(count).toBeLessThanOrEqual(edits);
    expect(edits).toBeGreaterThan(0);

    // The dashboard session signs in on the restored instance.
    const me = await b.app.inject({
      method: 'GET',
      url: '/api/dashboard/session',
      headers: { cookie: `appmeta_session=${session.token}` },
    });
    expect(me.statusCode).toBe(200);

    // The credentials are opened by the same key: a sync reads both stores with them.
    const sync = await asAdmin.post(`/api/v1/projects/${project}/sync`, {});
    expect(sync.status).toBe(200);
    const webhooks = await asAdmin.get('/api/v1/organization/webhooks');
    expect(webhooks.body.data.webhooks.map((w: { id: string }) => w.id)).toEqual([hook.body.data.webhook.id]);

    const file = await b.app.inject({
      method: 'GET',
      url: uploaded.body.data.url as string,
      headers: { authorization: `Bearer ${admin.apiKey}` },
    });
    expect(file.statusCode).toBe(200);
    expect(file.rawPayload.equals(shot)).toBe(true);

    // Nothing is restored over what is there: the database now, then the blob store.
    const again = await runCli(['restore', archive], target.env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/not empty|already has tables/);
    const fresh = await emptyInstance('fresh');
    const intoUsedBlobs = await runCli(['restore', archive], {
      ...fresh.env,
      BLOB_STORE_URL: target.env.BLOB_STORE_URL,
    });
    expect(intoUsedBlobs.code).toBe(1);
    expect(intoUsedBlobs.stderr).toContain('blob store');
    expect(intoUsedBlobs.stderr).toContain('not empty');
  });

  it('refuses what is not a backup, naming why', async () => {
    const target = await emptyInstance('refuse');
    const notArchive = path.join(dir, 'not-a-backup.tar.gz');
    fs.writeFileSync(notArchive, 'hello');
    const result = await runCli(['restore', notArchive], target.env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('not a readable backup archive');
    const missing = await runCli(['restore', path.join(dir, 'nothing.tar.gz')], target.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no backup at');
  });
});
