/**
 * The role matrix of design.md §6, written out here independently of src/modules/access: every
 * operation of the role table × every role, each driven over HTTP with a request that is valid
 * apart from the role. The test fails when the table gains an operation this matrix lacks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, type RoleOperation } from '../../src/modules/access/index.js';
import { createResponseChecker } from '../support/openapi-check.js';
import { createExampleRecorder, RECORDING } from '../support/openapi-examples.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';
import { appStoreCredentials } from '../support/store-keys.js';
import { buildZip, entry } from '../support/zip.js';
import { distinctColour, image, upload } from '../support/media.js';

type Role = 'viewer' | 'member' | 'admin';
/**
 * `reachedValidationOnly`: the call passed the role check and stopped at its input (no change
 * made); `answered` is then the status it really answered.
 */
type Call = (
  actor: Actor,
  setup: Setup,
) => Promise<{ status: number; body: any; reachedValidationOnly?: boolean; answered?: number }>;
interface Setup {
  org: TestOrganization;
  project: string;
  /** Another member, made on demand (accepting an invite costs the anonymous per-IP budget). */
  other: () => Promise<Actor>;
  /** A history entry of the project's appstore/en-US listing. */
  historyId: string;
}

const V = true;
const X = false;
const DEEPL_KEY = 'roles-deepl-key';
const listing = (s: Setup, store = 'appstore', locale = 'en-US') =>
  `/api/v1/projects/${s.project}/listings/${store}/${locale}`;

/** The organization's DeepL key, set by its admin. */
const deeplKeySet = (s: Setup) =>
  s.org.admin.api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: DEEPL_KEY });

/** An XLIFF request: a GET of an export, or a PUT of a document. */
async function xliff(a: Actor, url: string, document?: string) {
  const res = await h.app.inject({
    method: document === undefined ? 'GET' : 'PUT',
    url,
    headers: {
      authorization: `Bearer ${a.apiKey}`,
      ...(document !== undefined && { 'content-type': 'application/xliff+xml' }),
    },
    ...(document !== undefined && { payload: document }),
  });
  const type = String(res.headers['content-type'] ?? '');
  return { status: res.statusCode, body: type.startsWith('application/json') ? res.json() : res.body };
}

/** The organization's store credentials, set by its admin. */
async function connectStores(s: Setup) {
  for (const store of ['appstore', 'playstore'] as const) {
    await s.org.admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
  }
}
let versionsMade = 0;

/** A Google Play note written by the admin (release 7 of production, en-US); answers its history id. */
async function playNoteWritten(s: Setup): Promise<string> {
  await connectStores(s);
  const app = emu.play.apps.get(PACKAGE)!;
  app.artifacts.set('7', '1.7');
  app.tracks.set('production', [{ name: '7 (1.7)', versionCodes: ['7'], status: 'completed' }]);
  await s.org.admin.api.post(`/api/v1/projects/${s.project}/sync`, { store: 'playstore' });
  const url = `/api/v1/projects/${s.project}/release-notes/playstore/production/7/en-US`;
  await s.org.admin.api.patch(url, { text: 'Radar' });
  return (await s.org.admin.api.get(`${url}/history`)).body.data.entries[0].id as string;
}

/** A Google Play one-time product synced into the project; answers the URL of its texts in the default language. */
async function productSynced(s: Setup): Promise<string> {
  await connectStores(s);
  const app = emu.play.apps.get(PACKAGE)!;
  const language = app.defaultLanguage;
  app.inAppProducts.set('coins_100', {
    packageName: PACKAGE,
    sku: 'coins_100',
    status: 'active',
    purchaseType: 'managedUser',
    defaultLanguage: language,
    listings: { [language]: { title: '100 coins', description: 'A bag of coins' } },
  });
  await s.org.admin.api.post(`/api/v1/projects/${s.project}/sync`, {
    store: 'playstore',
    include: ['products'],
  });
  return `/api/v1/projects/${s.project}/products/playstore/coins_100/${language}`;
}

/** coins_100 on both stores, synced (the App Store one loaded once: the emulator is shared by every case). */
async function productInBothStores(s: Setup): Promise<void> {
  await productSynced(s);
  if (!emu.appStore.purchases.products.has('roles-coins')) {
    emu.appStore.purchases.load(APP_ID, [
      {
        id: 'roles-coins',
        productId: 'coins_100',
        name: 'Coins',
        localizations: { 'en-US': { name: 'Coins', description: 'A bag of coins' } },
      },
    ]);
  }
  await s.org.admin.api.post(`/api/v1/projects/${s.project}/sync`, {
    store: 'appstore',
    include: ['products'],
  });
}

