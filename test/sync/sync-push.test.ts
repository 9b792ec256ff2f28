import { createPrivateKey } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';

let emu: RunningEmulators;
let h: Harness;
let org: TestOrganization;
let admin: Actor;

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ env: emu.env });
  org = await h.given.organization();
  admin = org.admin;
  expect(
    (await admin.api.request('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore))
      .status,
  ).toBe(200);
  expect(
    (await admin.api.request('PUT', '/api/v1/organization/credentials/playstore', emu.credentials.playstore))
      .status,
  ).toBe(200);
});
afterAll(async () => {
  await h.close();
  await emu.close();
});
// Every test starts from the seeded store state: none sees what another one pushed.
beforeEach(() => emu.restore());

const newProject = async () =>
  (await h.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })).id;
const listing = async (project: string, store: string, locale: string) =>
  (await admin.api.get(`/api/v1/projects/${project}/listings/${store}/${locale}`)).body.data.listing;

describe('sync from both stores', () => {
  it('pulls the editable App Store version and the Play listings, then reports lastSyncedAt', async () => {
    const project = await newProject();
    const res = await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      syncedLocales: ['de-DE', 'en-US'],
      appStore: { synced: true, locales: 1, conflicts: 0 },
      playStore: { synced: true, locales: 2, conflicts: 0 },
      conflicts: [],
      failures: [],
    });
    const apple = await listing(project, 'appstore', 'en-US');
    expect(apple.fields.subtitle).toEqual({
      value: 'Forecasts that matter',
      base: 'Forecasts that matter',
      state: 'unchanged',
    });
    expect(apple.fields.description.value).toBe('Hourly forecasts.'); // version 1.1, the editable one
    expect((await listing(project, 'playstore', 'de-DE')).fields.title.value).toBe('Wetter Pro');
    const read = await admin.api.get(`/api/v1/projects/${project}`);
    expect(read.body.data.project.metadata).toMatchObject({
      locales: ['de-DE', 'en-US'],
      lastSyncedAt: expect.stringMatching(/Z$/),
    });
    expect(emu.play.openEdits()).toEqual([]); // the read-only edit was deleted
    // The history names the store a sync read the text from; the audit log, who asked for it.
    const history = await admin.api.get(`/api/v1/projects/${project}/listings/appstore/en-US/history`);
    expect(history.body.data.entries[0]).toMatchObject({
      source: 'sync',
      actor: { memberId: admin.id, name: 'App Store' },
    });
    const audit = await admin.api.get(
      `/api/v1/organization/audit-log?action=projects.sync&projectId=${project}`,
    );
    expect(audit.body.data.entries).toHaveLength(1);
    expect(audit.body.data.entries[0]).toMatchObject({
      actor: { memberId: admin.id, name: 'Admin' },
      details: { status: 'succeeded', syncedLocales: ['de-DE', 'en-US'] },
    });
  });
});

