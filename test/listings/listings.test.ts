import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
let org: TestOrganization;
let admin: Actor;
let linked: string;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
  admin = org.admin;
  linked = (
    await h.given.project(admin, {
      name: 'Weather',
      appStoreAppId: '1',
      playStorePackageName: 'com.example.weather',
    })
  ).id;
});
afterAll(() => h.close());

const listingUrl = (project: string, store: string, locale: string) =>
  `/api/v1/projects/${project}/listings/${store}/${locale}`;
const newProject = async () =>
  (await h.given.project(admin, { appStoreAppId: '1', playStorePackageName: 'com.example.app' })).id;

describe('PATCH /api/v1/projects/:projectId/listings/:store/:locale', () => {
  it('creates the locale, keeps value and base apart, and marks the listing modified', async () => {
    const res = await admin.api.patch(listingUrl(linked, 'appstore', 'en-US'), {
      name: 'Weather Pro',
      subtitle: 'Forecasts',
    });
    expect(res.status).toBe(200);
    const { listing } = res.body.data;
    expect(listing).toMatchObject({ store: 'appstore', locale: 'en-US', state: 'modified' });
    expect(listing.fields.name).toEqual({ value: 'Weather Pro', base: null, state: 'modified' });
    expect(listing.fields.description).toEqual({ value: null, base: null, state: 'unchanged' });
    expect(Object.keys(listing.fields).sort()).toEqual(
      [
        'description',
        'keywords',
        'marketingUrl',
        'name',
        'privacyPolicyUrl',
        'promotionalText',
        'subtitle',
        'supportUrl',
        'whatsNew',
      ].sort(),
    );
    const read = await admin.api.get(listingUrl(linked, 'appstore', 'en-US'));
    expect(read.body.data.listing.fields.subtitle.value).toBe('Forecasts');
    const project = await admin.api.get(`/api/v1/projects/${linked}`);
    expect(project.body.data.project.metadata.locales).toContain('en-US');
  });

  it('creates a locale once when its first edits arrive at the same time', async () => {
    const project = await newProject();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        admin.api.patch(listingUrl(project, 'appstore', 'it'), { promotionalText: `Edit ${i}` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect((await admin.api.get(`/api/v1/projects/${project}/listings`)).body.data.listings).toHaveLength(1);
  });

  it('clears a field with null or ""', async () => {
    const project = await newProject();
    await admin.api.patch(listingUrl(project, 'playstore', 'de-DE'), {
      title: 'Wetter',
      shortDescription: 'Kurz',
    });
    const res = await admin.api.patch(listingUrl(project, 'playstore', 'de-DE'), {
      title: null,
      shortDescription: '',
    });
    expect(res.body.data.listing.fields.title.value).toBeNull();
    expect(res.body.data.listing.fields.shortDescription.value).toBeNull();
  });

  const limits: [string, string, number][] = [
    ['appstore', 'name', 30],
    ['appstore', 'subtitle', 30],
    ['appstore', 'keywords', 100],
    ['appstore', 'promotionalText', 170],
    ['appstore', 'description', 4000],
    ['appstore', 'whatsNew', 4000],
    ['playstore', 'title', 30],
    ['playstore', 'shortDescription', 80],
    ['playstore', 'fullDescription', 4000],
  ];
  it.each(limits)('%s %s: exactly %i characters pass, one more is 400', async (store, field, max) => {
    const project = await newProject();
    const locale = 'en-US';
    const at = await admin.api.patch(listingUrl(project, store, locale), { [field]: 'a'.repeat(max) });
    expect(at.status).toBe(200);
    const over = await admin.api.patch(listingUrl(project, store, locale), { [field]: 'a'.repeat(max + 1) });
    expect(over.status).toBe(400);
    expect(over.body.error.details).toEqual([
      { field, message: `must be at most ${max} characters (has ${max + 1})`, limit: max, length: max + 1 },
    ]);
  });

  it('counts Unicode code points: emoji, skin tones and combining marks', async () => {
    const project = await newProject();
    const url = listingUrl(project, 'appstore', 'en-US');
    // 🌦 is one code point; 👍🏽 is two; "é" as e + U+0301 is two.
    expect((await admin.api.patch(url, { name: '🌦'.repeat(30) })).status).toBe(200);
    expect((await admin.api.patch(url, { name: '🌦'.repeat(31) })).status).toBe(400);
    expect((await admin.api.patch(url, { name: '👍🏽'.repeat(15) })).status).toBe(200);
    expect((await admin.api.patch(url, { name: '👍🏽'.repeat(15) + 'x' })).status).toBe(400);
    expect((await admin.api.patch(url, { subtitle: 'e\u0301'.repeat(15) })).status).toBe(200);
    const over = await admin.api.patch(url, { subtitle: 'e\u0301'.repeat(15) + 'x' });
    expect(over.status).toBe(400);
    expect(over.body.error.details[0].message).toContain('has 31');
    expect((await admin.api.patch(url, { name: 'A' })).body.error.details[0].message).toBe(
      'must be at least 2 characters (has 1)',
    );
  });

  it('warns, without blocking, when keywords pass 100 UTF-8 bytes', async () => {
    const project = await newProject();
    const keywords = 'погода,прогноз,дождь,снег,ветер,солнце,температура'; // 50 characters, ~95 bytes
    const cyrillic = `${keywords},гроза`; // 56 characters, over 100 bytes
    expect(Buffer.byteLength(cyrillic)).toBeGreaterThan(100);
    const res = await admin.api.patch(listingUrl(project, 'appstore', 'ru'), { keywords: cyrillic });
    expect(res.status).toBe(200);
    expect(res.body.data.warnings).toContainEqual({
      field: 'keywords',
      message: expect.stringContaining('UTF-8 bytes'),
    });
  });

  it('warns about keyword hygiene, the app name in keywords, the other platform and placeholder text', async () => {
    const project = await newProject();
    const res = await admin.api.patch(listingUrl(project, 'appstore', 'en-US'), {
      name: 'Weather Pro',
      keywords: 'rain, forecast,rain,weather',
      description: 'Also available on Android. Lorem ipsum dolor sit amet.',
    });
    expect(res.status).toBe(200);
    const messages = res.body.data.warnings.map((w: any) => `${w.field}: ${w.message}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^keywords: has spaces around commas/),
        expect.stringMatching(/^keywords: repeats "rain"/),
        expect.stringMatching(/^keywords: repeats words of the app name \(weather\)/),
        expect.stringMatching(/^description: mentions "Android"/),
        expect.stringMatching(/^description: looks like placeholder text/),
      ]),
    );
    const play = await admin.api.patch(listingUrl(project, 'playstore', 'en-US'), {
      fullDescription: 'Best on iPhone',
    });
    expect(play.body.data.warnings).toEqual([
      { field: 'fullDescription', message: expect.stringContaining('"iPhone"') },
    ]);
  });

  it.each([
    ['appstore', 'en_US', { name: 'Xx' }, 'locale'],
    ['appstore', 'xx-YY', { name: 'Xx' }, 'locale'],
    ['appstore', 'zh-CN', { name: 'Xx' }, 'locale'], // Google's code, not Apple's
    ['playstore', 'zh-Hans', { title: 'Xx' }, 'locale'], // Apple's code, not Google's
    ['appstore', 'en-US', { title: 'Play field' }, 'title'],
    ['playstore', 'en-US', { keywords: 'apple,field' }, 'keywords'],
    ['appstore', 'en-US', { supportUrl: 'not a url' }, 'supportUrl'],
    ['appstore', 'en-US', { marketingUrl: 'ftp://example.com' }, 'marketingUrl'],
    ['playstore', 'en-US', { video: 'youtube' }, 'video'],
    ['appstore', 'en-US', { name: 42 }, 'name'],
    ['appstore', 'en-US', { rating: 'five' }, 'rating'],
  ])('answers 400 for %s/%s %j naming %s', async (store, locale, body, field) => {
    const res = await admin.api.patch(listingUrl(linked, store, locale), body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details.map((d: any) => d.field)).toContain(field);
  });

  it('answers 400 for a store the project is not linked to, and for an empty patch', async () => {
    const appOnly = (await h.given.project(admin, { appStoreAppId: '5' })).id;
    const res = await admin.api.patch(listingUrl(appOnly, 'playstore', 'en-US'), { title: 'Nope' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0]).toEqual({
      field: 'store',
      message: expect.stringContaining('playStorePackageName'),
    });
    expect((await admin.api.patch(listingUrl(appOnly, 'appstore', 'en-US'), {})).status).toBe(400);
    expect((await admin.api.patch(listingUrl(appOnly, 'amazon', 'en-US'), { name: 'Xx' })).status).toBe(400);
  });
});

describe('GET /listings, DELETE a locale and the diff', () => {
  it('lists all stores and locales and shows exactly what a push would change', async () => {
    const project = await newProject();
    await admin.api.patch(listingUrl(project, 'appstore', 'en-US'), { name: 'Sunny', description: 'Sun.' });
    await admin.api.patch(listingUrl(project, 'playstore', 'en-US'), { title: 'Sunny' });
    await admin.api.patch(listingUrl(project, 'appstore', 'de-DE'), { name: 'Sonnig' });
    const all = await admin.api.get(`/api/v1/projects/${project}/listings`);
    expect(all.body.data.listings.map((l: any) => `${l.store}/${l.locale}`)).toEqual([
      'appstore/de-DE',
      'appstore/en-US',
      'playstore/en-US',
    ]);

    const diff = await admin.api.get(`/api/v1/projects/${project}/diff`);
    expect(diff.status).toBe(200);
    expect(diff.body.data).toMatchObject({
      inSync: false,
      changeCount: 4,
      stores: {
        appstore: {
          'en-US': { name: { old: null, new: 'Sunny' }, description: { old: null, new: 'Sun.' } },
          'de-DE': { name: { old: null, new: 'Sonnig' } },
        },
        playstore: { 'en-US': { title: { old: null, new: 'Sunny' } } },
      },
      removedLocales: {},
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      approval: { required: false, approved: false },
    });
    const playOnly = await admin.api.get(`/api/v1/projects/${project}/diff?store=playstore`);
    expect(Object.keys(playOnly.body.data.stores)).toEqual(['playstore']);
    expect(playOnly.body.data.changeCount).toBe(1);

    const removed = await admin.api.delete(listingUrl(project, 'appstore', 'de-DE'));
    expect(removed.body.data).toEqual({ deleted: true, pendingStoreRemoval: false });
    expect((await admin.api.get(listingUrl(project, 'appstore', 'de-DE'))).status).toBe(404);
    expect((await admin.api.delete(listingUrl(project, 'appstore', 'de-DE'))).status).toBe(404);
    const after = await admin.api.get(`/api/v1/projects/${project}`);
    expect(after.body.data.project.metadata.locales).toEqual(['en-US']);
  });

  it('answers a push dry run over REST with the changes it would write, narrowed by store and locales', async () => {
    const project = await newProject();
    await admin.api.patch(listingUrl(project, 'appstore', 'en-US'), { name: 'Dry' });
    await admin.api.patch(listingUrl(project, 'appstore', 'fr-FR'), { name: 'Sec' });
    await admin.api.patch(listingUrl(project, 'playstore', 'en-US'), { title: 'Dry' });
    const res = await admin.api.post(`/api/v1/projects/${project}/push`, {
      dryRun: true,
      store: 'appstore',
      locales: ['fr-FR'],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      dryRun: true,
      stores: ['appstore'],
      counts: { appstore: { fields: 1, media: 0, releaseNotes: 0, products: 0, removedLocales: 0 } },
      changeCount: 1,
      changes: { appstore: { 'fr-FR': { name: { old: null, new: 'Sec' } } } },
      mediaChangeCount: 0,
      uploadBytes: 0,
      media: {},
      releaseNoteChangeCount: 0,
      releaseNotes: {},
      productChangeCount: 0,
      products: {},
      approval: { required: false, approved: false, approvedBy: null, approvedAt: null },
    });
    // A dry run writes nothing: a viewer may ask for one, and only for one.
    const viewer = await h.given.member(org, 'viewer');
    const viewed = await viewer.api.post(`/api/v1/projects/${project}/push`, { dryRun: true });
    expect(viewed.status).toBe(200);
    expect(viewed.body.data).toMatchObject({
      dryRun: true,
      changes: { appstore: { 'fr-FR': { name: { new: 'Sec' } } } },
    });
    expect((await viewer.api.post(`/api/v1/projects/${project}/push`, {})).status).toBe(403);
  });

  it('answers an empty diff, inSync, for a project without changes', async () => {
    const project = await newProject();
    const diff = await admin.api.get(`/api/v1/projects/${project}/diff`);
    expect(diff.body.data).toMatchObject({
      inSync: true,
      counts: {},
      changeCount: 0,
      stores: {},
      removedLocales: {},
    });
  });
});

describe('history and revert', () => {
  it('records who changed which field when, and reverts to before or after an entry', async () => {
    const project = await newProject();
    const member = await h.given.member(org, 'member');
    const url = listingUrl(project, 'playstore', 'fr-FR');
    await admin.api.patch(url, { title: 'Météo' });
    await member.api.patch(url, { title: 'Météo Pro', shortDescription: 'Prévisions' });
    const history = await admin.api.get(`${url}/history?limit=10`);
    expect(history.status).toBe(200);
    expect(history.body.data.total).toBe(3);
    // Two edits may share a millisecond, which leaves their order open: find each by its text.
    const titleChanges = history.body.data.entries
      .filter((e: any) => e.field === 'title')
      .sort((a: any, b: any) => (a.new === 'Météo Pro' ? -1 : b.new === 'Météo Pro' ? 1 : 0));
    expect(titleChanges[0]).toMatchObject({
      field: 'title',
      old: 'Météo',
      new: 'Météo Pro',
      source: 'edit',
      actor: { memberId: member.id, operator: null, name: expect.stringMatching(/^member /) },
    });
    expect(titleChanges[1]).toMatchObject({
      old: null,
      new: 'Météo',
      actor: { memberId: admin.id, name: 'Admin' },
    });

    const undo = await admin.api.post(`${url}/revert`, { historyId: titleChanges[0].id });
    expect(undo.status).toBe(200);
    expect(undo.body.data.listing.fields.title.value).toBe('Météo');
    const redo = await admin.api.post(`${url}/revert`, { historyId: titleChanges[0].id, to: 'after' });
    expect(redo.body.data.listing.fields.title.value).toBe('Météo Pro');
    const latest = (await admin.api.get(`${url}/history?limit=1`)).body.data;
    expect(latest.entries[0]).toMatchObject({
      field: 'title',
      source: 'revert',
      old: 'Météo',
      new: 'Météo Pro',
    });
    expect(latest.total).toBe(5);

    expect((await admin.api.post(`${url}/revert`, { historyId: 'hist_unknown' })).status).toBe(404);
    const otherLocale = listingUrl(project, 'playstore', 'en-US');
    expect((await admin.api.post(`${otherLocale}/revert`, { historyId: titleChanges[0].id })).status).toBe(
      404,
    );
  });
});

describe('approvals', () => {
  it('requires an approval bound to the exact diff for a non-admin push; any edit voids it', async () => {
    const fresh = await h.given.organization();
    const member = await h.given.member(fresh, 'member');
    await fresh.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    const project = (await h.given.project(fresh.admin, { appStoreAppId: '9' })).id;
    await member.api.patch(listingUrl(project, 'appstore', 'en-US'), { name: 'Needs review' });

    const refused = await member.api.post(`/api/v1/projects/${project}/push`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('APPROVAL_REQUIRED');
    expect((await member.api.post(`/api/v1/projects/${project}/approvals`)).status).toBe(403);

    const approval = await fresh.admin.api.post(`/api/v1/projects/${project}/approvals`);
    expect(approval.status).toBe(201);
    expect(approval.body.data).toMatchObject({ changeCount: 1, approvedBy: fresh.admin.id });
    const diff = await member.api.get(`/api/v1/projects/${project}/diff`);
    expect(diff.body.data.approval).toMatchObject({
      required: true,
      approved: true,
      approvedBy: fresh.admin.id,
    });
    expect(diff.body.data.hash).toBe(approval.body.data.hash);
    expect((await member.api.post(`/api/v1/projects/${project}/push`, {})).status).toBe(200);

    await member.api.patch(listingUrl(project, 'appstore', 'en-US'), { subtitle: 'Sneaked in' });
    expect((await member.api.get(`/api/v1/projects/${project}/diff`)).body.data.approval.approved).toBe(
      false,
    );
    expect((await member.api.post(`/api/v1/projects/${project}/push`, {})).status).toBe(403);
    // Admins may push without an approval.
    expect((await fresh.admin.api.post(`/api/v1/projects/${project}/push`, {})).status).toBe(200);
  });

  it('answers 400 when there is nothing to approve', async () => {
    const project = await newProject();
    expect((await admin.api.post(`/api/v1/projects/${project}/approvals`)).status).toBe(400);
  });
});

describe('POST /api/v1/projects/:projectId/listings/copy', () => {
  it('copies App Store texts to Google Play with field and locale mapping', async () => {
    const project = await newProject();
    await admin.api.patch(listingUrl(project, 'appstore', 'zh-Hans'), {
      name: '天气',
      subtitle: '预报',
      description: '每日天气',
      keywords: '天气,雨',
    });
    const res = await admin.api.post(`/api/v1/projects/${project}/listings/copy`, {
      from: { store: 'appstore', locale: 'zh-Hans' },
      to: { store: 'playstore' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.listing).toMatchObject({ store: 'playstore', locale: 'zh-CN' });
    expect(res.body.data.listing.fields.title.value).toBe('天气');
    expect(res.body.data.listing.fields.shortDescription.value).toBe('预报');
    expect(res.body.data.listing.fields.fullDescription.value).toBe('每日天气');
    expect(res.body.data.copied).toEqual([
      { from: 'name', to: 'title' },
      { from: 'subtitle', to: 'shortDescription' },
      { from: 'description', to: 'fullDescription' },
    ]);
    const history = await admin.api.get(`${listingUrl(project, 'playstore', 'zh-CN')}/history`);
    expect(history.body.data.entries.map((e: any) => e.source)).toEqual(['copy', 'copy', 'copy']);
  });

  it('validates the copy like an edit and refuses fields without a counterpart', async () => {
    const project = await newProject();
    await admin.api.patch(listingUrl(project, 'playstore', 'en-US'), { shortDescription: 'x'.repeat(60) });
    const tooLong = await admin.api.post(`/api/v1/projects/${project}/listings/copy`, {
      from: { store: 'playstore', locale: 'en-US' },
      to: { store: 'appstore' },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details[0]).toEqual({
      field: 'to.subtitle',
      message: 'must be at most 30 characters (has 60)',
      limit: 30,
      length: 60,
    });
    expect((await admin.api.get(listingUrl(project, 'appstore', 'en-US'))).status).toBe(404);
    await admin.api.patch(listingUrl(project, 'appstore', 'en-US'), { keywords: 'a,b' });
    const noCounterpart = await admin.api.post(`/api/v1/projects/${project}/listings/copy`, {
      from: { store: 'appstore', locale: 'en-US' },
      to: { store: 'playstore' },
      fields: ['keywords'],
    });
    expect(noCounterpart.status).toBe(400);
    expect(noCounterpart.body.error.details[0].field).toBe('fields[0]');
    const sameStore = await admin.api.post(`/api/v1/projects/${project}/listings/copy`, {
      from: { store: 'appstore', locale: 'en-US' },
      to: { store: 'appstore', locale: 'en-GB' },
    });
    expect(sameStore.body.data.listing.fields.keywords.value).toBe('a,b');
  });
});

describe('organization isolation of listings', () => {
  it("answers 404 for every listing route of another organization's project", async () => {
    const other = await h.given.organization();
    const theirs = (await h.given.project(other.admin, { appStoreAppId: '3' })).id;
    await other.admin.api.patch(listingUrl(theirs, 'appstore', 'en-US'), { name: 'Private' });
    const history = (await other.admin.api.get(`${listingUrl(theirs, 'appstore', 'en-US')}/history`)).body
      .data.entries[0].id;
    const attempts = [
      admin.api.get(`/api/v1/projects/${theirs}/listings`),
      admin.api.get(listingUrl(theirs, 'appstore', 'en-US')),
      admin.api.patch(listingUrl(theirs, 'appstore', 'en-US'), { name: 'Mine' }),
      admin.api.delete(listingUrl(theirs, 'appstore', 'en-US')),
      admin.api.get(`/api/v1/projects/${theirs}/diff`),
      admin.api.get(`${listingUrl(theirs, 'appstore', 'en-US')}/history`),
      admin.api.post(`${listingUrl(theirs, 'appstore', 'en-US')}/revert`, { historyId: history }),
      admin.api.post(`/api/v1/projects/${theirs}/listings/copy`, {
        from: { store: 'appstore', locale: 'en-US' },
        to: { store: 'appstore', locale: 'de-DE' },
      }),
      admin.api.post(`/api/v1/projects/${theirs}/approvals`),
      admin.api.get(`/api/v1/projects/${theirs}/export`),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).toBe(404);
    expect(
      (await other.admin.api.get(listingUrl(theirs, 'appstore', 'en-US'))).body.data.listing.fields.name
        .value,
    ).toBe('Private');
  });
});