/** A custom product page and an in-app event synced into the project (loaded once: the emulator is shared). */
async function marketingSynced(s: Setup): Promise<{ page: string; event: string }> {
  await connectStores(s);
  if (!emu.appStore.marketing.pages.has('roles-page')) {
    emu.appStore.marketing.load(
      APP_ID,
      [
        {
          id: 'roles-page',
          name: 'Roles',
          versions: [{ state: 'PREPARE_FOR_SUBMISSION', localizations: { 'en-US': 'Page text' } }],
        },
      ],
      [{ id: 'roles-event', referenceName: 'Roles', localizations: { 'en-US': { name: 'Roles week' } } }],
    );
  }
  await s.org.admin.api.post(`/api/v1/projects/${s.project}/sync`, {
    store: 'appstore',
    include: ['products'],
  });
  return {
    page: `/api/v1/projects/${s.project}/product-pages/roles-page`,
    event: `/api/v1/projects/${s.project}/app-events/roles-event`,
  };
}

/** A push of the project's pending edit scheduled by the admin an hour ahead. */
async function scheduled(s: Setup): Promise<string> {
  const hash = (await s.org.admin.api.get(`/api/v1/projects/${s.project}/diff`)).body.data.hash;
  const res = await s.org.admin.api.post(`/api/v1/projects/${s.project}/schedules`, {
    at: new Date(Date.now() + 3_600_000).toISOString(),
    hash,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data.schedule.id;
}

const HOOK_URL = 'https://hooks.example.com/appmeta';
/** A webhook endpoint of the organization, made by its admin. */
const webhook = async (s: Setup): Promise<string> =>
  (await s.org.admin.api.post('/api/v1/organization/webhooks', { url: HOOK_URL })).body.data.webhook.id;
/** A background sync of the project, queued by the admin (no worker runs here: it stays queued). */
const queuedSync = async (s: Setup): Promise<string> =>
  (
    await s.org.admin.api.request(
      'POST',
      `/api/v1/projects/${s.project}/sync`,
      {},
      { prefer: 'respond-async' },
    )
  ).body.data.operation.id;

/** The project's Play phone screenshots of en-US. */
const shots = (s: Setup) => `/api/v1/projects/${s.project}/media/playstore/en-US/phoneScreenshots`;
/** A screenshot the admin uploaded into them. */
const uploaded = async (s: Setup): Promise<{ id: string; url: string }> => {
  const res = await upload(
    h,
    s.org.admin.apiKey,
    shots(s),
    await image({ width: 320, height: 640, colour: distinctColour() }),
  );
  expect(res.status).toBe(201);
  return res.body.data;
};

/** Operations sent as POST that change nothing (no audit entry): a check of texts. */
const CHANGES_NOTHING = new Set<string>(['listings.validate']);

// operation: [viewer, member, admin, the request]
const MATRIX: Record<RoleOperation, [boolean, boolean, boolean, Call]> = {
  'projects.list': [V, V, V, (a) => a.api.get('/api/v1/projects')],
  'projects.get': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}`)],
  'projects.create': [X, V, V, (a) => a.api.post('/api/v1/projects', { name: 'New' })],
  'projects.update': [X, V, V, (a, s) => a.api.patch(`/api/v1/projects/${s.project}`, { name: 'Renamed' })],
  'projects.delete': [X, X, V, (a, s) => a.api.delete(`/api/v1/projects/${s.project}`)],
  'projects.sync': [X, V, V, (a, s) => a.api.post(`/api/v1/projects/${s.project}/sync`, {})],
  'projects.push': [X, V, V, (a, s) => a.api.post(`/api/v1/projects/${s.project}/push`, {})],
  'projects.operations': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/operations`)],

  'listings.list': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/listings`)],
  'listings.get': [V, V, V, (a, s) => a.api.get(listing(s))],
  'listings.validate': [
    V,
    V,
    V,
    (a, s) =>
      a.api.post(`/api/v1/projects/${s.project}/listings/appstore/en-US/validate`, { subtitle: 'Rain' }),
  ],
  'listings.update': [X, V, V, (a, s) => a.api.patch(listing(s), { subtitle: 'Hello' })],
  'listings.delete': [X, V, V, (a, s) => a.api.delete(listing(s))],
  'listings.diff': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/diff`)],
  'listings.history': [V, V, V, (a, s) => a.api.get(`${listing(s)}/history`)],
  'listings.revert': [X, V, V, (a, s) => a.api.post(`${listing(s)}/revert`, { historyId: s.historyId })],
  'listings.copy': [
    X,
    V,
    V,
    (a, s) =>
      a.api.post(`/api/v1/projects/${s.project}/listings/copy`, {
        from: { store: 'appstore', locale: 'en-US' },
        to: { store: 'playstore' },
      }),
  ],
  'listings.approve': [X, X, V, (a, s) => a.api.post(`/api/v1/projects/${s.project}/approvals`)],
  'approvalRequests.create': [
    X,
    V,
    V,
    (a, s) => a.api.post(`/api/v1/projects/${s.project}/approval-requests`, { note: 'Please look' }),
  ],
  'approvalRequests.list': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/approval-requests`)],
  'listings.export': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/export`)],
  'listings.import': [
    X,
    V,
    V,
    async (a, s) => {
      const res = await h.app.inject({
        method: 'POST',
        url: `/api/v1/projects/${s.project}/import`,
        headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/zip' },
        payload: buildZip([entry('fastlane/metadata/en-US/subtitle.txt', 'Imported')]).buffer,
      });
      return { status: res.statusCode, body: res.json() };
    },
  ],

  'locales.list': [V, V, V, (a, s) => a.api.get(`/api/v1/locales?projectId=${s.project}`)],

  'releases.list': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/releases`)],
  'releases.create': [
    X,
    V,
    V,
    async (a, s) => {
      await connectStores(s);
      // Every version released: the store takes a new one.
      for (const version of emu.appStore.versions.values())
        version.appVersionState = 'READY_FOR_DISTRIBUTION';
      versionsMade += 1;
      return a.api.post(`/api/v1/projects/${s.project}/releases/appstore`, {
        versionString: `3.${versionsMade}`,
      });
    },
  ],
  'releaseNotes.list': [
    V,
    V,
    V,
    (a, s) => a.api.get(`/api/v1/projects/${s.project}/release-notes?store=playstore`),
  ],
  'releaseNotes.updateAppStore': [
    X,
    V,
    V,
    async (a, s) => {
      await connectStores(s);
      // Version 1.1 is the one being prepared (another case may have released it).
      for (const version of emu.appStore.versions.values()) {
        version.appVersionState =
          version.id === 'ver-2' ? 'PREPARE_FOR_SUBMISSION' : 'READY_FOR_DISTRIBUTION';
      }
      await s.org.admin.api.post(`/api/v1/projects/${s.project}/sync`, { store: 'appstore' });
      return a.api.patch(`/api/v1/projects/${s.project}/release-notes/appstore/1.1/en-US`, { text: 'Radar' });
    },
  ],
  'releaseNotes.updatePlay': [
    X,
    V,
    V,
    async (a, s) => {
      await connectStores(s);
      const app = emu.play.apps.get(PACKAGE)!;
      app.artifacts.set('7', '1.7');
      app.tracks.set('production', [{ name: '7 (1.7)', versionCodes: ['7'], status: 'completed' }]);
      await s.org.admin.api.post(`/api/v1/projects/${s.project}/sync`, { store: 'playstore' });
      return a.api.patch(`/api/v1/projects/${s.project}/release-notes/playstore/production/7/en-US`, {
        text: 'Radar',
      });
    },
  ],
  'releaseNotes.history': [
    V,
    V,
    V,
    (a, s) => a.api.get(`/api/v1/projects/${s.project}/release-notes/playstore/production/7/en-US/history`),
  ],
  'releaseNotes.revert': [
    X,
    V,
    V,
    async (a, s) => {
      const historyId = await playNoteWritten(s);
      return a.api.post(`/api/v1/projects/${s.project}/release-notes/playstore/revert`, { historyId });
    },
  ],
  'releaseNotes.copy': [
    X,
    V,
    V,
    async (a, s) => {
      await playNoteWritten(s);
      return a.api.post(`/api/v1/projects/${s.project}/release-notes/copy`, {
        from: { store: 'playstore', track: 'production', versionCode: '7' },
        to: { track: 'production', versionCode: '7' },
      });
    },
  ],
  'products.list': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/products`)],
  'products.get': [V, V, V, async (a, s) => a.api.get(await productSynced(s))],
  'products.update': [
    X,
    V,
    V,
    async (a, s) => a.api.patch(await productSynced(s), { title: 'A heap of coins' }),
  ],
  'products.history': [V, V, V, async (a, s) => a.api.get(`${await productSynced(s)}/history`)],
  'products.revert': [
    X,
    V,
    V,
    async (a, s) => {
      const url = await productSynced(s);
      await s.org.admin.api.patch(url, { title: 'A heap of coins' });
      const historyId = (await s.org.admin.api.get(`${url}/history`)).body.data.entries[0].id as string;
      return a.api.post(`/api/v1/projects/${s.project}/products/revert`, { historyId });
    },
  ],
  'products.copy': [
    X,
    V,
    V,
    async (a, s) => {
      await productInBothStores(s);
      return a.api.post(`/api/v1/projects/${s.project}/products/copy`, {
        from: { store: 'appstore', productId: 'coins_100' },
      });
    },
  ],
  'products.link': [
    X,
    V,
    V,
    async (a, s) => {
      await productInBothStores(s);
      return a.api.request('PUT', `/api/v1/projects/${s.project}/products/appstore/coins_100/link`, {
        productId: 'coins_100',
      });
    },
  ],
  'productPages.list': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/product-pages`)],
  'productPages.get': [V, V, V, async (a, s) => a.api.get(`${(await marketingSynced(s)).page}/en-US`)],
  'productPages.update': [
    X,
    V,
    V,
    async (a, s) =>
      a.api.patch(`${(await marketingSynced(s)).page}/en-US`, { promotionalText: 'Storm season' }),
  ],
  'productPages.copyDefault': [
    X,
    V,
    V,
    async (a, s) =>
      a.api.post(`${(await marketingSynced(s)).page}/copy-default`, { locales: ['en-US'], parts: ['media'] }),
  ],
  'appEvents.list': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/app-events`)],
  'appEvents.get': [V, V, V, async (a, s) => a.api.get(`${(await marketingSynced(s)).event}/en-US`)],
  'appEvents.update': [
    X,
    V,
    V,
    async (a, s) => a.api.patch(`${(await marketingSynced(s)).event}/en-US`, { name: 'Storm week' }),
  ],
  'releaseControls.get': [
    V,
    V,
    V,
    async (a, s) => {
      await connectStores(s);
      return a.api.get(`/api/v1/projects/${s.project}/release-controls`);
    },
  ],
  'releaseControls.apply': [
    X,
    V,
    V,
    async (a, s) => {
      await connectStores(s);
      // A staged rollout of its own each time: other cases change the shared emulator's versions.
      const app = emu.play.apps.get(PACKAGE)!;
      app.artifacts = new Map([['30', '3.0']]);
      app.tracks = new Map([['beta', [{ versionCodes: ['30'], status: 'inProgress', userFraction: 0.1 }]]]);
      return a.api.post(`/api/v1/projects/${s.project}/release-controls`, {
        store: 'playstore',
        action: 'setRolloutFraction',
        track: 'beta',
        fraction: 0.5,
      });
    },
  ],
  'schedules.list': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/schedules`)],
  'schedules.get': [
    V,
    V,
    V,
    async (a, s) => a.api.get(`/api/v1/projects/${s.project}/schedules/${await scheduled(s)}`),
  ],
  'schedules.create': [
    X,
    V,
    V,
    async (a, s) =>
      a.api.post(`/api/v1/projects/${s.project}/schedules`, {
        at: new Date(Date.now() + 3_600_000).toISOString(),
        hash: (await s.org.admin.api.get(`/api/v1/projects/${s.project}/diff`)).body.data.hash,
      }),
  ],
  'schedules.cancel': [
    X,
    V,
    V,
    async (a, s) => a.api.delete(`/api/v1/projects/${s.project}/schedules/${await scheduled(s)}`),
  ],
  'details.get': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/details/appstore`)],
  'details.update': [
    X,
    V,
    V,
    (a, s) =>
      a.api.patch(`/api/v1/projects/${s.project}/details/appstore`, { copyright: '2026 Example Inc.' }),
  ],
  'details.history': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/details/appstore/history`)],
  'media.list': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/media`)],
  'media.slotTypes': [V, V, V, (a) => a.api.get('/api/v1/media/slot-types')],
  'media.upload': [
    X,
    V,
    V,
    async (a, s) =>
      upload(h, a.apiKey, shots(s), await image({ width: 320, height: 640, colour: distinctColour() })),
  ],
  'media.reorder': [
    X,
    V,
    V,
    async (a, s) => a.api.request('PUT', `${shots(s)}/order`, { items: [(await uploaded(s)).id] }),
  ],
  'media.delete': [X, V, V, async (a, s) => a.api.delete(`${shots(s)}/${(await uploaded(s)).id}`)],
  'media.copy': [
    X,
    V,
    V,
    async (a, s) => {
      await uploaded(s);
      return a.api.post(`/api/v1/projects/${s.project}/media/copy`, {
        from: { store: 'playstore', locale: 'en-US' },
        to: { store: 'playstore', locale: 'de-DE' },
      });
    },
  ],
  'media.history': [V, V, V, (a, s) => a.api.get(`${shots(s)}/history`)],
  'media.export': [
    V,
    V,
    V,
    async (a, s) => {
      const res = await h.app.inject({
        method: 'GET',
        url: `/api/v1/projects/${s.project}/media/export`,
        headers: { authorization: `Bearer ${a.apiKey}` },
      });
      return { status: res.statusCode, body: res.statusCode < 300 ? {} : res.json() };
    },
  ],
  'media.import': [
    X,
    V,
    V,
    async (a, s) => {
      const export_ = await h.app.inject({
        method: 'GET',
        url: `/api/v1/projects/${s.project}/media/export`,
        headers: { authorization: `Bearer ${s.org.admin.apiKey}` },
      });
      const res = await h.app.inject({
        method: 'POST',
        url: `/api/v1/projects/${s.project}/media/import`,
        headers: { authorization: `Bearer ${a.apiKey}`, 'content-type': 'application/gzip' },
        payload: export_.rawPayload,
      });
      return { status: res.statusCode, body: res.json() };
    },
  ],
  'media.revert': [
    X,
    V,
    V,
    async (a, s) => {
      await uploaded(s);
      const history = await s.org.admin.api.get(`${shots(s)}/history`);
      return a.api.post(`${shots(s)}/revert`, { historyId: history.body.data.entries[0].id });
    },
  ],
  'media.download': [
    V,
    V,
    V,
    async (a, s) => {
      const res = await h.app.inject({
        method: 'GET',
        url: (await uploaded(s)).url,
        headers: { authorization: `Bearer ${a.apiKey}` },
      });
      return { status: res.statusCode, body: res.statusCode < 300 ? {} : res.json() };
    },
  ],

  'organization.get': [V, V, V, (a) => a.api.get('/api/v1/organization')],
  'organization.update': [X, X, V, (a) => a.api.patch('/api/v1/organization', { name: 'New name' })],
  'organization.usage': [V, V, V, (a) => a.api.get('/api/v1/organization/usage')],
  'auditLog.list': [X, X, V, (a) => a.api.get('/api/v1/organization/audit-log')],

  'members.list': [V, V, V, (a) => a.api.get('/api/v1/organization/members')],
  'members.updateRole': [
    X,
    X,
    V,
    async (a, s) => a.api.patch(`/api/v1/organization/members/${(await s.other()).id}`, { role: 'viewer' }),
  ],
  'members.remove': [
    X,
    X,
    V,
    async (a, s) => a.api.delete(`/api/v1/organization/members/${(await s.other()).id}`),
  ],

  'invites.create': [
    X,
    X,
    V,
    (a) =>
      a.api.post('/api/v1/organization/members', {
        email: `i${Math.random()}@example.com`.replace('0.', ''),
      }),
  ],
  'invites.list': [X, X, V, (a) => a.api.get('/api/v1/organization/invites')],
  'invites.revoke': [
    X,
    X,
    V,
    async (a, s) => {
      const created = await s.org.admin.api.post('/api/v1/organization/members', {
        email: `r${Date.now()}${Math.random()}@example.com`.replace('0.', ''),
      });
      return a.api.delete(`/api/v1/organization/invites/${created.body.data.inviteId}`);
    },
  ],

  'apiKeys.list': [V, V, V, (a) => a.api.get('/api/v1/api-keys')],
  'apiKeys.create': [V, V, V, (a) => a.api.post('/api/v1/api-keys', { name: 'mine' })],
  'apiKeys.revoke': [
    V,
    V,
    V,
    async (a) => {
      const created = await a.api.post('/api/v1/api-keys', { name: 'to revoke' });
      return a.api.delete(`/api/v1/api-keys/${created.body.data.key.id}`);
    },
  ],

  'auditLog.export': [X, X, V, (a) => a.api.get('/api/v1/organization/audit-log.csv')],
  'dashboard.session.get': [V, V, V, (a) => a.api.get('/api/dashboard/session')],
  'dashboard.session.delete': [
    V,
    V,
    V,
    async (a) => (await h.given.session(a)).delete('/api/dashboard/session'),
  ],
  'dashboard.sessions.list': [V, V, V, (a) => a.api.get('/api/dashboard/sessions')],
  'dashboard.sessions.delete': [
    V,
    V,
    V,
    async (a) => {
      const other = await h.given.session(a);
      const listed = await other.get('/api/dashboard/sessions');
      const mine = listed.body.data.sessions.find((s: { current: boolean }) => s.current);
      return a.api.delete(`/api/dashboard/sessions/${mine.id}`);
    },
  ],
  'dashboard.sessions.deleteAll': [
    V,
    V,
    V,
    async (a) => (await h.given.session(a)).delete('/api/dashboard/sessions'),
  ],
  'dashboard.signInLinks.create': [
    X,
    X,
    V,
    (a) => a.api.post('/api/dashboard/sign-in-links', { memberId: actors.viewer.id }),
  ],
  'dashboard.passkeys.list': [V, V, V, (a) => a.api.get('/api/dashboard/passkeys')],
  'dashboard.passkeys.registrationOptions': [
    V,
    V,
    V,
    async (a) => (await h.given.session(a)).post('/api/dashboard/passkeys/registration/options'),
  ],
  // A real registration needs an authenticator (test/dashboard.browser.test.ts); the role check comes first.
  'dashboard.passkeys.register': [
    V,
    V,
    V,
    async (a) => {
      const session = await h.given.session(a);
      const res = await session.post('/api/dashboard/passkeys/registration/verify', {
        response: { id: 'x', rawId: 'x', type: 'public-key' },
      });
      // A real passkey needs an authenticator: reaching validation proves the role may register.
      return res.status === 400 ? { ...res, status: 200, reachedValidationOnly: true, answered: 400 } : res;
    },
  ],
  'dashboard.passkeys.delete': [
    V,
    V,
    V,
    async (a) => {
      const res = await a.api.delete('/api/dashboard/passkeys/pk_none');
      return res.status === 404 ? { ...res, status: 200, reachedValidationOnly: true, answered: 404 } : res;
    },
  ],

  'credentials.list': [X, X, V, (a) => a.api.get('/api/v1/organization/credentials')],
  'translations.status': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/translations`)],
  'translations.get': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/translations/de-DE`)],
  'translations.export': [
    V,
    V,
    V,
    (a, s) => xliff(a, `/api/v1/projects/${s.project}/translations/de-DE.xlf`),
  ],
  'translations.exportAll': [
    V,
    V,
    V,
    async (a, s) => {
      await s.org.admin.api.patch(listing(s, 'appstore', 'de-DE'), { name: 'Wetter Pro' });
      return xliff(a, `/api/v1/projects/${s.project}/translations.zip`);
    },
  ],
  'translations.import': [
    X,
    V,
    V,
    async (a, s) => {
      const exported = await xliff(s.org.admin, `/api/v1/projects/${s.project}/translations/de-DE.xlf`);
      return xliff(
        a,
        `/api/v1/projects/${s.project}/translations/de-DE.xlf`,
        String(exported.body).replace('<source>Rain</source>', '<source>Rain</source><target>Regen</target>'),
      );
    },
  ],
  'translations.machine': [
    X,
    V,
    V,
    async (a, s) => {
      await deeplKeySet(s);
      return a.api.post(`/api/v1/projects/${s.project}/translations/machine`, { targetLocales: ['de-DE'] });
    },
  ],
  'translations.accept': [
    X,
    V,
    V,
    async (a, s) => {
      await deeplKeySet(s);
      await s.org.admin.api.post(`/api/v1/projects/${s.project}/translations/machine`, {
        targetLocales: ['de-DE'],
      });
      return a.api.post(`/api/v1/projects/${s.project}/translations/de-DE/accept`, {});
    },
  ],
  'glossaries.list': [V, V, V, (a) => a.api.get('/api/v1/organization/glossaries')],
  'glossaries.set': [
    X,
    X,
    V,
    (a) => a.api.request('PUT', '/api/v1/organization/glossaries/en/de', { terms: ['Weather Pro'] }),
  ],
  'glossaries.delete': [
    X,
    X,
    V,
    async (a, s) => {
      await s.org.admin.api.request('PUT', '/api/v1/organization/glossaries/en/fr', {
        terms: ['Weather Pro'],
      });
      return a.api.delete('/api/v1/organization/glossaries/en/fr');
    },
  ],
  'credentials.setDeepl': [
    X,
    X,
    V,
    (a) => a.api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: DEEPL_KEY }),
  ],
  'credentials.setAppStore': [
    X,
    X,
    V,
    (a) => {
      const { issuerId, keyId, privateKey } = appStoreCredentials();
      return a.api.request('PUT', '/api/v1/organization/credentials/appstore', {
        issuerId,
        keyId,
        privateKey,
      });
    },
  ],
  'credentials.setPlayStore': [
    X,
    X,
    V,
    (a) => a.api.request('PUT', '/api/v1/organization/credentials/playstore', emu.credentials.playstore),
  ],
  'credentials.delete': [
    X,
    X,
    V,
    async (a, s) => {
      await s.org.admin.api.request(
        'PUT',
        '/api/v1/organization/credentials/appstore',
        emu.credentials.appstore,
      );
      return a.api.delete('/api/v1/organization/credentials/appstore');
    },
  ],
  'webhooks.list': [X, X, V, (a) => a.api.get('/api/v1/organization/webhooks')],
  'webhooks.get': [X, X, V, async (a, s) => a.api.get(`/api/v1/organization/webhooks/${await webhook(s)}`)],
  'webhooks.create': [X, X, V, (a) => a.api.post('/api/v1/organization/webhooks', { url: HOOK_URL })],
  'webhooks.update': [
    X,
    X,
    V,
    async (a, s) => a.api.patch(`/api/v1/organization/webhooks/${await webhook(s)}`, { description: 'CI' }),
  ],
  'webhooks.delete': [
    X,
    X,
    V,
    async (a, s) => a.api.delete(`/api/v1/organization/webhooks/${await webhook(s)}`),
  ],
  'webhooks.rotateSecret': [
    X,
    X,
    V,
    async (a, s) => a.api.post(`/api/v1/organization/webhooks/${await webhook(s)}/rotate-secret`),
  ],
  'webhooks.test': [
    X,
    X,
    V,
    async (a, s) => a.api.post(`/api/v1/organization/webhooks/${await webhook(s)}/test`),
  ],
  'webhooks.deliveries': [
    X,
    X,
    V,
    async (a, s) => a.api.get(`/api/v1/organization/webhooks/${await webhook(s)}/deliveries`),
  ],
  'webhooks.redeliver': [
    X,
    X,
    V,
    async (a, s) => {
      const id = await webhook(s);
      const test = await s.org.admin.api.post(`/api/v1/organization/webhooks/${id}/test`);
      return a.api.post(
        `/api/v1/organization/webhooks/${id}/deliveries/${test.body.data.delivery.id}/redeliver`,
      );
    },
  ],
  'operations.get': [
    V,
    V,
    V,
    async (a, s) => a.api.get(`/api/v1/projects/${s.project}/operations/${await queuedSync(s)}`),
  ],
  'operations.cancel': [
    X,
    V,
    V,
    async (a, s) => a.api.post(`/api/v1/projects/${s.project}/operations/${await queuedSync(s)}/cancel`),
  ],
  'events.stream': [
    V,
    V,
    V,
    async (a) => {
      const res = await h.app.inject({
        method: 'GET',
        url: '/api/v1/events',
        headers: { authorization: `Bearer ${a.apiKey}` },
        payloadAsStream: true,
      });
      const stream = res.stream();
      if (res.statusCode === 200) {
        stream.destroy();
        return { status: 200, body: null };
      }
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return { status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString()) };
    },
  ],
  'credentials.verify': [
    X,
    X,
    V,
    async (a, s) => {
      await s.org.admin.api.request(
        'PUT',
        '/api/v1/organization/credentials/appstore',
        emu.credentials.appstore,
      );
      return a.api.post('/api/v1/organization/credentials/appstore/verify');
    },
  ],
};