describe('push', () => {
  it('writes only changed fields, creates new locales in both stores, and leaves them in sync', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Now with radar',
      keywords: 'rain,radar,storm',
    });
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/fr-FR`, {
      name: 'Météo Pro',
      description: 'Prévisions.',
    });
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/en-US`, {
      shortDescription: 'Radar and alerts',
    });
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/fr-FR`, {
      title: 'Météo Pro',
      shortDescription: 'Prévisions',
      fullDescription: 'Prévisions.',
    });

    // The confirmation names what will be written, per store and kind.
    const preview = await admin.api.post(`/api/v1/projects/${project}/push`, { dryRun: true });
    expect(preview.body.data.counts).toEqual({
      appstore: { fields: 4, media: 0, releaseNotes: 0, products: 0, removedLocales: 0 },
      playstore: { fields: 4, media: 0, releaseNotes: 0, products: 0, removedLocales: 0 },
    });
    const playDiff = await admin.api.get(`/api/v1/projects/${project}/diff?store=playstore`);
    expect(playDiff.body.data.counts).toEqual({
      playstore: { fields: 4, media: 0, releaseNotes: 0, products: 0, removedLocales: 0 },
    });

    const res = await admin.api.post(`/api/v1/projects/${project}/push`, {});
    expect(res.status).toBe(200);
    const locale = (store: string, name: string, fields: number) => ({
      store,
      locale: name,
      fields,
      mediaSlots: 0,
      mediaItems: 0,
      releaseNotes: 0,
      products: 0,
      failures: 0,
    });
    expect(res.body.data).toEqual({
      pushedLocales: ['en-US', 'fr-FR'],
      appStore: { pushed: true, locales: 2 },
      playStore: { pushed: true, locales: 2 },
      written: [
        locale('appstore', 'en-US', 2),
        locale('appstore', 'fr-FR', 2),
        locale('playstore', 'en-US', 1),
        locale('playstore', 'fr-FR', 3),
      ],
      failures: [],
    });
    const state = emu.appStore.snapshot(APP_ID);
    expect(state['ver-2']!.versions['en-US']).toMatchObject({
      promotionalText: 'Now with radar',
      keywords: 'rain,radar,storm',
      description: 'Hourly forecasts.',
    });
    expect(state['ver-2']!.versions['fr-FR']).toMatchObject({ description: 'Prévisions.' });
    expect(state['info-edit']!.appInfos['fr-FR']).toMatchObject({ name: 'Météo Pro' });
    expect(emu.play.snapshot(PACKAGE)['fr-FR']).toMatchObject({ title: 'Météo Pro' });
    expect(emu.play.snapshot(PACKAGE)['en-US']).toMatchObject({
      shortDescription: 'Radar and alerts',
      title: 'Weather Pro',
    });
    expect(emu.play.openEdits()).toEqual([]);

    const diff = await admin.api.get(`/api/v1/projects/${project}/diff`);
    expect(diff.body.data.inSync).toBe(true);
    const operations = await admin.api.get(`/api/v1/projects/${project}/operations`);
    expect(operations.body.data.operations.map((o: any) => `${o.kind}:${o.status}`)).toEqual([
      'push:succeeded',
      'sync:succeeded',
    ]);
    expect(operations.body.data.operations[0]).toMatchObject({
      actor: { memberId: admin.id },
      stores: ['appstore', 'playstore'],
    });
  });

  it('makes no store call at all when nothing changed', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    const before = { apple: emu.appStore.counters.requests, google: emu.play.counters.requests };
    const res = await admin.api.post(`/api/v1/projects/${project}/push`, {});
    expect(res.body.data).toMatchObject({
      pushedLocales: [],
      appStore: { pushed: true, locales: 0 },
      playStore: { pushed: true, locales: 0 },
    });
    expect({ apple: emu.appStore.counters.requests, google: emu.play.counters.requests }).toEqual(before);
  });
});

describe('store behaviour the connectors must handle', () => {
  it('follows App Store pagination (links.next) across several pages', async () => {
    emu.appStore.load({ pageSize: 2 });
    try {
      const project = await newProject();
      for (const locale of ['de-DE', 'fr-FR', 'it', 'ja', 'es-ES']) {
        await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/${locale}`, {
          name: `App ${locale}`,
          description: 'x',
        });
      }
      expect(
        (await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'appstore' })).body.data.appStore
          .pushed,
      ).toBe(true);
      const other = await newProject();
      const sync = await admin.api.post(`/api/v1/projects/${other}/sync`, { store: 'appstore' });
      expect(sync.body.data.appStore).toMatchObject({ synced: true, locales: 6 });
      expect((await listing(other, 'appstore', 'ja')).fields.name.value).toBe('App ja');
    } finally {
      emu.appStore.load({ pageSize: 200 });
    }
  });

  it('retries 429 (honouring Retry-After) and 5xx, then succeeds', async () => {
    const project = await newProject();
    emu.faults.set([
      { route: 'GET /v1/apps/*/appInfos', status: 429, retryAfter: 1, times: 1 },
      { route: 'GET /androidpublisher/v3/applications/*/edits/*/listings', status: 503, times: 2 },
    ]);
    const started = Date.now();
    const res = await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    expect(res.body.data).toMatchObject({ appStore: { synced: true }, playStore: { synced: true } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(emu.faults.list().map((f) => f.applied)).toEqual([1, 2]);
  });

  it('retries a dropped connection on a read', async () => {
    const project = await newProject();
    emu.faults.set([{ route: 'GET /v1/appInfos/*/appInfoLocalizations', drop: true, times: 1 }]);
    const res = await admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'appstore' });
    expect(res.body.data.appStore).toMatchObject({ synced: true, conflicts: 0 });
    expect(res.body.data.failures).toEqual([]);
    expect(emu.faults.list()[0]!.applied).toBe(1);
  });

  it('isolates a persistent failure to its locale: the others are pushed and it is named in data.failures', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Still works',
    });
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/nl-NL`, {
      name: 'Weer Pro',
      description: 'Weer.',
    });
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/en-US`, { title: 'Weather Pro+' });
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/de-DE`, { title: 'Wetter Pro+' });
    emu.faults.set([
      { route: 'POST /v1/appInfoLocalizations', status: 500 },
      { route: 'PATCH /androidpublisher/v3/applications/*/edits/*/listings/de-DE', status: 500 },
    ]);
    const res = await admin.api.post(`/api/v1/projects/${project}/push`, {});
    expect(res.status).toBe(200);
    expect(res.body.data.pushedLocales).toEqual(['en-US']);
    expect(res.body.data.appStore).toMatchObject({
      pushed: false,
      locales: 1,
      error: { code: 'PARTIAL_FAILURE' },
    });
    expect(res.body.data.failures).toEqual(
      expect.arrayContaining([
        {
          store: 'appstore',
          locale: 'nl-NL',
          field: null,
          error: { code: 'UNEXPECTED_ERROR', message: expect.any(String) },
        },
        {
          store: 'playstore',
          locale: 'de-DE',
          field: null,
          error: { code: 'backendError', message: expect.any(String) },
        },
      ]),
    );
    expect(emu.appStore.snapshot(APP_ID)['ver-2']!.versions['en-US']!.promotionalText).toBe('Still works');
    expect(emu.play.snapshot(PACKAGE)['en-US']!.title).toBe('Weather Pro+');
    expect(emu.play.snapshot(PACKAGE)['de-DE']!.title).toBe('Wetter Pro');
    // The failed ones stay pending; the pushed ones are in sync.
    const diff = (await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(Object.keys(diff.stores.appstore)).toEqual(['nl-NL']);
    expect(Object.keys(diff.stores.playstore)).toEqual(['de-DE']);
    const operations = await admin.api.get(`/api/v1/projects/${project}/operations?limit=1`);
    expect(operations.body.data.operations[0]).toMatchObject({ kind: 'push', status: 'partial' });
    emu.faults.clear();
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/en-US`, { title: 'Weather Pro' });
    await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'playstore' });
  });

  it('leaves no Google edit open when the commit fails', async () => {
    const project = await newProject();
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/it-IT`, {
      title: 'Meteo',
      shortDescription: 'Previsioni',
      fullDescription: 'Previsioni.',
    });
    emu.faults.set([{ route: 'POST /androidpublisher/v3/applications/*/edits/*', status: 500 }]);
    const res = await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'playstore' });
    expect(res.body.data.playStore).toMatchObject({ pushed: false, locales: 0 });
    expect(res.body.data.failures[0]).toMatchObject({ store: 'playstore', locale: 'it-IT' });
    expect(emu.play.openEdits()).toEqual([]);
    expect(emu.play.snapshot(PACKAGE)['it-IT']).toBeUndefined();
  });

  it('reports clearly when no App Store version is editable; promotionalText still goes to the live version', async () => {
    const live = await startEmulators({
      appstore: {
        apps: [
          {
            id: '555',
            bundleId: 'com.example.live',
            name: 'Live',
            appInfos: [
              {
                id: 'info-only-live',
                state: 'READY_FOR_DISTRIBUTION',
                localizations: { 'en-US': { name: 'Live' } },
              },
            ],
            versions: [
              {
                id: 'ver-live',
                versionString: '3.0',
                appVersionState: 'READY_FOR_DISTRIBUTION',
                localizations: { 'en-US': { description: 'Live' } },
              },
            ],
          },
        ],
      },
    });
    const local = await startHarness({ env: live.env });
    try {
      const owner = (await local.given.organization()).admin;
      await owner.api.request('PUT', '/api/v1/organization/credentials/appstore', live.credentials.appstore);
      const project = (await local.given.project(owner, { appStoreAppId: '555' })).id;
      await owner.api.post(`/api/v1/projects/${project}/sync`, {});
      await owner.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
        description: 'New',
        promotionalText: 'Sale',
      });
      const res = await owner.api.post(`/api/v1/projects/${project}/push`, {});
      expect(res.body.data.failures).toEqual([
        {
          store: 'appstore',
          locale: 'en-US',
          field: 'description',
          error: { code: 'NOT_EDITABLE', message: expect.stringContaining('No editable App Store version') },
        },
      ]);
      await owner.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { description: 'Live' });
      const promo = await owner.api.post(`/api/v1/projects/${project}/push`, {});
      expect(promo.body.data.appStore).toEqual({ pushed: true, locales: 1 });
      expect(live.appStore.snapshot('555')['ver-live']!.versions['en-US']!.promotionalText).toBe('Sale');
    } finally {
      await local.close();
      await live.close();
    }
  });

  it('reports a conflict on sync when a field changed in the store and here, keeping the local value', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'playstore' });
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/de-DE`, {
      shortDescription: 'Unsere Vorhersagen',
    });
    // Someone edits the store directly (Play Console).
    emu.play.apps.get(PACKAGE)!.listings.set('de-DE', {
      language: 'de-DE',
      title: 'Wetter Pro',
      shortDescription: 'Console-Text',
      fullDescription: 'Stündlich.',
    });
    const res = await admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'playstore' });
    expect(res.body.data.conflicts).toEqual([
      {
        store: 'playstore',
        locale: 'de-DE',
        field: 'shortDescription',
        localValue: 'Unsere Vorhersagen',
        storeValue: 'Console-Text',
      },
    ]);
    expect(res.body.data.playStore).toMatchObject({ synced: true, conflicts: 1 });
    const field = (await listing(project, 'playstore', 'de-DE')).fields.shortDescription;
    expect(field).toEqual({
      value: 'Unsere Vorhersagen',
      base: 'Vorhersagen',
      state: 'conflict',
      storeValue: 'Console-Text',
    });
    // A push leaves a conflicted field alone and says so.
    const blocked = await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'playstore' });
    expect(blocked.body.data.failures).toEqual([
      {
        store: 'playstore',
        locale: 'de-DE',
        field: 'shortDescription',
        error: { code: 'CONFLICT', message: expect.any(String) },
      },
    ]);
    // Editing the field resolves the conflict: the local value is pushed over the store's.
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/de-DE`, {
      shortDescription: 'Unsere Vorhersagen',
    });
    const pushed = await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'playstore' });
    expect(pushed.body.data.playStore).toEqual({ pushed: true, locales: 1 });
    expect(emu.play.snapshot(PACKAGE)['de-DE']!.shortDescription).toBe('Unsere Vorhersagen');
    emu.play.apps.get(PACKAGE)!.listings.set('de-DE', {
      language: 'de-DE',
      title: 'Wetter Pro',
      shortDescription: 'Vorhersagen',
      fullDescription: 'Stündlich.',
    });
  });

  it('mints a new Google token when the store refuses the cached one', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'playstore' });
    const minted = emu.play.counters.tokenRequests;
    emu.play.tokens.clear(); // every access token is now expired/unknown to Google
    const res = await admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'playstore' });
    expect(res.body.data.playStore.synced).toBe(true);
    expect(emu.play.counters.tokenRequests).toBe(minted + 1);
  });

  it('removes a locale from the store only with prune', async () => {
    const project = await newProject();
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/pt-BR`, {
      title: 'Tempo',
      shortDescription: 'Previsões',
      fullDescription: 'Previsões.',
    });
    await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'playstore' });
    expect(emu.play.snapshot(PACKAGE)['pt-BR']).toBeDefined();
    const removed = await admin.api.delete(`/api/v1/projects/${project}/listings/playstore/pt-BR`);
    expect(removed.body.data.pendingStoreRemoval).toBe(true);
    await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'playstore' });
    expect(emu.play.snapshot(PACKAGE)['pt-BR']).toBeDefined(); // additive by default
    const pruned = await admin.api.post(`/api/v1/projects/${project}/push`, {
      store: 'playstore',
      prune: true,
    });
    expect(pruned.body.data.playStore.pushed).toBe(true);
    expect(emu.play.snapshot(PACKAGE)['pt-BR']).toBeUndefined();
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.removedLocales).toEqual({});
  });
});

