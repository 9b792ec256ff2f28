import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from './support/emulators.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from './support/harness.js';

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
beforeEach(() => emu.faults.clear());

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

    const res = await admin.api.post(`/api/v1/projects/${project}/push`, {});
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      pushedLocales: ['en-US', 'fr-FR'],
      appStore: { pushed: true, locales: 2 },
      playStore: { pushed: true, locales: 2 },
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