/** Who may perform an API-key operation of the table (not the public and operator ones). */
const roleOperations = () =>
  (Object.entries(OPERATIONS) as [string, unknown][])
    .filter(([, access]) => Array.isArray(access))
    .map(([operation]) => operation)
    .sort();

/** The method and path of every operation of the API, from its OpenAPI document. */
const routes = new Map<string, { method: string; path: string }>();

/** How many audit entries of `operation` by `actor` the log holds. */
const auditCount = async (operation: string, actor: Actor): Promise<number> => {
  const res = await org.admin.api.get(
    `/api/v1/organization/audit-log?action=${operation}&actor=${actor.id}&limit=1`,
  );
  expect(res.status).toBe(200);
  return res.body.data.total as number;
};

let h: Harness;
let emu: RunningEmulators;
let org: TestOrganization;
const actors = {} as Record<Role, Actor>;
/** The actor, with the body of its last request kept (for the document's examples). */
function recordingActor(actor: Actor) {
  let body: unknown;
  const api = actor.api;
  const kept = <T>(value: unknown, result: T) => {
    body = value;
    return result;
  };
  return {
    actor: {
      ...actor,
      api: {
        ...api,
        request: (
          method: Parameters<typeof api.request>[0],
          path: string,
          value?: unknown,
          headers?: Record<string, string>,
        ) => kept(value, api.request(method, path, value, headers)),
        get: (path: string) => kept(undefined, api.get(path)),
        post: (path: string, value?: unknown) => kept(value, api.post(path, value)),
        patch: (path: string, value?: unknown) => kept(value, api.patch(path, value)),
        delete: (path: string) => kept(undefined, api.delete(path)),
      },
    },
    lastBody: () => body,
  };
}

