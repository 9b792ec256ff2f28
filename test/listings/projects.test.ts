import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
let org: TestOrganization;
let admin: Actor;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
  admin = org.admin;
});
afterAll(() => h.close());

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('POST /api/v1/projects', () => {
  it('creates a project and answers 201 with projectId and the project', async () => {
    const res = await admin.api.post('/api/v1/projects', {
      name: '  Weather Pro  ',
      appStoreAppId: '1234567890',
      playStorePackageName: 'com.example.weather',
    });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const { projectId, project } = res.body.data;
    expect(projectId).toMatch(/^proj_[0-9a-z]{26}$/);
    expect(project).toEqual({
      id: projectId,
      name: 'Weather Pro',
      appStoreAppId: '1234567890',
      playStorePackageName: 'com.example.weather',
      createdAt: expect.stringMatching(ISO),
      updatedAt: project.createdAt,
    });
  });

  it('sets unset store identifiers to null', async () => {
    const res = await admin.api.post('/api/v1/projects', { name: 'Bare' });
    expect(res.status).toBe(201);
    expect(res.body.data.project.appStoreAppId).toBeNull();
    expect(res.body.data.project.playStorePackageName).toBeNull();
  });

  it('says how long a too-long name is, against the limit the OpenAPI document states', async () => {
    const res = await admin.api.post('/api/v1/projects', { name: '€'.repeat(201) });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      { field: 'name', message: 'must be at most 200 characters', limit: 200, length: 201 },
    ]);
    const document = await admin.api.get('/api/v1/openapi.json');
    const create = document.body.paths['/api/v1/projects'].post;
    expect(create.requestBody.content['application/json'].schema.properties.name.maxLength).toBe(200);
  });

  it.each([
    [{}, 'name', 'is required'],
    [{ name: '   ' }, 'name', 'must not be empty'],
    [{ name: 'x'.repeat(201) }, 'name', 'must be at most 200 characters'],
    [{ name: 42 }, 'name', 'must be string'],
    [
      { name: 'A', appStoreAppId: '12ab' },
      'appStoreAppId',
      'is not in the right form: Numeric App Store app id, like 1234567890',
    ],
    [{ name: 'A', appStoreAppId: 123 }, 'appStoreAppId', 'must be string'],
    [
      { name: 'A', playStorePackageName: 'nodots' },
      'playStorePackageName',
      'is not in the right form: Google Play package name, like com.example.app',
    ],
    [{ name: 'A', playStorePackageName: '1com.example' }, 'playStorePackageName', 'is not in the right form'],
    [{ name: 'A', owner: 'me' }, 'owner', 'is not a known field'],
  ])('answers 400 INVALID_REQUEST naming the field for %j', async (body, field, message) => {
    const res = await admin.api.post('/api/v1/projects', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: { code: 'INVALID_REQUEST' } });
    expect(res.body.error.details).toContainEqual(
      expect.objectContaining({ field, message: expect.stringContaining(message) }),
    );
    expect(res.body.error.message).toContain(field);
  });

  it('counts a name in characters, so 200 emoji are allowed', async () => {
    const res = await admin.api.post('/api/v1/projects', { name: '🚀'.repeat(200) });
    expect(res.status).toBe(201);
  });
});

