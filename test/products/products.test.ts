/**
 * In-app purchases and subscriptions end to end against both emulators (design.md §17,
 * stores-more.md §A): products of both stores synced with their texts (Apple's two metadata
 * models side by side), edited in several locales with every over-limit text refused at once
 * before any store call, bound into the diff and its approval, pushed as exactly the changed texts
 * (the emulators' call logs compared), reverted, merged three-way with a conflict, and a store's
 * refusal of one product leaving the others written.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { createTestDatabase } from '../support/databases.js';
import { startHarness, type Actor, type Harness } from '../support/harness.js';

let emu: RunningEmulators;
let h: Harness;
let admin: Actor;

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ env: emu.env });
  admin = (await h.given.organization()).admin;
  for (const store of ['appstore', 'playstore'] as const) {
    const res = await admin.api.request(
      'PUT',
      `/api/v1/organization/credentials/${store}`,
      emu.credentials[store],
    );
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
});

beforeEach(() => {
  emu.restore();
  emu.appStore.purchases.load(
    APP_ID,
    [
      {
        id: 'iap-coins',
        productId: 'com.example.coins100',
        name: 'Coins 100 (reference)',
        localizations: {
          'en-US': { name: '100 Coins', description: 'A pile of coins' },
          'de-DE': { name: '100 Münzen', description: 'Ein Haufen Münzen' },
        },
      },
      {
        id: 'iap-pro',
        productId: 'com.example.pro',
        name: 'Pro (reference)',
        inAppPurchaseType: 'NON_CONSUMABLE',
        versions: [
          {
            id: 'pro-v1',
            state: 'APPROVED',
            localizations: { 'en-US': { name: 'Pro', description: 'Everything' } },
          },
        ],
      },
      {
        id: 'iap-review',
        productId: 'com.example.review',
        name: 'In review',
        state: 'IN_REVIEW',
        localizations: { 'en-US': { name: 'Review' } },
      },
    ],
    [
      {
        id: 'group-plus',
        referenceName: 'Plus',
        localizations: { 'en-US': { name: 'Weather Plus', customAppName: 'Weather' } },
        subscriptions: [
          {
            id: 'sub-monthly',
            productId: 'com.example.plus.monthly',
            name: 'Plus monthly (reference)',
            localizations: { 'en-US': { name: 'Plus monthly', description: 'Radar every month' } },
          },
        ],
      },
    ],
  );
  const app = emu.play.apps.get(PACKAGE)!;
  app.inAppProducts.set('coins_100', {
    packageName: PACKAGE,
    sku: 'coins_100',
    status: 'active',
    purchaseType: 'managedUser',
    defaultLanguage: app.defaultLanguage,
    listings: { [app.defaultLanguage]: { title: '100 coins', description: 'A bag of coins' } },
  });
  app.subscriptions.set('plus', {
    packageName: PACKAGE,
    productId: 'plus',
    basePlans: [{ basePlanId: 'monthly', state: 'ACTIVE' }],
    listings: [{ languageCode: app.defaultLanguage, title: 'Plus', benefits: ['Radar', 'No ads'] }],
  });
});

const newProject = async () =>
  (await h.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })).id;
const productUrl = (project: string, store: string, productId: string, locale: string) =>
  `/api/v1/projects/${project}/products/${store}/${encodeURIComponent(productId)}/${locale}`;
/** The store writes the emulators saw, both stores' products. */
const productWrites = () => [
  ...emu.appStore.purchases.calls.filter((c) => !c.startsWith('GET')),
  ...emu.play.productCalls.filter((c) => !c.startsWith('GET')),
];

async function synced(project: string) {
  const res = await admin.api.post(`/api/v1/projects/${project}/sync`, {});
  expect(res.status).toBe(200);
  return res.body.data;
}

