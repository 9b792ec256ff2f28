/**
 * Product texts in translations (design.md §14, §17): units per product text in the XLIFF of a
 * locale (limits from the product table), an import checked as a whole and written with the
 * listings, outdated tracking against the source locale, machine drafts from the DeepL emulator
 * (benefits translated item by item) accepted into product texts, and the new locale pushed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness } from '../support/harness.js';

const DEEPL_KEY = 'products-deepl-key';
let emu: RunningEmulators;
let h: Harness;
let admin: Actor;

beforeAll(async () => {
  emu = await startEmulators({ deepl: { keys: [{ key: DEEPL_KEY }] } });
  h = await startHarness({ env: { ...emu.env, DEEPL_API_URL: emu.url } });
  admin = (await h.given.organization()).admin;
  await admin.api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: DEEPL_KEY });
  for (const store of ['appstore', 'playstore'] as const) {
    await admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
  }
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
});
beforeEach(() => {
  emu.restore();
  emu.appStore.purchases.load(APP_ID, [
    {
      id: 'iap-coins',
      productId: 'com.example.coins100',
      name: 'Coins 100 (reference)',
      localizations: { 'en-US': { name: '100 Coins', description: 'A pile of coins' } },
    },
  ]);
  const app = emu.play.apps.get(PACKAGE)!;
  app.subscriptions.set('plus', {
    packageName: PACKAGE,
    productId: 'plus',
    basePlans: [{ basePlanId: 'monthly', state: 'ACTIVE' }],
    listings: [{ languageCode: 'en-US', title: 'Plus', benefits: ['Radar', 'No ads'] }],
  });
});

const COINS = 'products.com.example.coins100';

async function syncedProject(): Promise<string> {
  const { id } = await h.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE });
  expect((await admin.api.post(`/api/v1/projects/${id}/sync`, {})).status).toBe(200);
  return id;
}
const xliff = (project: string, locale: string, body?: string) =>
  h.app.inject({
    method: body === undefined ? 'GET' : 'PUT',
    url: `/api/v1/projects/${project}/translations/${locale}.xlf`,
    headers: {
      authorization: `Bearer ${admin.apiKey}`,
      ...(body !== undefined && { 'content-type': 'application/xliff+xml' }),
    },
    ...(body !== undefined && { payload: body }),
  });
/** The unit's segment given a target (and the translated state). */
const translated = (xml: string, unit: string, target: string) =>
  xml.replace(
    new RegExp(
      `(<unit id="${unit.replace(/\./g, '\\.')}"[\\s\\S]*?)<segment state="initial">([\\s\\S]*?</source>)`,
    ),
    `$1<segment state="translated">$2<target>${target}</target>`,
  );
async function states(project: string): Promise<Record<string, string>> {
  const items = (await admin.api.get(`/api/v1/projects/${project}/translations`)).body.data.items;
  return Object.fromEntries(items.map((i: any) => [`${i.store}/${i.locale}/${i.field}`, i.state]));
}

describe('product texts in translations', () => {
  it('go out as XLIFF units with their limits and come back checked as a whole', async () => {
    const project = await syncedProject();
    const exported = await xliff(project, 'fr-FR');
    expect(exported.statusCode).toBe(200);
    const xml = exported.body;
    expect(xml).toMatch(new RegExp(`<unit id="${COINS}.name"[^>]*slr:sizeRestriction="35"`));
    expect(xml).toMatch(new RegExp(`<unit id="${COINS}.description"[^>]*slr:sizeRestriction="55"`));
    expect(xml).toContain('<unit id="products.plus.benefits"');
    expect(xml).toContain('At most 40 characters per line');

    const tooLong = translated(
      translated(xml, `${COINS}.name`, '100 pièces'),
      `${COINS}.description`,
      'Un très grand tas de pièces brillantes pour votre météo du jour',
    );
    const refused = await xliff(project, 'fr-FR', tooLong);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details).toEqual([
      expect.objectContaining({ field: `appstore/${COINS}.description`, limit: 55, length: 63 }),
    ]);
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.productChangeCount).toBe(0);

    const good = translated(
      translated(xml, `${COINS}.name`, '100 pièces'),
      `${COINS}.description`,
      'Un tas de pièces',
    );
    const imported = await xliff(project, 'fr-FR', good);
    expect(imported.statusCode, imported.body).toBe(200);
    const url = `/api/v1/projects/${project}/products/appstore/com.example.coins100/fr-FR`;
    const view = (await admin.api.get(url)).body.data;
    expect(view.fields.name).toMatchObject({ value: '100 pièces', base: null, state: 'modified' });
    const history = (await admin.api.get(`${url}/history`)).body.data.entries;
    expect(history.map((e: any) => e.source)).toEqual(['import', 'import']);
    expect((await states(project))[`appstore/fr-FR/${COINS}.name`]).toBe('current');

    // The source changes: its translation is outdated; the other text stays current.
    await admin.api.patch(`/api/v1/projects/${project}/products/appstore/com.example.coins100/en-US`, {
      name: 'Hundred Coins',
    });
    const after = await states(project);
    expect(after[`appstore/fr-FR/${COINS}.name`]).toBe('outdated');
    expect(after[`appstore/fr-FR/${COINS}.description`]).toBe('current');
  });

  it('get machine drafts (benefits item by item) that a member accepts and a push writes', async () => {
    const project = await syncedProject();
    const res = await admin.api.post(`/api/v1/projects/${project}/translations/machine`, {
      targetLocales: ['de-DE'],
      stores: ['playstore'],
      fields: ['products.plus.title', 'products.plus.benefits'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.errors).toEqual([]);
    expect(res.body.data.drafts.map((d: any) => d.field).sort()).toEqual([
      'products.plus.benefits',
      'products.plus.title',
    ]);
    const locale = (await admin.api.get(`/api/v1/projects/${project}/translations/de-DE`)).body.data;
    const benefits = locale.entries.find((e: any) => e.field === 'products.plus.benefits');
    expect(benefits).toMatchObject({
      state: 'draft',
      product: { productId: 'plus', kind: 'subscription', field: 'benefits' },
    });
    expect(benefits.draft.text.split('\n')).toHaveLength(2);
    // A draft is never pushed before it is accepted.
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.productChangeCount).toBe(0);

    const accepted = await admin.api.post(`/api/v1/projects/${project}/translations/de-DE/accept`, {});
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const url = `/api/v1/projects/${project}/products/playstore/plus/de-DE`;
    const view = (await admin.api.get(url)).body.data;
    expect(view.fields.benefits.value).toHaveLength(2);
    expect(view.fields.title.value).not.toBe('Plus ');
    expect((await admin.api.get(`${url}/history`)).body.data.entries[0].source).toBe('translation');
    expect((await states(project))['playstore/de-DE/products.plus.title']).toBe('current');

    const push = await admin.api.post(`/api/v1/projects/${project}/push`, { include: ['products'] });
    expect(push.body.data.failures).toEqual([]);
    const listing = emu.play.apps
      .get(PACKAGE)!
      .subscriptions.get('plus')!
      .listings.find((l) => l.languageCode === 'de-DE');
    expect(listing).toEqual({
      languageCode: 'de-DE',
      title: view.fields.title.value,
      benefits: view.fields.benefits.value,
    });
  });
});
