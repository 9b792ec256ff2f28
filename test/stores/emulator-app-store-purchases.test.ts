/**
 * In-app purchases, subscriptions and subscription groups in the App Store emulator
 * (stores-more.md §A, checklist 1–8, 13), called as a client of Apple's API calls them: the
 * products of an app, groups and their subscriptions, both metadata models (v1 on the
 * product, v2 on a draft version), duplicates, limits (unconfirmed ones as settings), attributes a
 * PATCH may not carry, the states that refuse writes, and one model per product. The emulator
 * checks every request and answer against Apple's OpenAPI document itself.
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
  emu.appStore.purchases.load(APP_ID, [
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
  ]);
  emu.appStore.purchases.load(
    APP_ID,
    [],
    [
      {
        id: 'group-plus',
        referenceName: 'Plus (reference)',
        localizations: { 'en-US': { name: 'Weather Plus', customAppName: 'Weather' } },
        subscriptions: [
          {
            id: 'sub-monthly',
            productId: 'com.example.plus.monthly',
            name: 'Plus monthly (reference)',
            localizations: { 'en-US': { name: 'Plus monthly', description: 'Radar every month' } },
          },
          {
            id: 'sub-yearly',
            productId: 'com.example.plus.yearly',
            name: 'Plus yearly (reference)',
            state: 'IN_REVIEW',
            subscriptionPeriod: 'ONE_YEAR',
            versions: [
              {
                id: 'yearly-v1',
                state: 'PREPARE_FOR_SUBMISSION',
                localizations: { 'en-US': { name: 'Plus yearly' } },
              },
            ],
          },
        ],
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
const createV1 = (purchase: string, attributes: Record<string, unknown>) =>
  call('POST', '/v1/inAppPurchaseLocalizations', {
    data: {
      type: 'inAppPurchaseLocalizations',
      attributes,
      relationships: { inAppPurchaseV2: { data: { type: 'inAppPurchases', id: purchase } } },
    },
  });
const patch = (model: 'v1' | 'v2', id: string, attributes: Record<string, unknown>) =>
  call('PATCH', `/${model}/inAppPurchaseLocalizations/${id}`, {
    data: { type: 'inAppPurchaseLocalizations', id, attributes },
  });
const v1Localizations = async (purchase: string) =>
  (await call('GET', `/v2/inAppPurchases/${purchase}/inAppPurchaseLocalizations`)).body.data as {
    id: string;
    attributes: { locale: string; name: string; state: string };
  }[];

describe('in-app purchases in the App Store emulator', () => {
  it('lists an app’s products with filters and paging', async () => {
    const all = await call('GET', `/v1/apps/${APP_ID}/inAppPurchasesV2?limit=2`);
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(2);
    expect(all.body.meta.paging.total).toBe(3);
    expect(all.body.links.next).toBeDefined();
    const one = await call('GET', `/v1/apps/${APP_ID}/inAppPurchasesV2?filter[productId]=com.example.pro`);
    expect(one.body.data.map((p: { id: string }) => p.id)).toEqual(['iap-pro']);
    expect(one.body.data[0].attributes.inAppPurchaseType).toBe('NON_CONSUMABLE');
    expect((await call('GET', `/v1/apps/${APP_ID}/inAppPurchasesV2?limit=201`)).status).toBe(400);
  });

  it('v1: edits and adds localizations on the product; duplicates, bad locales and long texts are refused', async () => {
    const [english] = (await v1Localizations('iap-coins')).filter((l) => l.attributes.locale === 'en-US');
    expect(english!.attributes.state).toBe('APPROVED');
    const edited = await patch('v1', english!.id, { name: '100 Gold Coins', description: 'A heap of gold' });
    expect(edited.status).toBe(200);
    expect(edited.body.data.attributes).toMatchObject({
      name: '100 Gold Coins',
      state: 'PREPARE_FOR_SUBMISSION',
    });

    const french = await createV1('iap-coins', {
      locale: 'fr-FR',
      name: '100 pièces',
      description: 'Des pièces',
    });
    expect(french.status).toBe(201);
    const duplicate = await createV1('iap-coins', { locale: 'fr-FR', name: 'Encore' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.errors[0]).toMatchObject({
      code: 'ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE',
      detail: "Entity with locale: 'fr-FR' already exists. Try updating.",
      source: { pointer: '/data/attributes/locale' },
    });
    expect((await createV1('iap-coins', { locale: 'fr', name: 'x' })).body.errors[0].code).toBe(
      'ENTITY_ERROR.ATTRIBUTE.INVALID',
    );
    const long = await patch('v1', english!.id, { name: 'x'.repeat(36) });
    expect(long.body.errors[0]).toMatchObject({
      code: 'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_LONG',
      source: { pointer: '/data/attributes/name' },
    });
    // The legacy limits and the description minimum, as settings.
    emu.appStore.purchases.rules.limits.inAppPurchase.name = 30;
    emu.appStore.purchases.rules.descriptionMin = 10;
    expect((await patch('v1', english!.id, { name: 'x'.repeat(31) })).status).toBe(409);
    expect((await patch('v1', english!.id, { description: 'short' })).body.errors[0].code).toBe(
      'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_SHORT',
    );
  });

  it('refuses what a PATCH may not carry, a wrong relationship, and writes while the product is in review', async () => {
    const [english] = await v1Localizations('iap-coins');
    const locale = await patch('v1', english!.id, { locale: 'fr-FR' });
    expect(locale.status).toBe(409);
    expect(locale.body.errors[0].source.pointer).toBe('/data/attributes/locale');
    const otherId = await call('PATCH', `/v1/inAppPurchaseLocalizations/${english!.id}`, {
      data: { type: 'inAppPurchaseLocalizations', id: 'someone-else', attributes: { name: 'x' } },
    });
    expect(otherId.status).toBe(409);
    // The relationship is inAppPurchaseV2 and its type inAppPurchases.
    const wrongType = await call('POST', '/v1/inAppPurchaseLocalizations', {
      data: {
        type: 'inAppPurchaseLocalizations',
        attributes: { locale: 'it', name: 'Monete' },
        relationships: { inAppPurchaseV2: { data: { type: 'inAppPurchasesV2', id: 'iap-coins' } } },
      },
    });
    expect(wrongType.status).toBe(409);
    const [review] = await v1Localizations('iap-review');
    const inReview = await patch('v1', review!.id, { name: 'Changed' });
    expect(inReview.status).toBe(409);
    expect(inReview.body.errors[0].code).toBe('STATE_ERROR');
  });

  it('v2: a new draft version starts with the texts in force; only a draft is written; one model per product', async () => {
    const versions = await call('GET', '/v2/inAppPurchases/iap-pro/versions');
    expect(versions.body.data.map((v: { attributes: { state: string } }) => v.attributes.state)).toEqual([
      'APPROVED',
    ]);
    const approved = (await call('GET', '/v1/inAppPurchaseVersions/pro-v1/localizations')).body.data;
    expect((await patch('v2', approved[0].id, { name: 'Pro+' })).body.errors[0].code).toBe('STATE_ERROR');

    const draft = await call('POST', '/v1/inAppPurchaseVersions', {
      data: {
        type: 'inAppPurchaseVersions',
        relationships: { inAppPurchase: { data: { type: 'inAppPurchases', id: 'iap-pro' } } },
      },
    });
    expect(draft.status).toBe(201);
    expect(draft.body.data.attributes).toEqual({ version: 2, state: 'PREPARE_FOR_SUBMISSION' });
    const draftId = draft.body.data.id as string;
    const copied = (await call('GET', `/v1/inAppPurchaseVersions/${draftId}/localizations`)).body.data;
    expect(copied.map((l: { attributes: object }) => l.attributes)).toEqual([
      { locale: 'en-US', name: 'Pro', description: 'Everything' },
    ]);
    expect((await patch('v2', copied[0].id, { name: 'Pro+' })).status).toBe(200);
    const added = await call('POST', '/v2/inAppPurchaseLocalizations', {
      data: {
        type: 'inAppPurchaseLocalizations',
        attributes: { locale: 'ja', name: 'プロ' },
        relationships: { version: { data: { type: 'inAppPurchaseVersions', id: draftId } } },
      },
    });
    expect(added.status).toBe(201);
    const second = await call('POST', '/v1/inAppPurchaseVersions', {
      data: {
        type: 'inAppPurchaseVersions',
        relationships: { inAppPurchase: { data: { type: 'inAppPurchases', id: 'iap-pro' } } },
      },
    });
    expect(second.status).toBe(409);

    // A product with versions takes no v1 writes.
    const v1 = await createV1('iap-pro', { locale: 'fr-FR', name: 'Pro' });
    expect(v1.status).toBe(409);
    expect(v1.body.errors[0].detail).toMatch(/uses versions/);
    // No PATCH or DELETE of a version exists.
    expect((await call('DELETE', `/v1/inAppPurchaseVersions/${draftId}`)).status).toBe(404);
    expect(emu.appStore.purchases.calls.filter((c) => c.startsWith('POST'))).toEqual([
      'POST /v1/inAppPurchaseVersions',
      'POST /v2/inAppPurchaseLocalizations',
      'POST /v1/inAppPurchaseVersions',
      'POST /v1/inAppPurchaseLocalizations',
    ]);
  });
});

describe('subscriptions and their groups in the App Store emulator', () => {
  it('lists groups and their subscriptions, and writes the texts of each with its own limits', async () => {
    const groups = await call('GET', `/v1/apps/${APP_ID}/subscriptionGroups`);
    expect(groups.body.data.map((g: { id: string; attributes: object }) => [g.id, g.attributes])).toEqual([
      ['group-plus', { referenceName: 'Plus (reference)' }],
    ]);
    const subscriptions = await call('GET', '/v1/subscriptionGroups/group-plus/subscriptions');
    expect(
      subscriptions.body.data.map((s: { attributes: { productId: string } }) => s.attributes.productId),
    ).toEqual(['com.example.plus.monthly', 'com.example.plus.yearly']);

    const groupTexts = (await call('GET', '/v1/subscriptionGroups/group-plus/subscriptionGroupLocalizations'))
      .body.data;
    expect(groupTexts[0].attributes).toEqual({
      locale: 'en-US',
      name: 'Weather Plus',
      customAppName: 'Weather',
      state: 'APPROVED',
    });
    const group = (attributes: Record<string, unknown>) =>
      call('PATCH', `/v1/subscriptionGroupLocalizations/${groupTexts[0].id}`, {
        data: { type: 'subscriptionGroupLocalizations', id: groupTexts[0].id, attributes },
      });
    expect((await group({ customAppName: 'Weather Pro' })).status).toBe(200);
    expect((await group({ customAppName: 'x'.repeat(31) })).body.errors[0].source.pointer).toBe(
      '/data/attributes/customAppName',
    );
    // A group has no description.
    expect((await group({ description: 'no' })).status).toBe(409);

    const created = await call('POST', '/v1/subscriptionLocalizations', {
      data: {
        type: 'subscriptionLocalizations',
        attributes: { locale: 'de-DE', name: 'Plus monatlich', description: 'Radar jeden Monat' },
        relationships: { subscription: { data: { type: 'subscriptions', id: 'sub-monthly' } } },
      },
    });
    expect(created.status).toBe(201);
    const wrongRelationship = await call('POST', '/v1/subscriptionLocalizations', {
      data: {
        type: 'subscriptionLocalizations',
        attributes: { locale: 'fr-FR', name: 'Plus' },
        relationships: { subscriptionGroup: { data: { type: 'subscriptionGroups', id: 'group-plus' } } },
      },
    });
    expect(wrongRelationship.status).toBe(409);
  });

  it('refuses a subscription’s texts while it is in review, even on its draft version', async () => {
    const versions = (await call('GET', '/v1/subscriptions/sub-yearly/versions')).body.data;
    expect(versions[0].attributes).toEqual({ version: 1, state: 'PREPARE_FOR_SUBMISSION' });
    const texts = (await call('GET', `/v1/subscriptionVersions/${versions[0].id}/localizations`)).body.data;
    const res = await call('PATCH', `/v2/subscriptionLocalizations/${texts[0].id}`, {
      data: { type: 'subscriptionLocalizations', id: texts[0].id, attributes: { name: 'Plus annual' } },
    });
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('STATE_ERROR');
    expect((await call('GET', '/v1/subscriptions/sub-yearly')).body.data.attributes).toMatchObject({
      state: 'IN_REVIEW',
      subscriptionPeriod: 'ONE_YEAR',
    });
  });
});