describe('products', () => {
  it('syncs both stores’ products with their texts, the two Apple models side by side', async () => {
    const project = await newProject();
    const sync = await synced(project);
    expect(sync.appStore).toMatchObject({ synced: true, products: 5 });
    expect(sync.playStore).toMatchObject({ synced: true, products: 2 });

    const list = (await admin.api.get(`/api/v1/projects/${project}/products`)).body.data;
    const byId = Object.fromEntries(list.products.map((p: any) => [`${p.store}/${p.productId}`, p]));
    expect(Object.keys(byId).sort()).toEqual([
      'appstore/com.example.coins100',
      'appstore/com.example.plus.monthly',
      'appstore/com.example.pro',
      'appstore/com.example.review',
      'appstore/group:Plus',
      'playstore/coins_100',
      'playstore/plus',
    ]);
    expect(byId['appstore/com.example.coins100']).toMatchObject({
      kind: 'inAppPurchase',
      referenceName: 'Coins 100 (reference)',
      locales: { 'de-DE': { name: '100 Münzen', description: 'Ein Haufen Münzen' } },
      pending: 0,
    });
    expect(byId['appstore/com.example.coins100'].states).toEqual({
      'de-DE': 'unchanged',
      'en-US': 'unchanged',
    });
    // The version model: texts of the newest version.
    expect(byId['appstore/com.example.pro'].locales).toEqual({
      'en-US': { name: 'Pro', description: 'Everything' },
    });
    expect(byId['appstore/group:Plus']).toMatchObject({
      kind: 'subscriptionGroup',
      locales: { 'en-US': { name: 'Weather Plus', customAppName: 'Weather' } },
    });
    expect(byId['playstore/plus']).toMatchObject({
      kind: 'subscription',
      state: 'active',
      locales: { 'en-US': { title: 'Plus', benefits: ['Radar', 'No ads'] } },
    });
    expect(list.limits.playstore.subscription.benefits).toMatchObject({ max: 40, list: { maxItems: 4 } });
    // Reading writes nothing in either store.
    expect(productWrites()).toEqual([]);
  });

  it('refuses every over-limit text at once before any store call, with limit and length', async () => {
    const project = await newProject();
    await synced(project);
    emu.restore();
    const refused = await admin.api.patch(productUrl(project, 'playstore', 'plus', 'en-US'), {
      title: 'T'.repeat(56),
      description: 'D'.repeat(81),
      benefits: ['One', 'Two', 'Three', 'Four', 'Five'],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([
      { field: 'title', message: 'must be at most 55 characters (has 56)', limit: 55, length: 56 },
      { field: 'description', message: 'must be at most 80 characters (has 81)', limit: 80, length: 81 },
      { field: 'benefits', message: 'takes at most 4 items (has 5)', limit: 4, length: 5 },
    ]);
    const required = await admin.api.patch(productUrl(project, 'appstore', 'com.example.coins100', 'fr-FR'), {
      description: 'Des pièces',
    });
    expect(required.status).toBe(400);
    expect(required.body.error.details[0]).toMatchObject({ field: 'name' });
    const unknown = await admin.api.patch(productUrl(project, 'appstore', 'com.example.coins100', 'en-US'), {
      title: 'Coins',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0]).toMatchObject({ field: 'title' });
    const missing = await admin.api.patch(productUrl(project, 'appstore', 'com.example.nope', 'en-US'), {
      name: 'X',
    });
    expect(missing.status).toBe(404);
    expect(emu.calls).toEqual([]);
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.productChangeCount).toBe(0);
  });

  it('pushes exactly the changed texts after approval, isolates a refused product, and reverts', async () => {
    const org = await h.given.organization();
    for (const store of ['appstore', 'playstore'] as const) {
      await org.admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
    }
    await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    const project = (
      await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })
    ).id;
    const api = (await h.given.member(org, 'member')).api;
    expect((await api.post(`/api/v1/projects/${project}/sync`, {})).status).toBe(200);

    const edits: [string, string, string, Record<string, unknown>][] = [
      ['appstore', 'com.example.coins100', 'en-US', { description: 'A big pile of coins' }],
      ['appstore', 'com.example.coins100', 'fr-FR', { name: '100 pièces', description: 'Un tas de pièces' }],
      ['appstore', 'com.example.pro', 'en-US', { name: 'Pro forever' }],
      ['appstore', 'com.example.review', 'en-US', { name: 'Reviewed' }],
      ['appstore', 'group:Plus', 'en-US', { customAppName: null }],
      ['playstore', 'coins_100', 'en-US', { title: 'A hundred coins' }],
      ['playstore', 'plus', 'en-US', { benefits: ['Radar', 'No ads', 'Widgets'] }],
    ];
    for (const [store, productId, locale, fields] of edits) {
      const res = await api.patch(productUrl(project, store, productId, locale), fields);
      expect(res.status, `${store}/${productId}/${locale}`).toBe(200);
    }

    const diff = (await api.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(diff.productChangeCount).toBe(8);
    expect(diff.counts).toMatchObject({ appstore: { products: 6 }, playstore: { products: 2 } });
    expect(diff.products.playstore.plus['en-US'].benefits).toEqual({
      old: 'Radar\nNo ads',
      new: 'Radar\nNo ads\nWidgets',
    });
    const refused = await api.post(`/api/v1/projects/${project}/push`, {});
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('APPROVAL_REQUIRED');

    const dry = (await api.post(`/api/v1/projects/${project}/push`, { dryRun: true, store: 'playstore' }))
      .body.data;
    expect(dry.productChangeCount).toBe(2);
    expect(dry.counts).toEqual({
      playstore: { fields: 0, media: 0, releaseNotes: 0, products: 2, removedLocales: 0 },
    });

    const approval = await org.admin.api.post(`/api/v1/projects/${project}/approvals`);
    expect(approval.status).toBe(201);
    expect(approval.body.data.hash).toBe(diff.hash);
    emu.appStore.purchases.calls.length = 0;
    emu.play.productCalls.length = 0;
    const push = await api.post(`/api/v1/projects/${project}/push`, { include: ['products'] });
    expect(push.status).toBe(200);
    const result = push.body.data;
    // The product in review is refused by App Store Connect; every other product is written.
    expect(result.failures).toEqual([
      {
        store: 'appstore',
        locale: 'en-US',
        field: 'products.com.example.review.name',
        error: expect.objectContaining({ code: 'STATE_ERROR' }),
      },
    ]);
    expect(result.appStore).toMatchObject({ pushed: false, products: 3 });
    expect(result.playStore).toMatchObject({ pushed: true, products: 2 });
    // Exactly the changed texts, one call each (the refused one tried once); the ids are the emulator's.
    const normalized = productWrites().map((c) => c.replace(/Localizations\/[\w-]+$/, 'Localizations/:id'));
    expect(normalized.sort()).toEqual(
      [
        'PATCH /v1/inAppPurchaseLocalizations/:id', // coins en-US description
        'PATCH /v1/inAppPurchaseLocalizations/:id', // review en-US: refused (IN_REVIEW)
        'POST /v1/inAppPurchaseLocalizations', // coins fr-FR, a new locale
        'POST /v1/inAppPurchaseVersions', // pro: a draft version to write into
        'PATCH /v2/inAppPurchaseLocalizations/:id', // pro en-US name, on the draft
        'PATCH /v1/subscriptionGroupLocalizations/:id', // group: custom app name cleared
        'PUT inappproducts/coins_100',
        'PATCH subscriptions/plus',
      ].sort(),
    );

    // The operation's progress counts the products written and refused.
    const [operation] = (await api.get(`/api/v1/projects/${project}/operations`)).body.data.operations;
    expect(operation.progress.products).toEqual({ done: 5, failed: 1, total: 6 });
    expect(operation.progress.stores.appstore.products).toEqual({ done: 3, failed: 1, total: 4 });

    // What the stores now hold.
    const coins = emu.appStore.purchases.localizationsOf('v1', 'iap-coins');
    expect(Object.fromEntries(coins.map((l) => [l.locale, l.texts]))).toEqual({
      'en-US': { name: '100 Coins', description: 'A big pile of coins' },
      'de-DE': { name: '100 Münzen', description: 'Ein Haufen Münzen' },
      'fr-FR': { name: '100 pièces', description: 'Un tas de pièces' },
    });
    const proVersions = emu.appStore.purchases.versionsOf('iap-pro');
    expect(proVersions.map((v) => v.state)).toEqual(['APPROVED', 'PREPARE_FOR_SUBMISSION']);
    expect(emu.appStore.purchases.localizationsOf('v2', proVersions[1]!.id)[0]!.texts).toEqual({
      name: 'Pro forever',
      description: 'Everything',
    });
    const play = emu.play.apps.get(PACKAGE)!;
    expect(play.inAppProducts.get('coins_100')!.listings['en-US']).toEqual({
      title: 'A hundred coins',
      description: 'A bag of coins',
    });
    expect(play.subscriptions.get('plus')!.listings[0]!.benefits).toEqual(['Radar', 'No ads', 'Widgets']);

    // Only the refused text is still pending.
    const after = (await api.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(after.productChangeCount).toBe(1);
    expect(Object.keys(after.products.appstore)).toEqual(['com.example.review']);

    // Revert: the fr-FR name back to nothing would clear a required text — refused; en-US description goes back.
    const url = productUrl(project, 'appstore', 'com.example.coins100', 'en-US');
    const history = (await api.get(`${url}/history`)).body.data.entries;
    expect(history[0]).toMatchObject({
      field: 'description',
      old: 'A pile of coins',
      new: 'A big pile of coins',
      source: 'edit',
    });
    const reverted = await api.post(`/api/v1/projects/${project}/products/revert`, {
      historyId: history[0].id,
    });
    expect(reverted.status).toBe(200);
    expect(reverted.body.data.fields.description).toMatchObject({
      value: 'A pile of coins',
      base: 'A big pile of coins',
      state: 'modified',
    });
    const frHistory = (
      await api.get(`${productUrl(project, 'appstore', 'com.example.coins100', 'fr-FR')}/history`)
    ).body.data.entries;
    const frName = frHistory.find((e: any) => e.field === 'name');
    const clear = await api.post(`/api/v1/projects/${project}/products/revert`, { historyId: frName.id });
    expect(clear.status).toBe(400);
    expect(clear.body.error.details[0]).toMatchObject({ field: 'historyId' });
  });

  it('merges a store change three-way: an untouched text follows, an edited one becomes a conflict', async () => {
    const project = await newProject();
    await synced(project);
    await admin.api.patch(productUrl(project, 'playstore', 'coins_100', 'en-US'), { title: 'Our coins' });
    const play = emu.play.apps.get(PACKAGE)!;
    play.inAppProducts.get('coins_100')!.listings['en-US'] = {
      title: 'Their coins',
      description: 'A new bag',
    };
    const sync = await synced(project);
    expect(sync.conflicts).toEqual([
      {
        store: 'playstore',
        locale: 'en-US',
        field: 'products.coins_100.title',
        localValue: 'Our coins',
        storeValue: 'Their coins',
      },
    ]);
    const view = (await admin.api.get(productUrl(project, 'playstore', 'coins_100', 'en-US'))).body.data;
    expect(view.fields.title).toMatchObject({
      value: 'Our coins',
      state: 'conflict',
      storeValue: 'Their coins',
    });
    expect(view.fields.description).toMatchObject({
      value: 'A new bag',
      base: 'A new bag',
      state: 'unchanged',
    });
    const listed = (await admin.api.get(`/api/v1/projects/${project}/products?store=playstore`)).body.data
      .products;
    expect(listed.find((p: any) => p.productId === 'coins_100')).toMatchObject({
      states: { 'en-US': 'conflict' },
      pending: 1,
    });
    // A conflict is left out of a push, said as such, and nothing is written.
    emu.play.productCalls.length = 0;
    const push = (await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'playstore' })).body.data;
    expect(push.failures).toEqual([
      expect.objectContaining({
        locale: 'en-US',
        field: 'products.coins_100.title',
        error: expect.objectContaining({ code: 'CONFLICT' }),
      }),
    ]);
    expect(emu.play.productCalls).toEqual([]);
    // A product gone from the store goes from here.
    play.subscriptions.delete('plus');
    await synced(project);
    const list = (await admin.api.get(`/api/v1/projects/${project}/products?store=playstore`)).body.data
      .products;
    expect(list.map((p: any) => p.productId)).toEqual(['coins_100']);
  });
});