describe('the emulators check requests against the official specs', () => {
  it("rejects a request body that Apple's OpenAPI rejects, and an unauthenticated call, in Apple's error shape", async () => {
    const unauthenticated = await fetch(`${emu.url}/v1/apps`);
    expect(unauthenticated.status).toBe(401);
    expect(((await unauthenticated.json()) as any).errors[0].code).toBe('NOT_AUTHORIZED');
    const key = createPrivateKey(emu.credentials.appstore.privateKey);
    const signJwt = (claims: JWTPayload) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', kid: emu.credentials.appstore.keyId, typ: 'JWT' })
        .sign(key);
    const iat = Math.floor(Date.now() / 1000);
    const token = await signJwt({
      iss: emu.credentials.appstore.issuerId,
      iat,
      exp: iat + 600,
      aud: 'appstoreconnect-v1',
    });
    const bad = await fetch(`${emu.url}/v1/appInfoLocalizations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ data: { type: 'appInfoLocalizations', attributes: { locale: 'en-GB' } } }),
    });
    expect(bad.status).toBe(409);
    const body = (await bad.json()) as any;
    expect(body.errors[0]).toMatchObject({ status: '409', code: 'ENTITY_ERROR' });
    expect(body.errors[0].detail).toContain('relationships');
    const tooLong = iat + 3600;
    const longToken = await signJwt({
      iss: emu.credentials.appstore.issuerId,
      iat,
      exp: tooLong,
      aud: 'appstoreconnect-v1',
    });
    expect(
      (await fetch(`${emu.url}/v1/apps`, { headers: { authorization: `Bearer ${longToken}` } })).status,
    ).toBe(401);
  });
});

describe('one operation at a time per project', () => {
  it('never interleaves concurrent syncs and pushes of one project, and records each', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'playstore' });
    await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/en-US`, {
      fullDescription: 'Concurrent.',
    });
    emu.faults.set([{ route: '* /androidpublisher/*', latencyMs: 60 }]);
    const runs = await Promise.all([
      admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'playstore' }),
      admin.api.post(`/api/v1/projects/${project}/push`, { store: 'playstore' }),
      admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'playstore' }),
    ]);
    expect(runs.map((r) => r.status)).toEqual([200, 200, 200]);
    const { operations } = (await admin.api.get(`/api/v1/projects/${project}/operations`)).body.data;
    expect(operations).toHaveLength(4);
    expect(operations.map((o: any) => o.status)).toEqual(Array<string>(4).fill('succeeded'));
    const spans = operations.map((o: any) => [o.startedAt, o.finishedAt]).sort();
    for (let i = 1; i < spans.length; i++) expect(spans[i][0] >= spans[i - 1][1]).toBe(true);
  });
});