describe('GET /api/v1/projects', () => {
  let fresh: TestOrganization;
  const ids: string[] = [];

  beforeAll(async () => {
    fresh = await h.given.organization();
    for (let i = 0; i < 5; i++) ids.push((await h.given.project(fresh.admin, { name: `P${i}` })).id);
  });

  it('searches by part of the name, case-insensitively, with the total of the matches', async () => {
    const named = await h.given.organization();
    for (const name of ['Weather Pro', 'Weather Lite', 'Tide 100%', 'Snow_Day'])
      await h.given.project(named.admin, { name });
    const weather = await named.admin.api.get('/api/v1/projects?search=weATHer&limit=1');
    expect(weather.body.data.total).toBe(2);
    // Both may be created within one millisecond: the id then decides the order, so the expected
    // first is read from the full list rather than assumed.
    const both = await named.admin.api.get('/api/v1/projects?search=weather');
    const names = both.body.data.projects.map((p: { name: string }) => p.name);
    expect([...names].sort()).toEqual(['Weather Lite', 'Weather Pro']);
    expect(weather.body.data.projects.map((p: { name: string }) => p.name)).toEqual([names[0]]);
    // % and _ are text, not patterns.
    const percent = await named.admin.api.get(`/api/v1/projects?search=${encodeURIComponent('0%')}`);
    expect(percent.body.data.projects.map((p: { name: string }) => p.name)).toEqual(['Tide 100%']);
    const underscore = await named.admin.api.get('/api/v1/projects?search=r_p');
    expect(underscore.body.data.total).toBe(0);
    // Another organization's projects are never found.
    expect((await fresh.admin.api.get('/api/v1/projects?search=Weather')).body.data.total).toBe(0);
    // Blank is no search.
    expect((await named.admin.api.get('/api/v1/projects?search=%20')).body.data.total).toBe(4);
  });

  it('lists newest first with total, limit and offset, without metadata', async () => {
    const res = await fresh.admin.api.get('/api/v1/projects');
    expect(res.status).toBe(200);
    expect(res.body.data.total).toBe(5);
    expect(res.body.data.limit).toBe(20);
    expect(res.body.data.offset).toBe(0);
    const listed = res.body.data.projects;
    expect(listed.map((p: { id: string }) => p.id)).toEqual(
      [...listed]
        .sort((a: any, b: any) =>
          a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
        )
        .map((p: { id: string }) => p.id),
    );
    expect(new Set(listed.map((p: { id: string }) => p.id))).toEqual(new Set(ids));
    expect(listed[0]).not.toHaveProperty('metadata');
  });

  it('pages with limit and offset', async () => {
    const all = (await fresh.admin.api.get('/api/v1/projects')).body.data.projects.map((p: any) => p.id);
    const page = await fresh.admin.api.get('/api/v1/projects?limit=2&offset=2');
    expect(page.body.data).toMatchObject({ total: 5, limit: 2, offset: 2 });
    expect(page.body.data.projects.map((p: any) => p.id)).toEqual(all.slice(2, 4));
    const past = await fresh.admin.api.get('/api/v1/projects?offset=10');
    expect(past.body.data.projects).toEqual([]);
    expect(past.body.data.total).toBe(5);
  });

  it.each(['limit=0', 'limit=101', 'limit=abc', 'offset=-1', 'limit=1.5'])(
    'answers 400 for %s',
    async (query) => {
      const res = await fresh.admin.api.get(`/api/v1/projects?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_REQUEST');
      expect(res.body.error.details[0].field).toBe(query.split('=')[0]);
    },
  );

  it('accepts limit=100', async () => {
    expect((await fresh.admin.api.get('/api/v1/projects?limit=100')).status).toBe(200);
  });
});

describe('GET /api/v1/projects/:projectId', () => {
  it('returns the project with metadata', async () => {
    const { id } = await h.given.project(admin, { appStoreAppId: '42' });
    const res = await admin.api.get(`/api/v1/projects/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.project).toMatchObject({
      id,
      appStoreAppId: '42',
      playStorePackageName: null,
      metadata: { locales: [], lastSyncedAt: null },
    });
  });

  it('answers 404 NOT_FOUND for an unknown id', async () => {
    const res = await admin.api.get('/api/v1/projects/proj_00000000000000000000000000');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: { code: 'NOT_FOUND', message: 'Project not found' } });
  });
});

describe('PATCH /api/v1/projects/:projectId', () => {
  it('updates given fields and answers the spec shape', async () => {
    const { id } = await h.given.project(admin, { appStoreAppId: '1', playStorePackageName: 'com.a.b' });
    const before = (await admin.api.get(`/api/v1/projects/${id}`)).body.data.project;
    const res = await admin.api.patch(`/api/v1/projects/${id}`, { name: 'Renamed', appStoreAppId: null });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data.project).sort()).toEqual(
      ['appStoreAppId', 'id', 'name', 'playStorePackageName', 'updatedAt'].sort(),
    );
    expect(res.body.data.project).toMatchObject({
      id,
      name: 'Renamed',
      appStoreAppId: null,
      playStorePackageName: 'com.a.b',
    });
    expect(res.body.data.project.updatedAt >= before.updatedAt).toBe(true);
    const after = (await admin.api.get(`/api/v1/projects/${id}`)).body.data.project;
    expect(after).toMatchObject({ name: 'Renamed', appStoreAppId: null, createdAt: before.createdAt });
  });

  it('answers 400 for unknown fields and bad values', async () => {
    const { id } = await h.given.project(admin);
    expect((await admin.api.patch(`/api/v1/projects/${id}`, { id: 'x' })).status).toBe(400);
    const bad = await admin.api.patch(`/api/v1/projects/${id}`, { playStorePackageName: 'bad name' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('playStorePackageName');
  });

  it('answers 404 for an unknown project', async () => {
    const res = await admin.api.patch('/api/v1/projects/proj_nope', { name: 'x' });
    expect(res.status).toBe(404);
  });
});

