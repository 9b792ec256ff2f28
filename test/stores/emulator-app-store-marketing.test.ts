/**
 * Custom product pages and in-app events in the App Store emulator (stores-more.md §B, checklist
 * 1–7, 12, 13), called as a client of Apple's API calls them: pages with versions (a new one a
 * draft with copies of the texts, no second draft, no DELETE) and localizations (only on a draft,
 * duplicates, the 170-character limit, pages per app); events with localizations (texts refused
 * in review and once published, the 30/50/120 limits) and their schedules. The emulator checks
 * every request and answer against Apple's OpenAPI document itself.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, appleToken, startEmulators, type RunningEmulators } from '../support/emulators.js';

let emu: RunningEmulators;
let token: string;

beforeAll(async () => {
  emu = await startEmulators();
});
afterAll(() => emu.close());
beforeEach(async () => {
  emu.restore();
  emu.appStore.marketing.load(
    APP_ID,
    [
      {
        id: 'page-winter',
        name: 'Winter campaign',
        versions: [
          { id: 'winter-1', state: 'APPROVED', localizations: { 'en-US': 'Snow on the radar' } },
          {
            id: 'winter-2',
            state: 'PREPARE_FOR_SUBMISSION',
            localizations: { 'en-US': 'Snow on the radar' },
          },
        ],
      },
      {
        id: 'page-live',
        name: 'Live',
        versions: [{ id: 'live-1', state: 'APPROVED', localizations: { 'en-US': 'Live' } }],
      },
    ],
    [
      {
        id: 'event-storm',
        referenceName: 'Storm week',
        badge: 'SPECIAL_EVENT',
        localizations: { 'en-US': { name: 'Storm week', shortDescription: 'Track every storm' } },
      },
      {
        id: 'event-review',
        referenceName: 'In review',
        eventState: 'IN_REVIEW',
        localizations: { 'en-US': { name: 'Review' } },
      },
    ],
  );
  token = await appleToken(emu);
});

async function call(method: string, path: string, body?: unknown) {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}
const pageLocalization = (version: string, attributes: Record<string, unknown>) =>
  call('POST', '/v1/appCustomProductPageLocalizations', {
    data: {
      type: 'appCustomProductPageLocalizations',
      attributes,
      relationships: {
        appCustomProductPageVersion: { data: { type: 'appCustomProductPageVersions', id: version } },
      },
    },
  });
const localizationsOf = async (version: string) =>
  (await call('GET', `/v1/appCustomProductPageVersions/${version}/appCustomProductPageLocalizations`)).body
    .data as {
    id: string;
    attributes: { locale: string; promotionalText?: string };
  }[];

describe('custom product pages in the App Store emulator', () => {
  it('lists pages and versions, and writes texts only on a draft version', async () => {
    const pages = await call('GET', `/v1/apps/${APP_ID}/appCustomProductPages`);
    expect(pages.status).toBe(200);
    expect(pages.body.data.map((p: any) => [p.id, p.attributes.name, p.attributes.visible])).toEqual([
      ['page-winter', 'Winter campaign', true],
      ['page-live', 'Live', true],
    ]);
    expect(pages.body.data[0].attributes.url).toMatch(/^https:\/\/apps\.apple\.com\/.*ppid=page-winter/);
    const versions = await call('GET', '/v1/appCustomProductPages/page-winter/appCustomProductPageVersions');
    expect(versions.body.data.map((v: any) => [v.attributes.version, v.attributes.state])).toEqual([
      ['1', 'APPROVED'],
      ['2', 'PREPARE_FOR_SUBMISSION'],
    ]);

    const [draft] = await localizationsOf('winter-2');
    const edited = await call('PATCH', `/v1/appCustomProductPageLocalizations/${draft!.id}`, {
      data: {
        type: 'appCustomProductPageLocalizations',
        id: draft!.id,
        attributes: { promotionalText: 'Blizzards, live' },
      },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data.attributes.promotionalText).toBe('Blizzards, live');
    const [approved] = await localizationsOf('winter-1');
    const refused = await call('PATCH', `/v1/appCustomProductPageLocalizations/${approved!.id}`, {
      data: {
        type: 'appCustomProductPageLocalizations',
        id: approved!.id,
        attributes: { promotionalText: 'No' },
      },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].code).toBe('STATE_ERROR');

    expect((await pageLocalization('winter-2', { locale: 'de-DE', promotionalText: 'Schnee' })).status).toBe(
      201,
    );
    const duplicate = await pageLocalization('winter-2', { locale: 'de-DE' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({
      code: 'ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE',
      source: { pointer: '/data/attributes/locale' },
    });
    const tooLong = await pageLocalization('winter-2', { locale: 'fr-FR', promotionalText: 'x'.repeat(171) });
    expect(tooLong.body.errors[0].code).toBe('ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_LONG');
    expect((await pageLocalization('winter-2', { locale: 'xx-XX' })).status).toBe(409);
    const locale = await call('PATCH', `/v1/appCustomProductPageLocalizations/${draft!.id}`, {
      data: { type: 'appCustomProductPageLocalizations', id: draft!.id, attributes: { locale: 'fr-FR' } },
    });
    expect(locale.status).toBe(409);
    expect(locale.body.errors[0].code).toBe('ENTITY_ERROR.ATTRIBUTE.NOT_ALLOWED');
  });

  it('keeps screenshot sets per page localization, changeable only on a draft version', async () => {
    const createSet = (localization: string) =>
      call('POST', '/v1/appScreenshotSets', {
        data: {
          type: 'appScreenshotSets',
          attributes: { screenshotDisplayType: 'APP_IPHONE_67' },
          relationships: {
            appCustomProductPageLocalization: {
              data: { type: 'appCustomProductPageLocalizations', id: localization },
            },
          },
        },
      });
    const [draft] = await localizationsOf('winter-2');
    const created = await createSet(draft!.id);
    expect(created.status).toBe(201);
    const listed = await call('GET', `/v1/appCustomProductPageLocalizations/${draft!.id}/appScreenshotSets`);
    expect(listed.body.data.map((s: any) => s.attributes.screenshotDisplayType)).toEqual(['APP_IPHONE_67']);
    const [approved] = await localizationsOf('winter-1');
    const refused = await createSet(approved!.id);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].detail).toContain('custom product page version is APPROVED');
  });

  it("links a page localization only to the app's own keywords; unlinking what is not linked is a no-op", async () => {
    const live = [...emu.appStore.versionLocs.values()].find(
      (l) => l.parentId === 'ver-1' && l.locale === 'en-US',
    )!;
    live.attributes.keywords = 'rain,radar,storm';
    const keywords = await call('GET', `/v1/apps/${APP_ID}/searchKeywords?filter[locale]=en-US`);
    expect(keywords.body.data.map((k: { id: string }) => k.id)).toEqual(['rain', 'radar', 'storm']);
    const [draft] = await localizationsOf('winter-2');
    const url = `/v1/appCustomProductPageLocalizations/${draft!.id}/relationships/searchKeywords`;
    const link = (method: string, ids: string[]) =>
      call(method, url, { data: ids.map((id) => ({ type: 'appKeywords', id })) });
    expect((await link('POST', ['radar', 'storm'])).status).toBe(204);
    const unknown = await link('POST', ['snow']);
    expect(unknown.status).toBe(409);
    expect(unknown.body.errors[0].detail).toContain("'snow' is not one of the app's keywords");
    expect((await link('DELETE', ['rain'])).status).toBe(204);
    expect((await link('DELETE', ['storm'])).status).toBe(204);
    const linked = await call('GET', url);
    expect(linked.body.data).toEqual([{ type: 'appKeywords', id: 'radar' }]);
    const [approved] = await localizationsOf('winter-1');
    const refused = await call(
      'POST',
      `/v1/appCustomProductPageLocalizations/${approved!.id}/relationships/searchKeywords`,
      {
        data: [{ type: 'appKeywords', id: 'radar' }],
      },
    );
    expect(refused.status).toBe(409);
  });

  it('creates a draft version with copies of the texts, refuses a second, and has no version DELETE', async () => {
    const create = (page: string) =>
      call('POST', '/v1/appCustomProductPageVersions', {
        data: {
          type: 'appCustomProductPageVersions',
          relationships: { appCustomProductPage: { data: { type: 'appCustomProductPages', id: page } } },
        },
      });
    const created = await create('page-live');
    expect(created.status).toBe(201);
    expect(created.body.data.attributes).toMatchObject({ version: '2', state: 'PREPARE_FOR_SUBMISSION' });
    expect((await localizationsOf(created.body.data.id)).map((l) => l.attributes)).toEqual([
      { locale: 'en-US', promotionalText: 'Live' },
    ]);
    expect((await create('page-live')).status).toBe(409);
    expect((await call('DELETE', `/v1/appCustomProductPageVersions/${created.body.data.id}`)).status).toBe(
      404,
    );
  });

  it('creates pages up to the limit per app, hidden until made visible', async () => {
    emu.appStore.marketing.rules.maxPages = 3;
    const create = (name: string) =>
      call('POST', '/v1/appCustomProductPages', {
        data: {
          type: 'appCustomProductPages',
          attributes: { name },
          relationships: { app: { data: { type: 'apps', id: APP_ID } } },
        },
      });
    const third = await create('Summer');
    expect(third.status).toBe(201);
    expect(third.body.data.attributes.visible).toBe(false);
    const fourth = await create('Autumn');
    expect(fourth.status).toBe(409);
    expect(fourth.body.errors[0].detail).toContain('at most 3 custom product pages');
  });
});

describe('in-app events in the App Store emulator', () => {
  it('edits an event’s texts within the limits, not while it is in review', async () => {
    const events = await call('GET', `/v1/apps/${APP_ID}/appEvents?filter[eventState]=DRAFT`);
    expect(events.body.data.map((e: any) => [e.id, e.attributes.badge, e.attributes.eventState])).toEqual([
      ['event-storm', 'SPECIAL_EVENT', 'DRAFT'],
    ]);
    const [english] = (await call('GET', '/v1/appEvents/event-storm/localizations')).body.data;
    const patch = (id: string, attributes: Record<string, unknown>) =>
      call('PATCH', `/v1/appEventLocalizations/${id}`, {
        data: { type: 'appEventLocalizations', id, attributes },
      });
    expect((await patch(english.id, { longDescription: 'Every storm, tracked as it moves' })).status).toBe(
      200,
    );
    const tooLong = await patch(english.id, { name: 'x'.repeat(31) });
    expect(tooLong.status).toBe(409);
    expect(tooLong.body.errors[0]).toMatchObject({
      code: 'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_LONG',
      source: { pointer: '/data/attributes/name' },
    });
    const [review] = (await call('GET', '/v1/appEvents/event-review/localizations')).body.data;
    const refused = await patch(review.id, { name: 'Changed' });
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].code).toBe('STATE_ERROR');
    const added = await call('POST', '/v1/appEventLocalizations', {
      data: {
        type: 'appEventLocalizations',
        attributes: { locale: 'de-DE', name: 'Sturmwoche', shortDescription: 'Jeden Sturm verfolgen' },
        relationships: { appEvent: { data: { type: 'appEvents', id: 'event-storm' } } },
      },
    });
    expect(added.status).toBe(201);
  });

  it('checks an event’s schedule: its length and how early it is published', async () => {
    const create = (schedule: Record<string, string>) =>
      call('POST', '/v1/appEvents', {
        data: {
          type: 'appEvents',
          attributes: {
            referenceName: 'Heat wave',
            territorySchedules: [{ territories: ['USA'], ...schedule }],
          },
          relationships: { app: { data: { type: 'apps', id: APP_ID } } },
        },
      });
    const ok = await create({
      publishStart: '2027-07-01T00:00:00Z',
      eventStart: '2027-07-10T00:00:00Z',
      eventEnd: '2027-07-20T00:00:00Z',
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.attributes.eventState).toBe('DRAFT');
    const backwards = await create({ eventStart: '2027-07-10T00:00:00Z', eventEnd: '2027-07-09T00:00:00Z' });
    expect(backwards.status).toBe(409);
    const tooLong = await create({ eventStart: '2027-07-01T00:00:00Z', eventEnd: '2027-08-15T00:00:00Z' });
    expect(tooLong.body.errors[0].detail).toContain('at most 31 days');
    const early = await create({
      publishStart: '2027-06-01T00:00:00Z',
      eventStart: '2027-07-01T00:00:00Z',
      eventEnd: '2027-07-02T00:00:00Z',
    });
    expect(early.body.errors[0].detail).toContain('at most 14 days before');
  });
});