describe('approval and push', () => {
  it('never sends the store an edit that raced a push after approval', async () => {
    await admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    try {
      const member = await h.given.member(org, 'member');
      const project = await newProject();
      await admin.api.post(`/api/v1/projects/${project}/sync`, {});
      const edit = (text: string) =>
        member.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { promotionalText: text });
      expect((await edit('Approved text')).status).toBe(200);
      expect((await admin.api.post(`/api/v1/projects/${project}/approvals`)).status).toBe(201);

      // A slow sync holds the project's operation lock; the member's push waits for it, and the
      // member edits the approved field while the push waits.
      emu.faults.set([{ route: 'GET /v1/*', latencyMs: 300 }]);
      const sync = admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'appstore' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const push = member.api.post(`/api/v1/projects/${project}/push`, { store: 'appstore' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect((await edit('Unapproved text')).status).toBe(200);
      expect((await sync).status).toBe(200);
      const pushed = await push;
      emu.faults.clear();

      expect(pushed.status).toBe(403);
      expect(pushed.body.error.code).toBe('APPROVAL_REQUIRED');
      const texts = Object.values(emu.appStore.snapshot(APP_ID)).map(
        (v) => v.versions['en-US']?.promotionalText,
      );
      expect(texts).not.toContain('Unapproved text');
      expect(texts).not.toContain('Approved text');

      // Approved as it now stands, the same push goes through with exactly that text.
      expect((await admin.api.post(`/api/v1/projects/${project}/approvals`)).status).toBe(201);
      const again = await member.api.post(`/api/v1/projects/${project}/push`, { store: 'appstore' });
      expect(again.body.data.appStore).toEqual({ pushed: true, locales: 1 });
      expect(emu.appStore.snapshot(APP_ID)['ver-2']!.versions['en-US']!.promotionalText).toBe(
        'Unapproved text',
      );
    } finally {
      await admin.api.patch('/api/v1/organization', { settings: { requireApproval: false } });
    }
  });
});
