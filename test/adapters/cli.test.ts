import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { BIN, runCli } from '../support/cli.js';
import { appStoreCredentials } from '../support/store-keys.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { createKeyRing } from '../../src/shared/key-ring.js';
import { startHarness, TEST_SECRET_KEY, type Harness } from '../support/harness.js';
import { APP_ID, startEmulators } from '../support/emulators.js';
import { distinctColour, image } from '../support/media.js';

let database: TestDatabase;
let env: Record<string, string>;
let h: Harness;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-cli-'));
  database = await createTestDatabase({ file: path.join(dir, 'cli.db') });
  env = { DATABASE_URL: database.url, APPMETA_SECRET_KEY: TEST_SECRET_KEY };
  const migrated = await runCli(['migrate', '--json'], env);
  expect(migrated.code).toBe(0);
  expect(JSON.parse(migrated.stdout)).toEqual({
    applied: [
      '2026_11_22_0001_create_core_tables',
      '2026_11_22_0002_create_listings',
      '2026_11_22_0003_create_store_credentials',
      '2026_11_22_0004_create_operations',
      '2026_11_23_0005_record_operators',
      '2026_11_23_0006_create_sessions',
      '2026_11_23_0007_create_idempotency_keys',
      '2026_11_23_0008_create_events_and_jobs',
      '2026_11_23_0009_create_media',
      '2026_11_24_0010_store_media',
      '2026_11_24_0011_create_releases',
      '2026_11_24_0012_create_translations',
      '2026_11_27_0013_index_linked_projects',
      '2026_11_27_0014_idempotency_per_caller',
      '2026_11_27_0015_operation_items',
      '2026_11_28_0016_review_loop',
      '2026_11_28_0017_scoped_access',
      '2026_11_28_0018_credentials_last_verified',
      '2026_11_28_0019_products',
      '2026_11_28_0020_product_links',
      '2026_11_28_0021_marketing_items',
      '2026_11_28_0022_app_details',
      '2026_11_28_0023_schedules',
      '2026_11_28_0024_queue_indexes',
    ],
  });
  h = await startHarness({ database });
  // The commands keep media files where the harness's service does.
  const blobs = h.config.blobStore;
  if (blobs.kind === 'file') env.BLOB_STORE_URL = `file:${blobs.path}`;
});
afterAll(async () => {
  await h?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('appmeta CLI', () => {
  it('migrate is idempotent', async () => {
    const again = await runCli(['migrate', '--json'], env);
    expect(JSON.parse(again.stdout)).toEqual({ applied: [] });
    const human = await runCli(['migrate'], env);
    expect(human.stdout.trim()).toBe('No pending migrations.');
  });

  it('org create --json prints exactly one object with organization, member and a working apiKey', async () => {
    const res = await runCli(
      ['org', 'create', '--name', 'Acme', '--admin-email', 'Ops@Acme.io', '--plan', 'pro', '--json'],
      env,
    );
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(out).toEqual({
      organization: expect.objectContaining({
        id: expect.stringMatching(/^org_/),
        name: 'Acme',
        plan: 'pro',
        memberCount: 1,
      }),
      member: expect.objectContaining({
        id: expect.stringMatching(/^mem_/),
        email: 'ops@acme.io',
        role: 'admin',
      }),
      apiKey: expect.stringMatching(/^amk_/),
    });
    const me = await h.client(out.apiKey).get('/api/v1/organization');
    expect(me.body.data.id).toBe(out.organization.id);
  });

  it('org set-plan changes the plan, effective on the next request', async () => {
    const created = JSON.parse(
      (await runCli(['org', 'create', '--name', 'Plan', '--admin-email', 'p@example.com', '--json'], env))
        .stdout,
    );
    const before = await h.client(created.apiKey).get('/api/v1/organization');
    expect(before.headers['x-ratelimit-limit']).toBe('100');
    const res = await runCli(
      ['org', 'set-plan', '--org', created.organization.id, '--plan', 'enterprise', '--json'],
      env,
    );
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).organization.plan).toBe('enterprise');
    const after = await h.client(created.apiKey).get('/api/v1/organization');
    expect(after.body.data.plan).toBe('enterprise');
    expect(after.headers['x-ratelimit-limit']).toBe('10000');
  });

  it('key create --json issues a working key for a member', async () => {
    const created = JSON.parse(
      (await runCli(['org', 'create', '--name', 'Keys', '--admin-email', 'k@example.com', '--json'], env))
        .stdout,
    );
    const res = await runCli(
      ['key', 'create', '--member', created.member.id, '--name', 'deploy', '--json'],
      env,
    );
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out.key).toMatchObject({ name: 'deploy', memberId: created.member.id });
    expect((await h.client(out.apiKey).get('/api/v1/projects')).status).toBe(200);
  });

  it('run outside the service’s folder, says which database it looked for instead of making an empty one', async () => {
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-elsewhere-'));
    try {
      const res = await runCli(['org', 'list'], {}, elsewhere);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(path.join(fs.realpathSync(elsewhere), 'data', 'appmeta.db'));
      expect(res.stderr).toContain('relative to the folder you run appmeta in');
      const json = await runCli(['media', 'list', '--project', 'proj_x', '--json'], {}, elsewhere);
      expect(JSON.parse(json.stdout).error.code).toBe('INVALID_CONFIGURATION');
      // Nothing was made beside the user's files: no database, no secret key.
      expect(fs.readdirSync(elsewhere)).toEqual([]);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('org list and member list find the member a lost key belongs to; key create --org --email lets it back in', async () => {
    const created = JSON.parse(
      (
        await runCli(
          ['org', 'create', '--name', 'Lost Keys', '--admin-email', 'lost@example.com', '--json'],
          env,
        )
      ).stdout,
    );
    const orgId: string = created.organization.id;
    const listed = JSON.parse((await runCli(['org', 'list', '--json'], env)).stdout);
    expect(listed.organizations).toContainEqual({
      id: orgId,
      name: 'Lost Keys',
      plan: 'free',
      memberCount: 1,
      createdAt: created.organization.createdAt,
    });
    const human = await runCli(['org', 'list'], env);
    expect(human.stdout).toMatch(new RegExp(`${orgId}\\s+free\\s+1 member\\s+Lost Keys`));

    const members = JSON.parse((await runCli(['member', 'list', '--org', orgId, '--json'], env)).stdout);
    expect(members.members).toEqual([expect.objectContaining({ id: created.member.id, role: 'admin' })]);

    const issued = await runCli(
      ['key', 'create', '--org', orgId, '--email', 'Lost@Example.com', '--json'],
      env,
    );
    expect(issued.code).toBe(0);
    const key = JSON.parse(issued.stdout);
    expect(key.key).toMatchObject({ memberId: created.member.id, name: 'CLI key' });
    const audit = await h.client(key.apiKey).get('/api/v1/organization/audit-log');
    expect(audit.status).toBe(200);
    expect(audit.body.data.entries[0]).toMatchObject({
      action: 'apiKeys.issue',
      actor: { memberId: null, keyId: null, operator: `cli:${os.userInfo().username}` },
    });

    const nobody = await runCli(['key', 'create', '--org', orgId, '--email', 'nobody@example.com'], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain(`No member with the e-mail nobody@example.com in organization ${orgId}`);
    const neither = await runCli(['key', 'create', '--email', 'lost@example.com'], env);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain('--member MEMBER_ID, or --org ORG_ID with --email E');
    const noOrg = await runCli(['member', 'list', '--org', 'org_nope'], env);
    expect(noOrg.stderr).toContain('Organization not found: check --org');
  });

  it('login-link prints a one-time dashboard link for a member, found by e-mail', async () => {
    const created = JSON.parse(
      (await runCli(['org', 'create', '--name', 'Links', '--admin-email', 'link@example.com', '--json'], env))
        .stdout,
    );
    const printed = await runCli(['login-link', '--email', 'link@example.com'], env);
    expect(printed.code).toBe(0);
    const url = /http\S+\/sign-in\/asl_\S+/.exec(printed.stdout)![0];
    expect(printed.stdout).toContain(`Sign-in link for member ${created.member.id}`);
    const redeemed = await h.browser().post(`/api/dashboard/sign-in-links/${url.split('/').pop()}/redeem`);
    expect(redeemed.status).toBe(201);
    const audit = await h.client(created.apiKey).get('/api/v1/organization/audit-log');
    expect(audit.body.data.entries.map((e: { action: string }) => e.action)).toContain(
      'dashboard.signInLinks.create',
    );

    const nobody = await runCli(['login-link', '--email', 'nobody@example.com'], env);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('No member with the e-mail nobody@example.com');
  });

  it('org create refuses a name that exists, unless --allow-duplicate-name says so', async () => {
    const first = JSON.parse(
      (await runCli(['org', 'create', '--name', 'Twin', '--admin-email', 'a@twin.example', '--json'], env))
        .stdout,
    );
    const twin = await runCli(
      ['org', 'create', '--name', 'Twin', '--admin-email', 'b@twin.example', '--json'],
      env,
    );
    expect(twin.code).toBe(1);
    expect(JSON.parse(twin.stdout).error).toEqual({
      code: 'CONFLICT',
      message: expect.stringContaining(
        `An organization named "Twin" exists already (${first.organization.id})`,
      ),
    });
    expect(JSON.parse(twin.stdout).error.message).toMatch(/\(--allow-duplicate-name\)$/);
    const allowed = await runCli(
      [
        'org',
        'create',
        '--name',
        'Twin',
        '--admin-email',
        'b@twin.example',
        '--allow-duplicate-name',
        '--json',
      ],
      env,
    );
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.stdout).organization.id).not.toBe(first.organization.id);
  });

  it("names the command's own flags in errors", async () => {
    const email = await runCli(['org', 'create', '--name', 'Flags', '--admin-email', 'not-an-address'], env);
    expect(email.code).toBe(1);
    expect(email.stderr).toBe('appmeta: --admin-email: must be an e-mail address\n');
    const plan = await runCli(['org', 'set-plan', '--org', 'org_nope', '--plan', 'pro'], env);
    expect(plan.stderr).toBe('appmeta: Organization not found: check --org\n');
  });

  it('reports bad input with a non-zero exit and, with --json, one error object', async () => {
    const badPlan = await runCli(
      ['org', 'create', '--name', 'X', '--admin-email', 'x@example.com', '--plan', 'gold', '--json'],
      env,
    );
    expect(badPlan.code).toBe(1);
    expect(JSON.parse(badPlan.stdout)).toEqual({
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('plan') },
    });
    const unknownMember = await runCli(['key', 'create', '--member', 'mem_nobody'], env);
    expect(unknownMember.code).toBe(1);
    expect(unknownMember.stderr).toContain('Member not found');
    const missing = await runCli(['org', 'create', '--name', 'X'], env);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('--admin-email');
  });

  it('media upload, list, export and import work with files and a fastlane tree', async () => {
    const org = await h.given.organization();
    const project = (
      await h.given.project(org.admin, { appStoreAppId: '1', playStorePackageName: 'com.example.media' })
    ).id;
    const files = fs.mkdtempSync(path.join(os.tmpdir(), 'media-in-'));
    onTestFinished(() => fs.rmSync(files, { recursive: true, force: true }));
    const shots = [];
    for (const name of ['1-home.png', '2-search.png']) {
      fs.writeFileSync(
        path.join(files, name),
        await image({ width: 1080, height: 1920, colour: distinctColour() }),
      );
      shots.push(path.join(files, name));
    }
    fs.writeFileSync(
      path.join(files, 'iphone.png'),
      await image({ width: 1290, height: 2796, colour: distinctColour() }),
    );
    const uploadArgs = ['media', 'upload', '--project', project, '--store', 'playstore', '--locale', 'en-US'];
    const uploaded = await runCli([...uploadArgs, '--slot', 'phoneScreenshots', ...shots, '--json'], env);
    expect(uploaded.code).toBe(0);
    expect(
      JSON.parse(uploaded.stdout).uploaded.map((u: { item: { fileName: string } }) => u.item.fileName),
    ).toEqual(['1-home.png', '2-search.png']);
    const apple = await runCli(
      [
        'media',
        'upload',
        '--project',
        project,
        '--store',
        'appstore',
        '--locale',
        'en-US',
        '--slot',
        'APP_IPHONE_67',
        path.join(files, 'iphone.png'),
      ],
      env,
    );
    expect(apple.code).toBe(0);
    expect(apple.stdout).toContain('→ appstore/en-US/APP_IPHONE_67 #1 (1290×2796');
    const refused = await runCli([...uploadArgs, '--slot', 'icon', shots[0]!], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('512×512');

    const listed = await runCli(['media', 'list', '--project', project, '--store', 'playstore'], env);
    expect(listed.stdout).toContain('playstore/en-US/phoneScreenshots  2/8  modified');

    const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'media-out-'));
    onTestFinished(() => fs.rmSync(tree, { recursive: true, force: true }));
    const exported = await runCli(['media', 'export', '--project', project, '--dir', tree, '--json'], env);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout).files.sort()).toEqual([
      'fastlane/metadata/android/en-US/images/phoneScreenshots/01.png',
      'fastlane/metadata/android/en-US/images/phoneScreenshots/02.png',
      'fastlane/screenshots/en-US/APP_IPHONE_67_01.png',
    ]);
    expect(
      fs.readFileSync(path.join(tree, 'fastlane/metadata/android/en-US/images/phoneScreenshots/01.png')),
    ).toEqual(fs.readFileSync(shots[0]!));

    const other = (
      await h.given.project(org.admin, { appStoreAppId: '2', playStorePackageName: 'com.example.other' })
    ).id;
    const imported = await runCli(['media', 'import', '--project', other, '--dir', tree, '--json'], env);
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout).imported).toEqual([
      { store: 'playstore', locale: 'en-US', slotType: 'phoneScreenshots', items: 2 },
      { store: 'appstore', locale: 'en-US', slotType: 'APP_IPHONE_67', items: 1 },
    ]);
    const again = await runCli(['media', 'import', '--project', other, '--dir', tree], env);
    expect(again.stdout).toContain('Nothing changed');
  });

  it('releases create-version, list and notes speak to the App Store as the REST routes do', async () => {
    const emu = await startEmulators();
    onTestFinished(() => emu.close());
    const org = await h.given.organization();
    const project = (await h.given.project(org.admin, { appStoreAppId: APP_ID })).id;
    await org.admin.api.request('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore);
    const withStores = { ...env, ...emu.env };
    const before = await runCli(['releases', 'list', '--project', project], withStores);
    expect(before.stdout).toContain('App Store: not synced');
    // 1.1 is still being prepared: App Store Connect refuses a new version, and the CLI says why.
    const refused = await runCli(['releases', 'create-version', '--project', project, '2.0'], withStores);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/cannot create a new version of the App in the current state/);
    emu.appStore.versions.get('ver-2')!.appVersionState = 'READY_FOR_DISTRIBUTION';
    const created = await runCli(
      ['releases', 'create-version', '--project', project, '2.0', '--json'],
      withStores,
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).version).toMatchObject({ versionString: '2.0', editable: true });
    const listed = await runCli(['releases', 'list', '--project', project], withStores);
    expect(listed.stdout.split('\n').slice(0, 3)).toEqual([
      'App Store 2.0  PREPARE_FOR_SUBMISSION  editable',
      'App Store 1.1  READY_FOR_DISTRIBUTION',
      'App Store 1.0  READY_FOR_DISTRIBUTION  first version',
    ]);
    const notes = await runCli(
      ['releases', 'notes', '--project', project, '--store', 'appstore'],
      withStores,
    );
    expect(notes.stdout.trim()).toBe('App Store 2.0 (PREPARE_FOR_SUBMISSION)');
  });

  it('products list shows what the last sync read of both stores’ purchases', async () => {
    const emu = await startEmulators();
    onTestFinished(() => emu.close());
    const org = await h.given.organization();
    const project = (await h.given.project(org.admin, { appStoreAppId: APP_ID })).id;
    const empty = await runCli(['products', 'list', '--project', project], env);
    expect(empty.stdout.trim()).toBe('No products: sync the project first (or the apps have none)');
    emu.appStore.purchases.load(APP_ID, [
      {
        id: 'iap-1',
        productId: 'com.example.coins',
        name: 'Coins',
        localizations: { 'en-US': { name: 'Coins' } },
      },
    ]);
    // The same database, served by an instance that reaches the emulators.
    const served = await startHarness({ database, env: emu.env });
    onTestFinished(() => served.close());
    const api = served.client(org.admin.apiKey);
    await api.request('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore);
    expect((await api.post(`/api/v1/projects/${project}/sync`, { include: ['products'] })).status).toBe(200);
    const edited = await api.patch(`/api/v1/projects/${project}/products/appstore/com.example.coins/de-DE`, {
      name: 'Münzen',
    });
    expect(edited.status).toBe(200);
    const listed = await runCli(['products', 'list', '--project', project], env);
    expect(listed.stdout.trim()).toBe(
      'appstore  inAppPurchase  com.example.coins  APPROVED  locales: de-DE,en-US  pending: 1',
    );
  });

  it('product-pages list and app-events list show what the last sync read', async () => {
    const emu = await startEmulators();
    onTestFinished(() => emu.close());
    const org = await h.given.organization();
    const project = (await h.given.project(org.admin, { appStoreAppId: APP_ID })).id;
    const empty = await runCli(['product-pages', 'list', '--project', project], env);
    expect(empty.stdout.trim()).toBe('No custom product pages: sync the project first (or the app has none)');
    emu.appStore.marketing.load(
      APP_ID,
      [
        {
          id: 'page-1',
          name: 'Spring',
          versions: [{ state: 'IN_REVIEW', localizations: { 'en-US': 'Spring showers' } }],
        },
      ],
      [{ id: 'event-1', referenceName: 'Storm week', localizations: { 'en-US': { name: 'Storm week' } } }],
    );
    const served = await startHarness({ database, env: emu.env });
    onTestFinished(() => served.close());
    const api = served.client(org.admin.apiKey);
    await api.request('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore);
    expect((await api.post(`/api/v1/projects/${project}/sync`, { include: ['products'] })).status).toBe(200);
    expect(
      (await api.patch(`/api/v1/projects/${project}/app-events/event-1/de-DE`, { name: 'Sturmwoche' }))
        .status,
    ).toBe(200);
    const pages = await runCli(['product-pages', 'list', '--project', project], env);
    expect(pages.stdout.trim()).toBe('page-1  Spring  IN_REVIEW (read-only)  locales: en-US');
    const events = await runCli(['app-events', 'list', '--project', project], env);
    expect(events.stdout.trim()).toBe('event-1  Storm week  DRAFT  locales: de-DE,en-US  pending: 1');
  });

  it('details get shows a store’s details with their states, the demo password only as set', async () => {
    const org = await h.given.organization();
    const project = (await h.given.project(org.admin, { appStoreAppId: APP_ID })).id;
    const res = await org.admin.api.patch(`/api/v1/projects/${project}/details/appstore`, {
      copyright: '2026 Example Inc.',
      review: { demoAccountPassword: 'cli-secret-123' },
    });
    expect(res.status).toBe(200);
    const shown = await runCli(['details', 'get', '--project', project, '--store', 'appstore'], env);
    expect(shown.stdout).toContain('copyright  2026 Example Inc.  modified');
    expect(shown.stdout).toContain('review.demoAccountPassword  (set)  modified');
    expect(shown.stdout).toContain('primaryCategory  -');
    expect(shown.stdout).not.toContain('cli-secret-123');
  });

  it('schedules create, list and cancel, in the time zone asked for', async () => {
    const org = await h.given.organization();
    const project = (await h.given.project(org.admin, { appStoreAppId: APP_ID })).id;
    await org.admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Soon',
    });
    const hash = (await org.admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.hash;
    const created = await runCli(
      [
        'schedules',
        'create',
        '--project',
        project,
        '--hash',
        hash,
        '--at',
        '2099-07-01T09:00',
        '--time-zone',
        'Asia/Tokyo',
        '--json',
      ],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const schedule = JSON.parse(created.stdout).schedule;
    expect(schedule).toMatchObject({
      at: '2099-07-01T00:00:00.000Z',
      atLocal: '2099-07-01T09:00:00+09:00',
      status: 'scheduled',
    });
    // Shown in another viewer's zone: the same instant on their wall clock.
    const listed = await runCli(
      ['schedules', 'list', '--project', project, '--time-zone', 'America/Los_Angeles'],
      env,
    );
    expect(listed.stdout.trim()).toBe(`${schedule.id}  2099-06-30T17:00:00-07:00  scheduled  push 1 text`);
    const refused = await runCli(
      ['schedules', 'create', '--project', project, '--hash', hash, '--at', 'soon'],
      env,
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('at');
    const cancelled = await runCli(['schedules', 'cancel', '--project', project, schedule.id], env);
    expect(cancelled.stdout.trim()).toBe(`${schedule.id} cancelled`);
  });

  it('listings import and export work against a directory in the fastlane layout', async () => {
    const org = await h.given.organization();
    const project = (
      await h.given.project(org.admin, { appStoreAppId: '1', playStorePackageName: 'com.example.cli' })
    ).id;
    const source = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlane-in-'));
    onTestFinished(() => fs.rmSync(source, { recursive: true, force: true }));
    const write = (file: string, content: string) => {
      fs.mkdirSync(path.dirname(path.join(source, file)), { recursive: true });
      fs.writeFileSync(path.join(source, file), content);
    };
    write('fastlane/metadata/en-US/name.txt', 'CLI App\n');
    write('fastlane/metadata/en-US/keywords.txt', 'cli,tool\n');
    write('fastlane/metadata/android/en-US/title.txt', 'CLI App');
    const imported = await runCli(
      ['listings', 'import', '--project', project, '--dir', source, '--json'],
      env,
    );
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout).imported).toHaveLength(2);
    const listing = await org.admin.api.get(`/api/v1/projects/${project}/listings/appstore/en-US`);
    expect(listing.body.data.listing.fields.keywords.value).toBe('cli,tool');
    const history = await org.admin.api.get(`/api/v1/projects/${project}/listings/appstore/en-US/history`);
    // The operator is the actor: `cli:<os user>`, in the history and in the audit log.
    const operator = `cli:${os.userInfo().username}`;
    expect(history.body.data.entries[0]).toMatchObject({
      source: 'import',
      actor: { memberId: null, operator },
    });
    const audit = await org.admin.api.get('/api/v1/organization/audit-log');
    expect(audit.body.data.entries[0]).toMatchObject({
      action: 'listings.import',
      actor: { memberId: null, keyId: null, operator },
      target: { type: 'project', id: project },
      details: { tree: 'fastlane/metadata', listings: ['appstore/en-US', 'playstore/en-US'] },
    });

    const target = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlane-out-'));
    onTestFinished(() => fs.rmSync(target, { recursive: true, force: true }));
    const exported = await runCli(
      ['listings', 'export', '--project', project, '--dir', target, '--json'],
      env,
    );
    expect(exported.code).toBe(0);
    // Values are written as they are: no line break added (the import dropped the file's own).
    expect(fs.readFileSync(path.join(target, 'fastlane/metadata/en-US/name.txt'), 'utf8')).toBe('CLI App');
    expect(fs.readFileSync(path.join(target, 'fastlane/metadata/android/en-US/title.txt'), 'utf8')).toBe(
      'CLI App',
    );

    write('fastlane/metadata/en-US/subtitle.txt', 'x'.repeat(31));
    const invalid = await runCli(['listings', 'import', '--project', project, '--dir', source], env);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toContain('fastlane/metadata/en-US/subtitle.txt must be at most 30 characters');

    // A second tree (a monorepo's ios/ app): the CLI lists both and takes --path.
    fs.rmSync(path.join(source, 'fastlane/metadata/en-US/subtitle.txt'));
    write('ios/fastlane/metadata/en-US/name.txt', 'iOS App\n');
    const several = await runCli(['listings', 'import', '--project', project, '--dir', source], env);
    expect(several.code).toBe(1);
    expect(several.stderr).toContain(
      'Found 2 fastlane metadata trees: fastlane/metadata, ios/fastlane/metadata. Name the one to import (--path).',
    );
    const chosen = await runCli(
      ['listings', 'import', '--project', project, '--dir', source, '--path', 'ios'],
      env,
    );
    expect(chosen.code).toBe(0);
    expect(chosen.stdout).toContain(`Read ${path.join(source, 'ios/fastlane/metadata')}`);
    expect(chosen.stdout).toContain('Imported appstore/en-US: 1 field');
  });

  it('secrets rotate re-encrypts stored credentials and webhook secrets under a new key', async () => {
    const org = await h.given.organization();
    const apple = appStoreCredentials();
    await org.admin.api.request('PUT', '/api/v1/organization/credentials/appstore', {
      issuerId: apple.issuerId,
      keyId: apple.keyId,
      privateKey: apple.privateKey,
    });
    const hook = await org.admin.api.post('/api/v1/organization/webhooks', {
      url: 'https://hooks.example.com/x',
    });
    const { id: webhookId } = hook.body.data.webhook;
    const newKey = randomBytes(32).toString('base64');
    const withoutOld = await runCli(['secrets', 'rotate', '--json'], { ...env, APPMETA_SECRET_KEY: newKey });
    expect(withoutOld.code).toBe(1);
    expect(JSON.parse(withoutOld.stdout).error.message).toContain('APPMETA_SECRET_KEY_PREVIOUS');
    const rotated = await runCli(['secrets', 'rotate', '--json'], {
      ...env,
      APPMETA_SECRET_KEY: newKey,
      APPMETA_SECRET_KEY_PREVIOUS: TEST_SECRET_KEY,
    });
    expect(rotated.code).toBe(0);
    expect(JSON.parse(rotated.stdout).rotated).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(rotated.stdout).webhooks.rotated).toBeGreaterThanOrEqual(1);
    const sealed = await h.db.kysely
      .selectFrom('webhooks')
      .select('secret')
      .where('id', '=', webhookId)
      .executeTakeFirstOrThrow();
    const newRing = createKeyRing(Buffer.from(newKey, 'base64'));
    expect(newRing.open(JSON.parse(sealed.secret), `webhooks:${org.id}:${webhookId}`)).toBe(
      hook.body.data.secret,
    );
    // The old key alone no longer opens them; the new one does.
    const verifyOld = await org.admin.api.post('/api/v1/organization/credentials/appstore/verify');
    expect(verifyOld.body.error.message).toContain('cannot be decrypted');
    const rotatedHarness = await startHarness({ database, env: { APPMETA_SECRET_KEY: newKey } });
    try {
      const listed = await rotatedHarness.client(org.admin.apiKey).get('/api/v1/organization/credentials');
      expect(listed.body.data.credentials[0]).toMatchObject({ configured: true, keyId: apple.keyId });
      const verify = await rotatedHarness
        .client(org.admin.apiKey)
        .post('/api/v1/organization/credentials/appstore/verify');
      expect(verify.status).toBe(200); // decrypted; the store itself is not reachable here
    } finally {
      await rotatedHarness.close();
    }
  });

  it('events tail prints the events as they happen and resumes after --last-event-id', async () => {
    const org = await h.given.organization();
    const project = await h.given.project(org.admin, { appStoreAppId: '1234567890' });
    const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const tail = (args: string[]) => {
      const child = spawn(BIN, ['events', 'tail', '--url', url, '--json', ...args], {
        env: { PATH: process.env.PATH ?? '', APPMETA_KEY: org.admin.apiKey },
      });
      onTestFinished(() => {
        child.kill('SIGKILL');
      });
      const lines: any[] = [];
      let buffer = '';
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        const parts = buffer.split('\n');
        buffer = parts.pop()!;
        lines.push(...parts.map((line) => JSON.parse(line)));
      });
      return {
        lines: async (count: number) => {
          const deadline = Date.now() + 15_000;
          while (lines.length < count) {
            if (Date.now() > deadline)
              throw new Error(`tail printed ${lines.length} of ${count} events: ${stderr}`);
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          return lines.slice(0, count);
        },
      };
    };
    const edit = async (name: string) =>
      expect(
        (await org.admin.api.patch(`/api/v1/projects/${project.id}/listings/appstore/en-US`, { name }))
          .status,
      ).toBe(200);
    await edit('First');
    await edit('Second');
    // From the organization's first event: what happened before, then what happens while it runs.
    const live = tail(['--last-event-id', '0']);
    const [first, second] = await live.lines(2);
    expect(first).toMatchObject({
      type: 'listing.updated',
      data: { projectId: project.id, fields: ['name'] },
    });
    expect(second.seq).toBe(first.seq + 1);
    await edit('Third');
    const third = (await live.lines(3))[2];
    expect(third).toMatchObject({ seq: second.seq + 1, type: 'listing.updated' });
    const resumed = await tail(['--last-event-id', String(first.seq)]).lines(2);
    expect(resumed).toEqual([second, third]);
  });

  it('worker runs the background workers without HTTP, and SIGTERM stops it cleanly', async () => {
    const child = spawn(BIN, ['worker'], { env: { PATH: process.env.PATH ?? '', ...env } });
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('workers started')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`worker exited ${code}: ${stderr}`)));
    });
    expect(stderr).not.toContain('listening');
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('stopped');
  });

  it('emulate serves both store emulators and writes demo credentials', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emulate-'));
    const child = spawn(BIN, ['emulate', '--port', '0', '--credentials-dir', dir, '--json'], {
      env: { PATH: process.env.PATH ?? '' },
    });
    try {
      const out = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text.includes('\n')) resolve(text);
        });
        child.on('exit', (code) => reject(new Error(`emulate exited ${code}`)));
      });
      const { url, credentials } = JSON.parse(out);
      expect(JSON.parse(fs.readFileSync(credentials.appstore, 'utf8'))).toMatchObject({
        keyId: 'DEMOKEY123',
      });
      expect((fs.statSync(credentials.playstore).mode & 0o777).toString(8)).toBe('600');
      const res = await fetch(`${url}/v1/apps`);
      expect(res.status).toBe(401);
      expect(((await res.json()) as any).errors[0].code).toBe('NOT_AUTHORIZED');
    } finally {
      child.kill('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops on bad configuration with one line naming the variable (exit 2)', async () => {
    const res = await runCli(['migrate'], { DATABASE_URL: 'mysql://nope', PORT: 'eighty' });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('DATABASE_URL');
    expect(res.stderr).toContain('PORT');
  });
});
