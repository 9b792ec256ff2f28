/**
 * App Store custom product pages and in-app events end to end against the App Store emulator
 * (design.md §18, stores-more.md §B): both kinds synced with their texts, state and read-only
 * details; a page's promotional text and screenshots edited in two locales and an event's texts,
 * bound into the diff and its approval, pushed as exactly the store calls they need (the
 * emulator's call log compared) and synced back with nothing pending; edits refused with the
 * store's reason in states it refuses them in; texts translated by XLIFF; the default page copied
 * into a page in one step.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness } from '../support/harness.js';
import { distinctColour, image } from '../support/media.js';

let emu: RunningEmulators;
let h: Harness;
let admin: Actor;

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ env: emu.env });
  admin = (await h.given.organization()).admin;
  const res = await admin.api.request(
    'PUT',
    '/api/v1/organization/credentials/appstore',
    emu.credentials.appstore,
  );
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
});

beforeEach(() => {
  emu.restore();
  emu.appStore.marketing.load(
    APP_ID,
    [
      {
        id: 'page-spring',
        name: 'Spring campaign',
        versions: [
          {
            id: 'spring-1',
            state: 'PREPARE_FOR_SUBMISSION',
            deepLink: 'https://example.com/spring',
            localizations: { 'en-US': 'Spring showers, forecast', 'de-DE': 'Frühlingsschauer' },
          },
        ],
      },
      {
        id: 'page-review',
        name: 'In review',
        versions: [{ id: 'review-1', state: 'IN_REVIEW', localizations: { 'en-US': 'Waiting' } }],
      },
    ],
    [
      {
        id: 'event-storm',
        referenceName: 'Storm week',
        badge: 'SPECIAL_EVENT',
        purpose: 'APPROPRIATE_FOR_ALL_USERS',
        localizations: {
          'en-US': {
            name: 'Storm week',
            shortDescription: 'Track every storm',
            longDescription: 'Live radar',
          },
        },
      },
      {
        id: 'event-live',
        referenceName: 'Published',
        eventState: 'PUBLISHED',
        localizations: { 'en-US': { name: 'Live now' } },
      },
    ],
  );
});

const newProject = async (owner = admin) => (await h.given.project(owner, { appStoreAppId: APP_ID })).id;
const pageUrl = (project: string, pageId: string, locale: string) =>
  `/api/v1/projects/${project}/product-pages/${pageId}/${locale}`;
const eventUrl = (project: string, eventId: string, locale: string) =>
  `/api/v1/projects/${project}/app-events/${eventId}/${locale}`;
const marketingWrites = () =>
  emu.appStore.marketing.calls
    .filter((c) => !c.startsWith('GET'))
    .map((c) => c.replace(/\/[\w-]{36}$/, '/:id').replace(/\/(spring|review)-1$/, '/:id'));

/** A 6.9″ iPhone screenshot uploaded into a page's slot (or the default page's, without `page`). */
async function screenshot(apiKey: string, project: string, locale: string, page?: string) {
  const query = page === undefined ? '' : `?productPage=${page}`;
  const res = await h.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${project}/media/appstore/${locale}/APP_IPHONE_67${query}`,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'image/png' },
    payload: await image({ width: 1320, height: 2868, colour: distinctColour() }),
  });
  return { status: res.statusCode, body: res.json() };
}

async function synced(project: string, api = admin.api) {
  const res = await api.post(`/api/v1/projects/${project}/sync`, { store: 'appstore' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

describe('custom product pages and in-app events', () => {
  it('syncs both kinds with their texts, state and what the store says of them', async () => {
    const project = await newProject();
    const sync = await synced(project);
    expect(sync.appStore).toMatchObject({ synced: true, productPages: 2, appEvents: 2 });
    expect(sync.appStore.products).toBeUndefined(); // purchases: none in this app

    const pages = (await admin.api.get(`/api/v1/projects/${project}/product-pages`)).body.data;
    expect(pages.pages).toEqual([
      expect.objectContaining({
        pageId: 'page-review',
        name: 'In review',
        version: expect.objectContaining({
          state: 'IN_REVIEW',
          editable: false,
          reason: expect.stringContaining('IN_REVIEW'),
        }),
        locales: { 'en-US': { promotionalText: 'Waiting' } },
      }),
      expect.objectContaining({
        pageId: 'page-spring',
        name: 'Spring campaign',
        visible: true,
        url: expect.stringContaining('page-spring'),
        version: {
          version: '1',
          state: 'PREPARE_FOR_SUBMISSION',
          editable: true,
          reason: null,
          deepLink: 'https://example.com/spring',
        },
        locales: {
          'de-DE': { promotionalText: 'Frühlingsschauer' },
          'en-US': { promotionalText: 'Spring showers, forecast' },
        },
        states: { 'de-DE': 'unchanged', 'en-US': 'unchanged' },
        pending: 0,
        preview: null,
      }),
    ]);
    expect(pages.limits.promotionalText.max).toBe(170);

    const events = (await admin.api.get(`/api/v1/projects/${project}/app-events`)).body.data;
    expect(events.events.map((e: any) => [e.eventId, e.badge, e.state, e.editable])).toEqual([
      ['event-live', null, 'PUBLISHED', false],
      ['event-storm', 'SPECIAL_EVENT', 'DRAFT', true],
    ]);
    expect(events.events[1]).toMatchObject({
      referenceName: 'Storm week',
      purpose: 'APPROPRIATE_FOR_ALL_USERS',
      locales: {
        'en-US': { name: 'Storm week', shortDescription: 'Track every storm', longDescription: 'Live radar' },
      },
    });
    // Pages and events are not purchases: the products list leaves them out.
    const products = (await admin.api.get(`/api/v1/projects/${project}/products`)).body.data.products;
    expect(products.filter((p: any) => ['customProductPage', 'appEvent'].includes(p.kind))).toEqual([]);
    expect(emu.appStore.marketing.calls.filter((c) => !c.startsWith('GET'))).toEqual([]);
  });

  it('pushes texts and screenshots of a page in two locales and an event’s texts, after approval', async () => {
    const org = await h.given.organization();
    await org.admin.api.request('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore);
    await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    const project = await newProject(org.admin);
    const member = await h.given.member(org, 'member');
    await synced(project, member.api);

    for (const [locale, text] of [
      ['en-US', 'Spring storms, minute by minute'],
      ['de-DE', 'Frühlingsstürme, Minute für Minute'],
    ] as const) {
      const res = await member.api.patch(pageUrl(project, 'page-spring', locale), { promotionalText: text });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.data).toMatchObject({
        pageId: 'page-spring',
        locale,
        editable: true,
        fields: { promotionalText: { value: text, state: 'modified', limit: 170 } },
      });
      const shot = await screenshot(member.apiKey, project, locale, 'page-spring');
      expect(shot.status, JSON.stringify(shot.body)).toBe(201);
    }
    const event = await member.api.patch(eventUrl(project, 'event-storm', 'en-US'), {
      shortDescription: 'Every storm, tracked live',
    });
    expect(event.status).toBe(200);
    // A new event locale is created by the push.
    expect(
      (
        await member.api.patch(eventUrl(project, 'event-storm', 'fr-FR'), {
          name: 'Semaine des orages',
          shortDescription: 'Chaque orage suivi',
          longDescription: 'Radar en direct',
        })
      ).status,
    ).toBe(200);

    // The page's slots are its own: the default page has none, the page lists its two.
    const pageMedia = (
      await member.api.get(`/api/v1/projects/${project}/media?store=appstore&productPage=page-spring`)
    ).body.data.slots;
    expect(pageMedia.map((s: any) => [s.locale, s.slotType, s.productPage, s.items.length])).toEqual([
      ['de-DE', 'APP_IPHONE_67', 'page-spring', 1],
      ['en-US', 'APP_IPHONE_67', 'page-spring', 1],
    ]);
    expect((await member.api.get(`/api/v1/projects/${project}/media`)).body.data.slots).toEqual([]);
    const list = (await member.api.get(`/api/v1/projects/${project}/product-pages`)).body.data.pages;
    expect(list.find((p: any) => p.pageId === 'page-spring').preview).toMatchObject({
      slotType: 'APP_IPHONE_67',
      thumbnails: [expect.stringMatching(/^\/api\/v1\/media\/[0-9a-f]{64}\?thumb=1$/)],
    });

    const diff = (await member.api.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(diff.productChangeCount).toBe(6);
    expect(diff.products.appstore['page-spring']['de-DE'].promotionalText).toEqual({
      old: 'Frühlingsschauer',
      new: 'Frühlingsstürme, Minute für Minute',
    });
    expect(Object.keys(diff.media.appstore['en-US'])).toEqual(['page:page-spring:APP_IPHONE_67']);
    const dry = (await member.api.post(`/api/v1/projects/${project}/push`, { dryRun: true })).body.data;
    expect(dry.productChangeCount).toBe(6);
    expect(dry.media.appstore['de-DE']['page:page-spring:APP_IPHONE_67'].calls).toEqual(
      expect.arrayContaining([expect.stringMatching(/^POST \/v1\/appScreenshots\b/)]),
    );
    const refused = await member.api.post(`/api/v1/projects/${project}/push`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('APPROVAL_REQUIRED');
    const approval = await org.admin.api.post(`/api/v1/projects/${project}/approvals`);
    expect(approval.status).toBe(201);
    expect(approval.body.data.hash).toBe(diff.hash);

    emu.appStore.marketing.calls.length = 0;
    const push = await member.api.post(`/api/v1/projects/${project}/push`, {});
    expect(push.status, JSON.stringify(push.body)).toBe(200);
    expect(push.body.data.failures).toEqual([]);
    expect(push.body.data.appStore).toMatchObject({ pushed: true, products: 2 });
    // Exactly these text writes; the screenshots went through the page's own sets.
    expect(marketingWrites().sort()).toEqual(
      [
        'PATCH /v1/appCustomProductPageLocalizations/:id', // page en-US
        'PATCH /v1/appCustomProductPageLocalizations/:id', // page de-DE
        'PATCH /v1/appEventLocalizations/:id', // event en-US
        'POST /v1/appEventLocalizations', // event fr-FR, a new locale
      ].sort(),
    );
    const texts = emu.appStore.marketing.pageLocalizationsOf('spring-1');
    expect(Object.fromEntries(texts.map((l) => [l.locale, l.promotionalText]))).toEqual({
      'en-US': 'Spring storms, minute by minute',
      'de-DE': 'Frühlingsstürme, Minute für Minute',
    });
    for (const l of texts) {
      const sets = [...emu.appStore.media.sets.values()].filter((s) => s.localizationId === l.id);
      expect(sets.map((s) => [s.displayType, s.items.length])).toEqual([['APP_IPHONE_67', 1]]);
    }
    expect(
      emu.appStore.marketing
        .eventLocalizationsOf('event-storm')
        .map((l) => [l.locale, l.texts.shortDescription]),
    ).toEqual([
      ['en-US', 'Every storm, tracked live'],
      ['fr-FR', 'Chaque orage suivi'],
    ]);

    // Nothing pending, and a sync finds what was pushed (the page's screenshots known, not downloaded).
    expect((await member.api.get(`/api/v1/projects/${project}/diff`)).body.data).toMatchObject({
      productChangeCount: 0,
      media: {},
    });
    await synced(project, member.api);
    const again = (await member.api.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(again.productChangeCount).toBe(0);
    expect(again.media).toEqual({});
  });

  it('refuses edits in states the store refuses them in, with the store’s reason', async () => {
    const project = await newProject();
    await synced(project);
    const page = await admin.api.patch(pageUrl(project, 'page-review', 'en-US'), { promotionalText: 'Now' });
    expect(page.status).toBe(409);
    expect(page.body.error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('IN_REVIEW'),
      details: [{ field: 'state', message: 'not editable (IN_REVIEW)' }],
    });
    const event = await admin.api.patch(eventUrl(project, 'event-live', 'en-US'), { name: 'Changed' });
    expect(event.status).toBe(409);
    expect(event.body.error.message).toContain('PUBLISHED');
    const shot = await screenshot(admin.apiKey, project, 'en-US', 'page-review');
    expect(shot.status).toBe(409);
    expect(shot.body.error.message).toContain('IN_REVIEW');
    // Read-only views still answer, with the reason.
    const view = (await admin.api.get(pageUrl(project, 'page-review', 'en-US'))).body.data;
    expect(view).toMatchObject({ editable: false, reason: expect.stringContaining('IN_REVIEW') });
    // Over the limit and unknown pages are the ordinary errors.
    const long = await admin.api.patch(eventUrl(project, 'event-storm', 'en-US'), { name: 'x'.repeat(31) });
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual([
      expect.objectContaining({ field: 'name', limit: 30, length: 31 }),
    ]);
    expect((await admin.api.get(pageUrl(project, 'nope', 'en-US'))).status).toBe(404);
    expect((await screenshot(admin.apiKey, project, 'en-US', 'nope')).status).toBe(404);
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.productChangeCount).toBe(0);
  });

  it('translates a page’s and an event’s texts by XLIFF, checked against their limits', async () => {
    const project = await newProject();
    await synced(project);
    const xliff = (body?: string) =>
      h.app.inject({
        method: body === undefined ? 'GET' : 'PUT',
        url: `/api/v1/projects/${project}/translations/fr-FR.xlf`,
        headers: {
          authorization: `Bearer ${admin.apiKey}`,
          ...(body !== undefined && { 'content-type': 'application/xliff+xml' }),
        },
        ...(body !== undefined && { payload: body }),
      });
    const xml = (await xliff()).body;
    expect(xml).toMatch(/<unit id="products\.page-spring\.promotionalText"[^>]*slr:sizeRestriction="170"/);
    expect(xml).toMatch(/<unit id="products\.event-storm\.shortDescription"[^>]*slr:sizeRestriction="50"/);
    // What the store takes no changes to now is not offered for translation.
    expect(xml).not.toContain('products.page-review.');
    expect(xml).not.toContain('products.event-live.');
    const target = (doc: string, unit: string, text: string) =>
      doc.replace(
        new RegExp(
          `(<unit id="${unit.replace(/\./g, '\\.')}"[\\s\\S]*?)<segment state="initial">([\\s\\S]*?</source>)`,
        ),
        `$1<segment state="translated">$2<target>${text}</target>`,
      );
    const tooLong = target(xml, 'products.event-storm.name', 'La semaine des orages les plus forts');
    const refused = await xliff(tooLong);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details).toEqual([
      expect.objectContaining({ field: 'appstore/products.event-storm.name', limit: 30 }),
    ]);
    const good = target(
      target(xml, 'products.page-spring.promotionalText', 'Averses de printemps, prévues'),
      'products.event-storm.name',
      'Semaine des orages',
    );
    const imported = await xliff(good);
    expect(imported.statusCode, imported.body).toBe(200);
    expect(
      (await admin.api.get(pageUrl(project, 'page-spring', 'fr-FR'))).body.data.fields.promotionalText,
    ).toMatchObject({ value: 'Averses de printemps, prévues', state: 'modified' });
    expect((await admin.api.get(eventUrl(project, 'event-storm', 'fr-FR'))).body.data.fields.name.value).toBe(
      'Semaine des orages',
    );
  });

  it('copies the default page’s promotional text and screenshots into a page in one step', async () => {
    const project = await newProject();
    await synced(project);
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Weather you can trust',
    });
    expect((await screenshot(admin.apiKey, project, 'en-US')).status).toBe(201);
    const res = await admin.api.post(`/api/v1/projects/${project}/product-pages/page-spring/copy-default`, {
      locales: ['en-US'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      pageId: 'page-spring',
      locales: ['en-US'],
      copied: { texts: ['en-US'], mediaSlots: 1, mediaItems: 1 },
    });
    const view = (await admin.api.get(pageUrl(project, 'page-spring', 'en-US'))).body.data;
    expect(view.fields.promotionalText.value).toBe('Weather you can trust');
    const [defaultSlot] = (await admin.api.get(`/api/v1/projects/${project}/media?store=appstore`)).body.data
      .slots;
    const [pageSlot] = (
      await admin.api.get(`/api/v1/projects/${project}/media?store=appstore&productPage=page-spring`)
    ).body.data.slots;
    expect(pageSlot.items.map((i: any) => i.sha256)).toEqual(defaultSlot.items.map((i: any) => i.sha256));
    // Into a page in review: refused with the store's reason, nothing copied.
    const review = await admin.api.post(
      `/api/v1/projects/${project}/product-pages/page-review/copy-default`,
      {},
    );
    expect(review.status).toBe(409);
  });
});