describe('DELETE /api/v1/projects/:projectId', () => {
  it('deletes the project: deleted true, then 404, and total drops', async () => {
    const fresh = await h.given.organization();
    const { id } = await h.given.project(fresh.admin);
    await h.given.project(fresh.admin);
    const res = await fresh.admin.api.delete(`/api/v1/projects/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { deleted: true } });
    expect((await fresh.admin.api.get(`/api/v1/projects/${id}`)).status).toBe(404);
    expect((await fresh.admin.api.delete(`/api/v1/projects/${id}`)).status).toBe(404);
    expect((await fresh.admin.api.get('/api/v1/projects')).body.data.total).toBe(1);
  });
});

describe('POST /api/v1/projects/:projectId/sync and /push', () => {
  it('answers per store CREDENTIALS_MISSING, in the outcome and in failures, when the organization has no credentials', async () => {
    const { id } = await h.given.project(admin, { appStoreAppId: '7', playStorePackageName: 'com.x.y' });
    const sync = await admin.api.post(`/api/v1/projects/${id}/sync`);
    expect(sync.status).toBe(200);
    const notConfigured = {
      code: 'CREDENTIALS_MISSING',
      message: expect.stringContaining('PUT /api/v1/organization/credentials/'),
    };
    expect(sync.body.data).toEqual({
      syncedLocales: [],
      appStore: { synced: false, locales: 0, error: notConfigured },
      playStore: { synced: false, locales: 0, error: notConfigured },
      conflicts: [],
      failures: [
        { store: 'appstore', locale: null, field: null, error: notConfigured },
        { store: 'playstore', locale: null, field: null, error: notConfigured },
      ],
    });
    await admin.api.patch(`/api/v1/projects/${id}/listings/appstore/en-US`, { name: 'Pending' });
    const push = await admin.api.post(`/api/v1/projects/${id}/push`, {
      store: 'appstore',
      locales: ['en-US', 'de-DE'],
    });
    expect(push.status).toBe(200);
    expect(push.body.data.pushedLocales).toEqual([]);
    expect(push.body.data.appStore).toMatchObject({
      pushed: false,
      locales: 0,
      error: { code: 'CREDENTIALS_MISSING' },
    });
    expect(push.body.data.failures).toEqual([
      { store: 'appstore', locale: null, field: null, error: notConfigured },
    ]);
    expect(push.body.data.playStore).toMatchObject({ pushed: false, error: { code: 'NOT_REQUESTED' } });
    const project = await admin.api.get(`/api/v1/projects/${id}`);
    expect(project.body.data.project.metadata.lastSyncedAt).toBeNull();
  });

  it('answers 400 when the named store is not linked, or none is', async () => {
    const { id } = await h.given.project(admin, { appStoreAppId: '7' });
    const res = await admin.api.post(`/api/v1/projects/${id}/sync`, { store: 'playstore' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('store');
    const both = await admin.api.post(`/api/v1/projects/${id}/sync`, { store: 'both' });
    expect(both.status).toBe(200);
    expect(both.body.data.playStore.error.code).toBe('STORE_NOT_LINKED');
    const bare = await h.given.project(admin);
    expect((await admin.api.post(`/api/v1/projects/${bare.id}/push`, {})).status).toBe(400);
  });

  it('validates store and locales', async () => {
    const { id } = await h.given.project(admin, { appStoreAppId: '7', playStorePackageName: 'com.x.y' });
    const badStore = await admin.api.post(`/api/v1/projects/${id}/sync`, { store: 'amazon' });
    expect(badStore.status).toBe(400);
    expect(badStore.body.error.details[0]).toEqual({
      field: 'store',
      message: expect.stringContaining('appstore'),
    });
    const badLocale = await admin.api.post(`/api/v1/projects/${id}/push`, { locales: ['en-US', 'en_US'] });
    expect(badLocale.status).toBe(400);
    expect(badLocale.body.error.details[0].field).toBe('locales[1]');
    const unknown = await admin.api.post(`/api/v1/projects/${id}/push`, { prune: 'yes' });
    expect(unknown.status).toBe(400);
    expect((await admin.api.post('/api/v1/projects/proj_missing/sync', {})).status).toBe(404);
  });
});