describe('products over MCP', () => {
  it('lists, edits (limits checked as REST does) and previews a push of products', async () => {
    const project = await newProject();
    await synced(project);
    const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const client = new Client({ name: 'appmeta-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${admin.apiKey}` } },
      }),
    );
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args });
        return { isError: result.isError === true, data: result.structuredContent as any, result };
      };
      const listed = await call('list_products', { projectId: project, store: 'playstore' });
      expect(listed.data.products.map((p: any) => p.productId)).toEqual(['coins_100', 'plus']);
      const key = { projectId: project, store: 'playstore', productId: 'plus', locale: 'de-DE' };
      const refused = await call('update_product', {
        ...key,
        fields: { title: 'x'.repeat(60), benefits: ['Radar'] },
      });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.result.content)).toContain(
        'title: must be at most 55 characters (has 60)',
      );
      const written = await call('update_product', {
        ...key,
        fields: { title: 'Plus', benefits: ['Radar'] },
      });
      expect(written.isError).toBe(false);
      expect(written.data.fields.benefits).toMatchObject({ value: ['Radar'], base: null, state: 'modified' });
      const dry = await call('push_project', { projectId: project, dryRun: true, include: ['products'] });
      expect(dry.data).toMatchObject({ productChangeCount: 2, changeCount: 0 });
      expect(dry.data.products.playstore.plus['de-DE']).toEqual({
        title: { old: null, new: 'Plus' },
        benefits: { old: null, new: 'Radar' },
      });
      const history = await call('get_product_history', key);
      expect(history.data.entries.map((e: any) => e.field).sort()).toEqual(['benefits', 'title']);
    } finally {
      await client.close();
    }
  });
});

