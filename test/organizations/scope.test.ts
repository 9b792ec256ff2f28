/**
 * Scoped access (design.md §16), generated from the role table: every write operation of a
 * project that a member may perform is called by a translator narrowed to one project and de-DE —
 * in scope (it works), on fr-FR (403 naming fr-FR, for the operations that touch a locale), and on
 * another project (404, as if it did not exist) — with an API key and with a dashboard session.
 * The table below fails when the role table gains such an operation that it lacks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/modules/access/index.js';
import { TOOL_OPERATIONS } from '../../src/mcp/server.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';
import { buildZip, entry } from '../support/zip.js';
import { distinctColour, image } from '../support/media.js';

const DEEPL_KEY = 'scope-deepl-key';
const IN = 'de-DE';
const OUT = 'fr-FR';

type Res = { status: number; body: any };
/** One way of calling the API as the translator: an API key, or a dashboard session. */
interface Via {
  json(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<Res>;
  raw(method: 'POST' | 'PUT', path: string, payload: Buffer | string, contentType: string): Promise<Res>;
}
interface Setup {
  project: string;
  /** The locale the call writes. */
  locale: string;
}
type Case = { kind: 'locale' | 'project'; call: (via: Via, s: Setup) => Promise<Res> };

let emu: RunningEmulators;
let h: Harness;
let org: TestOrganization;
let admin: Actor;
let translator: Actor;
let versionsMade = 0;

const api = (s: Setup) => `/api/v1/projects/${s.project}`;
const listing = (s: Setup, store = 'appstore') => `${api(s)}/listings/${store}/${s.locale}`;
const shots = (s: Setup, locale = s.locale) => `${api(s)}/media/playstore/${locale}/phoneScreenshots`;
const parse = (text: string) => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** A screenshot the admin put into the project's Play slot of `locale`. */
async function uploaded(s: Setup, locale = s.locale): Promise<string> {
  const res = await h.app.inject({
    method: 'POST',
    url: `${shots(s, locale)}?fileName=shot.png`,
    headers: { authorization: `Bearer ${admin.apiKey}`, 'content-type': 'image/png' },
    payload: await image({ width: 320, height: 640, colour: distinctColour() }),
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

/** Google Play's release 7 on production, synced, with a note the admin wrote in `locale`. */
async function playRelease(s: Setup, note?: string): Promise<void> {
  const app = emu.play.apps.get(PACKAGE)!;
  app.artifacts.set('7', '1.7');
  app.tracks.set('production', [{ name: '7 (1.7)', versionCodes: ['7'], status: 'completed' }]);
  await admin.api.post(`${api(s)}/sync`, { store: 'playstore' });
  if (note !== undefined) {
    const res = await admin.api.patch(`${api(s)}/release-notes/playstore/production/7/${s.locale}`, {
      text: note,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
}

/** A custom product page and an in-app event, synced (loaded once: the emulator is shared); their URLs. */
async function marketing(s: Setup): Promise<{ page: string; event: string }> {
  if (!emu.appStore.marketing.pages.has('scope-page')) {
    emu.appStore.marketing.load(
      APP_ID,
      [
        {
          id: 'scope-page',
          name: 'Scope',
          versions: [{ state: 'PREPARE_FOR_SUBMISSION', localizations: { 'en-US': 'Page text' } }],
        },
      ],
      [{ id: 'scope-event', referenceName: 'Scope', localizations: { 'en-US': { name: 'Scope week' } } }],
    );
  }
  await admin.api.post(`${api(s)}/sync`, { store: 'appstore', include: ['products'] });
  return { page: `${api(s)}/product-pages/scope-page`, event: `${api(s)}/app-events/scope-event` };
}

/** Google Play's one-time product coins_100, synced; the admin wrote its title in `locale` when `title` is given. */
async function playProduct(s: Setup, title?: string): Promise<string> {
  const app = emu.play.apps.get(PACKAGE)!;
  app.inAppProducts.set('coins_100', {
    packageName: PACKAGE,
    sku: 'coins_100',
    status: 'active',
    purchaseType: 'managedUser',
    defaultLanguage: app.defaultLanguage,
    listings: { [app.defaultLanguage]: { title: '100 coins' } },
  });
  await admin.api.post(`${api(s)}/sync`, { store: 'playstore', include: ['products'] });
  const url = `${api(s)}/products/playstore/coins_100/${s.locale}`;
  if (title !== undefined) {
    const res = await admin.api.patch(url, { title });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  return url;
}

/** Every project write a member may perform, with a request that is valid in scope. */
const CASES: Record<string, Case> = {
  'projects.update': { kind: 'project', call: (v, s) => v.json('PATCH', api(s), { name: 'Renamed' }) },
  'projects.sync': { kind: 'project', call: (v, s) => v.json('POST', `${api(s)}/sync`, {}) },
  'projects.push': {
    kind: 'locale',
    call: async (v, s) => {
      await admin.api.patch(listing(s), { subtitle: 'Neu' });
      return v.json('POST', `${api(s)}/push`, { store: 'appstore' });
    },
  },
  'operations.cancel': {
    kind: 'project',
    call: async (v, s) => {
      const queued = await admin.api.request('POST', `${api(s)}/sync`, {}, { prefer: 'respond-async' });
      return v.json('POST', `${api(s)}/operations/${queued.body.data.operation.id}/cancel`);
    },
  },
  'listings.update': { kind: 'locale', call: (v, s) => v.json('PATCH', listing(s), { subtitle: 'Regen' }) },
  'listings.validate': {
    kind: 'locale',
    call: (v, s) => v.json('POST', `${listing(s)}/validate`, { subtitle: 'Regen' }),
  },
  'listings.delete': {
    kind: 'locale',
    call: async (v, s) => {
      await admin.api.patch(listing(s), { subtitle: 'Regen' });
      return v.json('DELETE', listing(s));
    },
  },
  'listings.revert': {
    kind: 'locale',
    call: async (v, s) => {
      await admin.api.patch(listing(s), { subtitle: 'Regen' });
      const history = await admin.api.get(`${listing(s)}/history`);
      return v.json('POST', `${listing(s)}/revert`, { historyId: history.body.data.entries[0].id });
    },
  },
  'listings.copy': {
    kind: 'locale',
    call: (v, s) =>
      v.json('POST', `${api(s)}/listings/copy`, {
        from: { store: 'appstore', locale: 'en-US' },
        to: { store: 'playstore', locale: s.locale },
      }),
  },
  'listings.import': {
    kind: 'locale',
    call: (v, s) =>
      v.raw(
        'POST',
        `${api(s)}/import`,
        buildZip([entry(`fastlane/metadata/${s.locale}/subtitle.txt`, 'Importiert')]).buffer,
        'application/zip',
      ),
  },
  'approvalRequests.create': {
    kind: 'project',
    call: async (v, s) => {
      await admin.api.patch(`/api/v1/projects/${s.project}/listings/appstore/${IN}`, { subtitle: 'Neu' });
      return v.json('POST', `${api(s)}/approval-requests`, { note: 'Bitte' });
    },
  },
  'media.upload': {
    kind: 'locale',
    call: async (v, s) =>
      v.raw(
        'POST',
        `${shots(s)}?fileName=shot.png`,
        await image({ width: 320, height: 640, colour: distinctColour() }),
        'image/png',
      ),
  },
  'media.reorder': {
    kind: 'locale',
    call: async (v, s) => v.json('PUT', `${shots(s)}/order`, { items: [await uploaded(s)] }),
  },
  'media.delete': {
    kind: 'locale',
    call: async (v, s) => v.json('DELETE', `${shots(s)}/${await uploaded(s)}`),
  },
  'media.copy': {
    kind: 'locale',
    call: async (v, s) => {
      await uploaded(s, 'en-US');
      return v.json('POST', `${api(s)}/media/copy`, {
        from: { store: 'playstore', locale: 'en-US' },
        to: { store: 'playstore', locale: s.locale },
      });
    },
  },
  'media.revert': {
    kind: 'locale',
    call: async (v, s) => {
      await uploaded(s);
      const history = await admin.api.get(`${shots(s)}/history`);
      return v.json('POST', `${shots(s)}/revert`, { historyId: history.body.data.entries[0].id });
    },
  },
  'media.import': {
    kind: 'locale',
    call: async (v, s) => {
      // The project's own media as fastlane keeps them (a tar.gz): a screenshot of the locale.
      await uploaded(s);
      const exported = await h.app.inject({
        method: 'GET',
        url: `${api(s)}/media/export`,
        headers: { authorization: `Bearer ${admin.apiKey}` },
      });
      expect(exported.statusCode).toBe(200);
      return v.raw('POST', `${api(s)}/media/import`, exported.rawPayload, 'application/gzip');
    },
  },
  'releases.create': {
    kind: 'project',
    call: async (v, s) => {
      for (const version of emu.appStore.versions.values())
        version.appVersionState = 'READY_FOR_DISTRIBUTION';
      versionsMade += 1;
      return v.json('POST', `${api(s)}/releases/appstore`, { versionString: `4.${versionsMade}` });
    },
  },
  'releaseNotes.updateAppStore': {
    kind: 'locale',
    call: async (v, s) => {
      for (const version of emu.appStore.versions.values()) {
        version.appVersionState =
          version.id === 'ver-2' ? 'PREPARE_FOR_SUBMISSION' : 'READY_FOR_DISTRIBUTION';
      }
      await admin.api.post(`${api(s)}/sync`, { store: 'appstore' });
      return v.json('PATCH', `${api(s)}/release-notes/appstore/1.1/${s.locale}`, { text: 'Radar' });
    },
  },
  'releaseNotes.updatePlay': {
    kind: 'locale',
    call: async (v, s) => {
      await playRelease(s);
      return v.json('PATCH', `${api(s)}/release-notes/playstore/production/7/${s.locale}`, { text: 'Radar' });
    },
  },
  'releaseNotes.revert': {
    kind: 'locale',
    call: async (v, s) => {
      await playRelease(s, 'Radar');
      const history = await admin.api.get(
        `${api(s)}/release-notes/playstore/production/7/${s.locale}/history`,
      );
      return v.json('POST', `${api(s)}/release-notes/playstore/revert`, {
        historyId: history.body.data.entries[0].id,
      });
    },
  },
  'products.update': {
    kind: 'locale',
    call: async (v, s) => v.json('PATCH', await playProduct(s), { title: '100 Münzen' }),
  },
  'products.revert': {
    kind: 'locale',
    call: async (v, s) => {
      const url = await playProduct(s, '100 Münzen');
      await admin.api.patch(url, { title: 'Hundert Münzen' });
      const history = await admin.api.get(`${url}/history`);
      return v.json('POST', `${api(s)}/products/revert`, { historyId: history.body.data.entries[0].id });
    },
  },
  'products.copy': {
    kind: 'locale',
    call: async (v, s) => {
      await playProduct(s, '100 Münzen');
      if (!emu.appStore.purchases.products.has('scope-coins')) {
        emu.appStore.purchases.load(APP_ID, [
          {
            id: 'scope-coins',
            productId: 'coins_100',
            name: 'Coins',
            localizations: { 'en-US': { name: 'Coins' } },
          },
        ]);
      }
      await admin.api.post(`${api(s)}/sync`, { store: 'appstore', include: ['products'] });
      return v.json('POST', `${api(s)}/products/copy`, {
        from: { store: 'playstore', productId: 'coins_100' },
        locales: [s.locale],
      });
    },
  },
  'products.link': {
    kind: 'project',
    call: async (v, s) => {
      await playProduct(s);
      if (!emu.appStore.purchases.products.has('scope-coins')) {
        emu.appStore.purchases.load(APP_ID, [
          {
            id: 'scope-coins',
            productId: 'coins_100',
            name: 'Coins',
            localizations: { 'en-US': { name: 'Coins' } },
          },
        ]);
      }
      await admin.api.post(`${api(s)}/sync`, { store: 'appstore', include: ['products'] });
      return v.json('PUT', `${api(s)}/products/playstore/coins_100/link`, { productId: 'coins_100' });
    },
  },
  'releaseControls.apply': {
    kind: 'project',
    call: (v, s) =>
      v.json('POST', `${api(s)}/release-controls`, {
        store: 'appstore',
        action: 'setReleaseType',
        releaseType: 'MANUAL',
      }),
  },
  'schedules.create': {
    kind: 'locale',
    call: async (v, s) => {
      await admin.api.patch(listing(s), { subtitle: 'Bald' });
      const hash = (await admin.api.get(`${api(s)}/diff`)).body.data.hash;
      return v.json('POST', `${api(s)}/schedules`, {
        at: new Date(Date.now() + 3_600_000).toISOString(),
        hash,
      });
    },
  },
  'schedules.cancel': {
    kind: 'project',
    call: async (v, s) => {
      await admin.api.patch(listing(s), { subtitle: 'Bald' });
      const hash = (await admin.api.get(`${api(s)}/diff`)).body.data.hash;
      const created = await admin.api.post(`${api(s)}/schedules`, {
        at: new Date(Date.now() + 3_600_000).toISOString(),
        hash,
      });
      return v.json('DELETE', `${api(s)}/schedules/${created.body.data.schedule.id}`);
    },
  },
  'details.update': {
    kind: 'project',
    call: (v, s) => v.json('PATCH', `${api(s)}/details/appstore`, { copyright: '2026 Example Inc.' }),
  },
  'productPages.update': {
    kind: 'locale',
    call: async (v, s) =>
      v.json('PATCH', `${(await marketing(s)).page}/${s.locale}`, { promotionalText: 'Sturmsaison' }),
  },
  'productPages.copyDefault': {
    kind: 'locale',
    call: async (v, s) =>
      v.json('POST', `${(await marketing(s)).page}/copy-default`, { locales: [s.locale] }),
  },
  'appEvents.update': {
    kind: 'locale',
    call: async (v, s) =>
      v.json('PATCH', `${(await marketing(s)).event}/${s.locale}`, { name: 'Sturmwoche' }),
  },
  'releaseNotes.copy': {
    kind: 'locale',
    call: async (v, s) => {
      await playRelease(s, 'Radar');
      return v.json('POST', `${api(s)}/release-notes/copy`, {
        from: { store: 'playstore', track: 'production', versionCode: '7' },
        to: { track: 'production', versionCode: '7' },
        locales: [s.locale],
      });
    },
  },
  'translations.import': {
    kind: 'locale',
    call: async (v, s) => {
      const url = `${api(s)}/translations/${s.locale}.xlf`;
      const exported = await h.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${admin.apiKey}` },
      });
      return v.raw(
        'PUT',
        url,
        exported.body.replace('<source>Rain</source>', '<source>Rain</source><target>Regen</target>'),
        'application/xliff+xml',
      );
    },
  },
  'translations.machine': {
    kind: 'locale',
    call: (v, s) => v.json('POST', `${api(s)}/translations/machine`, { targetLocales: [s.locale] }),
  },
  'translations.accept': {
    kind: 'locale',
    call: async (v, s) => {
      await admin.api.post(`${api(s)}/translations/machine`, { targetLocales: [s.locale] });
      return v.json('POST', `${api(s)}/translations/${s.locale}/accept`, {});
    },
  },
};

/** The project writes of the role table a member may perform (the API's non-GET routes under a project). */
async function scopedWrites(): Promise<string[]> {
  const doc = (await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  const writes: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const access = (OPERATIONS as Record<string, unknown>)[op.operationId];
      if (
        method !== 'get' &&
        path.includes('{projectId}') &&
        Array.isArray(access) &&
        access.includes('member')
      ) {
        writes.push(op.operationId);
      }
    }
  }
  return writes.sort();
}

const viaKey = (actor: Actor): Via => ({
  json: (method, path, body) => actor.api.request(method, path, body),
  raw: async (method, path, payload, contentType) => {
    const res = await h.app.inject({
      method,
      url: path,
      headers: { authorization: `Bearer ${actor.apiKey}`, 'content-type': contentType },
      payload,
    });
    return { status: res.statusCode, body: parse(res.body) };
  },
});

async function viaSession(actor: Actor): Promise<Via> {
  const session = await h.given.session(actor);
  const page = {
    cookie: `appmeta_session=${session.token}`,
    'x-appmeta-csrf': '1',
    origin: new URL(h.config.publicUrl).origin,
  };
  return {
    json: (method, path, body) => session.request(method, path, body),
    raw: async (method, path, payload, contentType) => {
      const res = await h.app.inject({
        method,
        url: path,
        headers: { ...page, 'content-type': contentType },
        payload,
      });
      return { status: res.statusCode, body: parse(res.body) };
    },
  };
}

/** A project with both stores linked, synced, with texts in en-US to copy and translate. */
async function project(): Promise<string> {
  const { id } = await h.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE });
  expect((await admin.api.post(`/api/v1/projects/${id}/sync`, {})).status).toBe(200);
  await admin.api.patch(`/api/v1/projects/${id}/listings/appstore/en-US`, { subtitle: 'Rain' });
  for (const locale of [IN, OUT]) {
    await admin.api.patch(`/api/v1/projects/${id}/listings/playstore/${locale}`, {
      title: `Wetter ${locale}`,
    });
  }
  // The admin's own edits are pushed: a case starts from nothing pending.
  await admin.api.post(`/api/v1/projects/${id}/push`, {});
  return id;
}

/** Narrows the translator to `projects` and de-DE (their next request sees it). */
async function narrow(projects: string[]): Promise<void> {
  const res = await admin.api.patch(`/api/v1/organization/members/${translator.id}`, {
    access: { projects, locales: [IN] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  emu = await startEmulators({ deepl: { keys: [{ key: DEEPL_KEY }] } });
  h = await startHarness({ env: { ...emu.env, DEEPL_API_URL: emu.url } });
  org = await h.given.organization();
  admin = org.admin;
  for (const store of ['appstore', 'playstore'] as const) {
    await admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
  }
  await admin.api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: DEEPL_KEY });
  translator = await h.given.member(org, 'member');
});
afterAll(async () => {
  await h.close();
  await emu.close();
});

describe('the scope table', () => {
  it('covers every project write a member may perform, and no other', async () => {
    expect(Object.keys(CASES).sort()).toEqual(await scopedWrites());
  });
});

describe.each(['api key', 'dashboard session'])('a translator for de-DE of one project, by %s', (by) => {
  const via = () => (by === 'api key' ? Promise.resolve(viaKey(translator)) : viaSession(translator));

  it.each(Object.entries(CASES))('%s: in scope it works, outside it is refused', async (operation, c) => {
    emu.restore();
    const mine = await project();
    const theirs = await project();
    await narrow([mine]);
    const v = await via();

    const inScope = await c.call(v, { project: mine, locale: IN });
    expect(inScope.status, `${operation} in scope: ${JSON.stringify(inScope.body)}`).toBeLessThan(300);

    const otherProject = await c.call(v, { project: theirs, locale: IN });
    expect(otherProject.status, `${operation} on another project`).toBe(404);
    expect(otherProject.body.error.message).toBe('Project not found');

    if (c.kind === 'locale') {
      const otherLocale = await c.call(v, { project: mine, locale: OUT });
      expect(otherLocale.status, `${operation} on ${OUT}: ${JSON.stringify(otherLocale.body)}`).toBe(403);
      expect(otherLocale.body.error.code).toBe('FORBIDDEN');
      expect(otherLocale.body.error.message).toContain(OUT);
    }
  });
});

/** A tool called over MCP as `actor` (the same /mcp route an agent posts to). */
async function tool(actor: Actor, name: string, args: Record<string, unknown>) {
  const res = await h.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${actor.apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
  });
  const result = res.json().result;
  return { isError: result.isError === true, data: result.structuredContent };
}

/** The tools of the project writes above, each with what it needs in scope. */
const TOOL_CASES: Record<
  string,
  { kind: 'locale' | 'project'; args: (s: Setup) => Promise<Record<string, unknown>> }
> = {
  update_project: { kind: 'project', args: async (s) => ({ projectId: s.project, name: 'Renamed' }) },
  sync_project: { kind: 'project', args: async (s) => ({ projectId: s.project }) },
  push_project: {
    kind: 'locale',
    args: async (s) => {
      await admin.api.patch(listing(s), { subtitle: 'Neu' });
      return { projectId: s.project, store: 'appstore' };
    },
  },
  cancel_operation: {
    kind: 'project',
    args: async (s) => {
      const queued = await admin.api.request('POST', `${api(s)}/sync`, {}, { prefer: 'respond-async' });
      return { projectId: s.project, operationId: queued.body.data.operation.id };
    },
  },
  validate_listing: {
    kind: 'locale',
    args: async (s) => ({
      projectId: s.project,
      store: 'appstore',
      locale: s.locale,
      fields: { subtitle: 'Regen' },
    }),
  },
  delete_locale: {
    kind: 'locale',
    args: async (s) => {
      await admin.api.patch(listing(s), { subtitle: 'Regen' });
      return { projectId: s.project, store: 'appstore', locale: s.locale };
    },
  },
  upload_screenshot: {
    kind: 'locale',
    args: async (s) => ({
      projectId: s.project,
      store: 'playstore',
      locale: s.locale,
      slotType: 'phoneScreenshots',
      fileName: 'shot.png',
      base64: (await image({ width: 320, height: 640, colour: distinctColour() })).toString('base64'),
    }),
  },
  update_listing: {
    kind: 'locale',
    args: async (s) => ({
      projectId: s.project,
      store: 'appstore',
      locale: s.locale,
      fields: { subtitle: 'Regen' },
    }),
  },
  copy_listing: {
    kind: 'locale',
    args: async (s) => ({
      projectId: s.project,
      from: { store: 'appstore', locale: 'en-US' },
      to: { store: 'playstore', locale: s.locale },
    }),
  },
  revert_field: {
    kind: 'locale',
    args: async (s) => {
      await admin.api.patch(listing(s), { subtitle: 'Regen' });
      const history = await admin.api.get(`${listing(s)}/history`);
      return {
        projectId: s.project,
        store: 'appstore',
        locale: s.locale,
        historyId: history.body.data.entries[0].id,
      };
    },
  },
  import_fastlane: {
    kind: 'locale',
    args: async (s) => ({
      projectId: s.project,
      files: { [`fastlane/metadata/${s.locale}/subtitle.txt`]: 'Importiert' },
    }),
  },
  request_approval: {
    kind: 'project',
    args: async (s) => {
      await admin.api.patch(`/api/v1/projects/${s.project}/listings/appstore/${IN}`, { subtitle: 'Neu' });
      return { projectId: s.project, note: 'Bitte' };
    },
  },
  reorder_media: {
    kind: 'locale',
    args: async (s) => ({
      projectId: s.project,
      store: 'playstore',
      locale: s.locale,
      slotType: 'phoneScreenshots',
      items: [await uploaded(s)],
    }),
  },
  remove_media: {
    kind: 'locale',
    args: async (s) => ({
      projectId: s.project,
      store: 'playstore',
      locale: s.locale,
      slotType: 'phoneScreenshots',
      itemId: await uploaded(s),
    }),
  },
  copy_media: {
    kind: 'locale',
    args: async (s) => {
      await uploaded(s, 'en-US');
      return {
        projectId: s.project,
        from: { store: 'playstore', locale: 'en-US' },
        to: { store: 'playstore', locale: s.locale },
      };
    },
  },
  revert_media: {
    kind: 'locale',
    args: async (s) => {
      await uploaded(s);
      const history = await admin.api.get(`${shots(s)}/history`);
      return {
        projectId: s.project,
        store: 'playstore',
        locale: s.locale,
        slotType: 'phoneScreenshots',
        historyId: history.body.data.entries[0].id,
      };
    },
  },
  create_app_store_version: {
    kind: 'project',
    args: async (s) => {
      for (const version of emu.appStore.versions.values())
        version.appVersionState = 'READY_FOR_DISTRIBUTION';
      versionsMade += 1;
      return { projectId: s.project, versionString: `5.${versionsMade}` };
    },
  },
  update_product: {
    kind: 'locale',
    args: async (s) => {
      await playProduct(s);
      return {
        projectId: s.project,
        store: 'playstore',
        productId: 'coins_100',
        locale: s.locale,
        fields: { title: '100 Münzen' },
      };
    },
  },
  revert_product_text: {
    kind: 'locale',
    args: async (s) => {
      const url = await playProduct(s, '100 Münzen');
      await admin.api.patch(url, { title: 'Hundert Münzen' });
      const history = await admin.api.get(`${url}/history`);
      return { projectId: s.project, historyId: history.body.data.entries[0].id };
    },
  },
  copy_product_texts: {
    kind: 'locale',
    args: async (s) => {
      await playProduct(s, '100 Münzen');
      if (!emu.appStore.purchases.products.has('scope-coins')) {
        emu.appStore.purchases.load(APP_ID, [
          {
            id: 'scope-coins',
            productId: 'coins_100',
            name: 'Coins',
            localizations: { 'en-US': { name: 'Coins' } },
          },
        ]);
      }
      await admin.api.post(`${api(s)}/sync`, { store: 'appstore', include: ['products'] });
      return { projectId: s.project, store: 'playstore', productId: 'coins_100', locales: [s.locale] };
    },
  },
  schedule_change: {
    kind: 'locale',
    args: async (s) => {
      await admin.api.patch(listing(s), { subtitle: 'Bald' });
      const hash = (await admin.api.get(`${api(s)}/diff`)).body.data.hash;
      return { projectId: s.project, at: new Date(Date.now() + 3_600_000).toISOString(), hash };
    },
  },
  cancel_schedule: {
    kind: 'project',
    args: async (s) => {
      await admin.api.patch(listing(s), { subtitle: 'Bald' });
      const hash = (await admin.api.get(`${api(s)}/diff`)).body.data.hash;
      const created = await admin.api.post(`${api(s)}/schedules`, {
        at: new Date(Date.now() + 3_600_000).toISOString(),
        hash,
      });
      return { projectId: s.project, scheduleId: created.body.data.schedule.id };
    },
  },
  apply_release_control: {
    kind: 'project',
    args: async (s) => ({
      projectId: s.project,
      store: 'appstore',
      action: 'setReleaseType',
      releaseType: 'MANUAL',
    }),
  },
  update_details: {
    kind: 'project',
    args: async (s) => ({
      projectId: s.project,
      store: 'appstore',
      details: { copyright: '2026 Example Inc.' },
    }),
  },
  update_product_page: {
    kind: 'locale',
    args: async (s) => {
      await marketing(s);
      return { projectId: s.project, pageId: 'scope-page', locale: s.locale, promotionalText: 'Sturmsaison' };
    },
  },
  copy_default_page: {
    kind: 'locale',
    args: async (s) => {
      await marketing(s);
      return { projectId: s.project, pageId: 'scope-page', locales: [s.locale] };
    },
  },
  update_app_event: {
    kind: 'locale',
    args: async (s) => {
      await marketing(s);
      return { projectId: s.project, eventId: 'scope-event', locale: s.locale, name: 'Sturmwoche' };
    },
  },
  update_release_notes: {
    kind: 'locale',
    args: async (s) => {
      await playRelease(s);
      return {
        projectId: s.project,
        store: 'playstore',
        locale: s.locale,
        text: 'Radar',
        track: 'production',
        versionCode: '7',
      };
    },
  },
  machine_translate: {
    kind: 'locale',
    args: async (s) => ({ projectId: s.project, targetLocales: [s.locale] }),
  },
  accept_translations: {
    kind: 'locale',
    args: async (s) => {
      await admin.api.post(`${api(s)}/translations/machine`, { targetLocales: [s.locale] });
      return { projectId: s.project, locale: s.locale };
    },
  },
};

describe('the same translator over MCP', () => {
  it('has a case for every tool of those operations', () => {
    const writes = new Set(Object.keys(CASES));
    const tools = Object.entries(TOOL_OPERATIONS)
      .filter(([, operations]) => operations.some((operation) => writes.has(operation)))
      .map(([name]) => name)
      .sort();
    expect(Object.keys(TOOL_CASES).sort()).toEqual(tools);
  });

  it.each(Object.entries(TOOL_CASES))('%s: in scope it works, outside it is refused', async (name, c) => {
    emu.restore();
    const mine = await project();
    const theirs = await project();
    await narrow([mine]);

    const inScope = await tool(translator, name, await c.args({ project: mine, locale: IN }));
    expect(inScope.isError, `${name} in scope: ${JSON.stringify(inScope.data)}`).toBe(false);
    const otherProject = await tool(translator, name, await c.args({ project: theirs, locale: IN }));
    expect(otherProject.data.error.code, `${name} on another project`).toBe('NOT_FOUND');
    if (c.kind === 'locale') {
      const otherLocale = await tool(translator, name, await c.args({ project: mine, locale: OUT }));
      expect(otherLocale.data.error.code, `${name} on ${OUT}`).toBe('FORBIDDEN');
      expect(otherLocale.data.error.message).toContain(OUT);
    }
  });
});

describe('reads, lists and approving', () => {
  it('leaves projects outside the scope out of lists, searches and reads, and refuses new projects', async () => {
    const mine = await project();
    const theirs = await project();
    await narrow([mine]);
    const list = await translator.api.get('/api/v1/projects');
    expect(list.body.data.projects.map((p: { id: string }) => p.id)).toEqual([mine]);
    expect(list.body.data.total).toBe(1);
    const search = await translator.api.get('/api/v1/projects?search=Project');
    expect(search.body.data.projects.map((p: { id: string }) => p.id)).toEqual([mine]);
    for (const path of ['', '/listings', '/diff', '/media', '/translations']) {
      expect((await translator.api.get(`/api/v1/projects/${theirs}${path}`)).status, path).toBe(404);
      expect((await translator.api.get(`/api/v1/projects/${mine}${path}`)).status, path).toBe(200);
    }
    const listed = await tool(translator, 'list_projects', {});
    expect(listed.data.projects.map((p: { id: string }) => p.id)).toEqual([mine]);
    const created = await translator.api.post('/api/v1/projects', { name: 'Mine too' });
    expect(created.status).toBe(403);
    expect(created.body.error.message).toContain('an admin creates');
    // A dry run needs only read access: it shows what a push of everything pending would write.
    await admin.api.patch(`/api/v1/projects/${mine}/listings/appstore/${OUT}`, { subtitle: 'Pluie' });
    const preview = await translator.api.post(`/api/v1/projects/${mine}/push`, { dryRun: true });
    expect(preview.status).toBe(200);
  });

  it('lets a member approve changes all inside their scope, and no others', async () => {
    await admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    try {
      const mine = await project();
      const res = await admin.api.patch(`/api/v1/organization/members/${translator.id}`, {
        access: { projects: [mine], locales: [IN], approve: true },
      });
      expect(res.body.data.access).toEqual({ projects: [mine], locales: [IN], approve: true });
      await translator.api.patch(`/api/v1/projects/${mine}/listings/appstore/${IN}`, { subtitle: 'Regen' });
      const approved = await translator.api.post(`/api/v1/projects/${mine}/approvals`, {});
      expect(approved.status, JSON.stringify(approved.body)).toBe(201);
      await admin.api.patch(`/api/v1/projects/${mine}/listings/appstore/${OUT}`, { subtitle: 'Pluie' });
      const refused = await translator.api.post(`/api/v1/projects/${mine}/approvals`, {});
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toContain(OUT);
      // Without `approve`, approving stays an admin's.
      await narrow([mine]);
      const plain = await translator.api.post(`/api/v1/projects/${mine}/approvals`, {});
      expect(plain.status).toBe(403);
      expect(plain.body.error.message).toContain('listings.approve');
    } finally {
      await admin.api.patch('/api/v1/organization', { settings: { requireApproval: false } });
    }
  });
});

describe('setting a scope', () => {
  it('is shown in the member list and the session, carried by invites, and audited', async () => {
    const mine = await project();
    const invited = await admin.api.post('/api/v1/organization/members', {
      email: `scoped-${Date.now()}@example.com`,
      role: 'member',
      access: { projects: [mine], locales: [IN] },
    });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect(invited.body.data.access).toEqual({ projects: [mine], locales: [IN], approve: false });
    const accepted = await h.browser().post(`/api/dashboard/invites/${invited.body.data.inviteId}/accept`, {
      name: 'Greta',
    });
    expect(accepted.status).toBe(201);
    const members = await admin.api.get('/api/v1/organization/members');
    const greta = members.body.data.members.find((m: { name: string }) => m.name === 'Greta');
    expect(greta.access).toEqual({ projects: [mine], locales: [IN], approve: false });
    const key = accepted.body.data.apiKey as string;
    const session = await h.browser().post('/api/dashboard/session', { apiKey: key });
    const cookie = String(session.headers['set-cookie']).split(';')[0]!;
    const me = await h.app.inject({ method: 'GET', url: '/api/dashboard/session', headers: { cookie } });
    expect(me.json().data.member.access).toEqual({ projects: [mine], locales: [IN], approve: false });

    await narrow([mine]);
    const log = await admin.api.get(`/api/v1/organization/audit-log?action=members.updateRole&limit=1`);
    expect(log.body.data.entries[0].details.access.to).toEqual({
      projects: [mine],
      locales: [IN],
      approve: false,
    });
  });

  it.each([
    ['an admin', { role: 'admin', access: { locales: [IN] } }, 'access', 'admins are never narrowed'],
    ['a viewer by locale', { role: 'viewer', access: { locales: [IN] } }, 'access', 'projects only'],
    ['an unknown project', { access: { projects: ['proj_nope'] } }, 'access.projects[0]', 'no project'],
    ['an unknown locale', { access: { locales: ['xx-XX'] } }, 'access.locales[0]', 'locale code'],
  ])('refuses %s with a 400 naming the field', async (_what, body, field, message) => {
    const someone = await h.given.member(org, 'member');
    const res = await admin.api.patch(`/api/v1/organization/members/${someone.id}`, body);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe(field);
    expect(res.body.error.message).toContain(message);
  });
});