/** The document's examples, recorded from the admin's calls (APPMETA_EXAMPLES_UPDATE=1). */
const examples = createExampleRecorder();
/** Every answer below, allowed or refused, is checked against the OpenAPI document. */
let responses: ReturnType<typeof createResponseChecker>;

beforeAll(async () => {
  emu = await startEmulators({ deepl: { keys: [{ key: DEEPL_KEY }] } });
  h = await startHarness({ env: { ...emu.env, DEEPL_API_URL: emu.url } });
  org = await h.given.organization();
  actors.admin = org.admin;
  actors.member = await h.given.member(org, 'member');
  actors.viewer = await h.given.member(org, 'viewer');
  const doc = await h.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  responses = createResponseChecker(doc.json());
  for (const [path, methods] of Object.entries(doc.json().paths as Record<string, object>)) {
    for (const [method, op] of Object.entries(methods as Record<string, { operationId: string }>)) {
      routes.set(op.operationId, { method: method.toUpperCase(), path });
    }
  }
});
afterAll(async () => {
  examples.write();
  await h.close();
  await emu.close();
});

describe('role matrix', () => {
  it('covers every role operation of the table, and no other', () => {
    expect(Object.keys(MATRIX).sort()).toEqual(roleOperations());
  });

  const cases = (Object.entries(MATRIX) as [RoleOperation, [boolean, boolean, boolean, Call]][]).flatMap(
    ([operation, [viewer, member, admin, call]]) =>
      (
        [
          ['viewer', viewer],
          ['member', member],
          ['admin', admin],
        ] as [Role, boolean][]
      ).map(([role, allowed]) => ({ operation, role, allowed, call })),
  );

  it.each(cases)('$operation as $role: allowed=$allowed', async ({ operation, role, allowed, call }) => {
    const project = (
      await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })
    ).id;
    // Each case has a listing with a history to read, revert, copy and approve.
    const edited = await org.admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      name: 'Weather Pro',
      subtitle: 'Rain',
      description: 'Forecasts.',
    });
    expect(edited.status).toBe(200);
    const history = await org.admin.api.get(`/api/v1/projects/${project}/listings/appstore/en-US/history`);
    const setup: Setup = {
      org,
      project,
      other: () => h.given.member(org, 'member'),
      historyId: history.body.data.entries[0].id,
    };
    const route = routes.get(operation);
    const changesState = route !== undefined && route.method !== 'GET' && !CHANGES_NOTHING.has(operation);
    const before = allowed && changesState ? await auditCount(operation, actors[role]) : 0;
    const caller = role === 'admin' && RECORDING ? recordingActor(actors.admin) : null;
    const res = await call(caller?.actor ?? actors[role], setup);
    expect(responses.check(operation, res.answered ?? res.status, res.body)).toBeNull();
    if (caller !== null && res.reachedValidationOnly !== true) {
      examples.record(operation, res.status, caller.lastBody(), res.body);
    }
    if (allowed) {
      expect(res.status, `${operation}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      // design.md §15: every state-changing operation writes an audit entry, naming the actor and,
      // for a project's operation, the project.
      if (changesState && res.reachedValidationOnly !== true) {
        expect(await auditCount(operation, actors[role]), `${operation} writes an audit entry`).toBe(
          before + 1,
        );
        const log = await org.admin.api.get(
          `/api/v1/organization/audit-log?action=${operation}&actor=${actors[role].id}&limit=1`,
        );
        const [entry] = log.body.data.entries;
        expect(entry.actor.name, operation).toEqual(expect.any(String));
        if (route.path.includes('{projectId}')) expect(entry.project?.id, operation).toBe(project);
      }
    } else {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect(res.body.error.message).toContain(operation);
    }
  });
});