describe('the limit table', () => {
  it('takes an instance’s own value for an unconfirmed limit, and says it in GET /products', async () => {
    const strict = await startHarness({
      env: { ...emu.env, APPMETA_PRODUCT_LIMITS: '{"appstore.inAppPurchase.name.max":30}' },
    });
    try {
      const owner = (await strict.given.organization()).admin;
      await owner.api.request('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore);
      const { id } = await strict.given.project(owner, { appStoreAppId: APP_ID });
      await owner.api.post(`/api/v1/projects/${id}/sync`, { include: ['products'] });
      const limits = (await owner.api.get(`/api/v1/projects/${id}/products`)).body.data.limits;
      expect(limits.appstore.inAppPurchase.name).toMatchObject({ max: 30, confirmed: false });
      const url = productUrl(id, 'appstore', 'com.example.coins100', 'en-US');
      const refused = await owner.api.patch(url, { name: 'x'.repeat(31) });
      expect(refused.body.error.details).toEqual([
        { field: 'name', message: 'must be at most 30 characters (has 31)', limit: 30, length: 31 },
      ]);
      expect((await owner.api.patch(url, { name: 'x'.repeat(30) })).status).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('a limit lowered after the edit', () => {
  it('leaves the text out of the push as INVALID_TEXT, before any store call', async () => {
    // One database, served first with the default table (35), then by an instance whose table says 30.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-limits-'));
    const database = await createTestDatabase({ file: path.join(dir, 'limits.db') });
    let loose: Harness | undefined = await startHarness({ env: emu.env, database });
    let strict: Harness | undefined;
    try {
      const owner = (await loose.given.organization()).admin;
      await owner.api.request('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore);
      const { id } = await loose.given.project(owner, { appStoreAppId: APP_ID });
      await owner.api.post(`/api/v1/projects/${id}/sync`, { include: ['products'] });
      const url = productUrl(id, 'appstore', 'com.example.coins100', 'en-US');
      expect((await owner.api.patch(url, { name: 'x'.repeat(33) })).status).toBe(200);
      await loose.close();
      loose = undefined;
      strict = await startHarness({
        env: { ...emu.env, APPMETA_PRODUCT_LIMITS: '{"appstore.inAppPurchase.name.max":30}' },
        database,
      });
      emu.appStore.purchases.calls.length = 0;
      const push = await strict.client(owner.apiKey).post(`/api/v1/projects/${id}/push`, {
        include: ['products'],
      });
      expect(push.body.data?.failures, JSON.stringify(push.body)).toEqual([
        {
          store: 'appstore',
          locale: 'en-US',
          field: 'products.com.example.coins100.name',
          error: { code: 'INVALID_TEXT', message: 'name must be at most 30 characters (has 33)' },
        },
      ]);
      expect(emu.appStore.purchases.calls).toEqual([]);
    } finally {
      await loose?.close();
      await strict?.close();
      await database.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('cross-store copy', () => {
  it('copies a product’s texts into its counterpart, mapping fields, refusing what does not fit', async () => {
    const project = await newProject();
    await synced(project);
    const copy = (body: unknown) => admin.api.post(`/api/v1/projects/${project}/products/copy`, body);
    const unmatched = await copy({ from: { store: 'appstore', productId: 'com.example.coins100' } });
    expect(unmatched.status).toBe(404);
    expect(unmatched.body.error.message).toContain('to.productId');
    const group = await copy({
      from: { store: 'appstore', productId: 'group:Plus' },
      to: { productId: 'plus' },
    });
    expect(group.status).toBe(400);
    const mismatch = await copy({
      from: { store: 'appstore', productId: 'com.example.plus.monthly' },
      to: { productId: 'coins_100' },
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.details[0].field).toBe('to.productId');

    // Linked once, the counterpart is found without being named (and the link survives a sync).
    const linkUrl = `/api/v1/projects/${project}/products/appstore/com.example.coins100/link`;
    const wrongKind = await admin.api.request('PUT', linkUrl, { productId: 'plus' });
    expect(wrongKind.status).toBe(400);
    expect((await admin.api.request('PUT', linkUrl, { productId: 'coins_100' })).status).toBe(200);
    await synced(project);
    const listed = (await admin.api.get(`/api/v1/projects/${project}/products`)).body.data.products;
    expect(
      listed
        .filter((p: any) => p.linkedProductId !== null)
        .map((p: any) => [p.store, p.productId, p.linkedProductId]),
    ).toEqual([
      ['appstore', 'com.example.coins100', 'coins_100'],
      ['playstore', 'coins_100', 'com.example.coins100'],
    ]);
    const copied = await copy({ from: { store: 'appstore', productId: 'com.example.coins100' } });
    expect(copied.status, JSON.stringify(copied.body)).toBe(200);
    expect(copied.body.data.copied).toEqual([
      { from: 'de-DE', to: 'de-DE' },
      { from: 'en-US', to: 'en-US' },
    ]);
    const german = (await admin.api.get(productUrl(project, 'playstore', 'coins_100', 'de-DE'))).body.data
      .fields;
    expect(german.title).toMatchObject({ value: '100 Münzen', base: null, state: 'modified' });
    expect(german.description).toMatchObject({ value: 'Ein Haufen Münzen' });
    const history = (await admin.api.get(`${productUrl(project, 'playstore', 'coins_100', 'de-DE')}/history`))
      .body.data;
    expect(history.entries.map((e: any) => e.source)).toEqual(['copy', 'copy']);

    // Google Play's 55 characters do not fit Apple's 35: refused, never cut, and nothing written.
    await admin.api.patch(productUrl(project, 'playstore', 'coins_100', 'fr-FR'), {
      title: 'Cent pièces '.repeat(4).trim(),
    });
    const tooLong = await copy({
      from: { store: 'playstore', productId: 'coins_100' },
      to: { productId: 'com.example.coins100' },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.details).toEqual([
      { field: 'texts.fr-FR.name', message: 'must be at most 35 characters (has 47)', limit: 35, length: 47 },
    ]);
    const apple = (await admin.api.get(productUrl(project, 'appstore', 'com.example.coins100', 'en-US'))).body
      .data;
    expect(apple.fields.name.state).toBe('unchanged');
  });
});

describe('drift', () => {
  it('notices a product text changed in a store console, and a product added there', async () => {
    const project = await newProject();
    await synced(project);
    const play = emu.play.apps.get(PACKAGE)!;
    play.inAppProducts.get('coins_100')!.listings['en-US']!.title = 'Coins from the console';
    play.inAppProducts.set('gems', {
      packageName: PACKAGE,
      sku: 'gems',
      status: 'active',
      purchaseType: 'managedUser',
      defaultLanguage: play.defaultLanguage,
      listings: { 'en-US': { title: 'Gems' } },
    });
    await h.services.drift.check(project, pino({ level: 'silent' }));
    const drift = (await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.storeDrift;
    expect(drift.map((d: any) => [d.store, d.locale, d.field, d.base, d.storeValue])).toEqual([
      ['playstore', 'en-US', 'products.coins_100.title', '100 coins', 'Coins from the console'],
      ['playstore', 'en-US', 'products.gems.*', null, null],
    ]);
    // A sync takes both in, and the drift is gone.
    await synced(project);
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.storeDrift).toEqual([]);
  });
});
