/**
 * The Google Play emulator's products (stores-more.md §A6, §A7, checklist 14–19, 21), as a client
 * of Google's API calls them: live writes outside edits, token and page-size paging, the listing
 * limits (the unconfirmed ones as settings), the default-language rule, update masks, and the
 * routes the pinned revision does not have. Every request and answer is checked against Google's
 * discovery document by the emulator itself.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googleToken, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';

let emu: RunningEmulators;
let token: string;

beforeAll(async () => {
  emu = await startEmulators();
});
afterAll(() => emu.close());
beforeEach(async () => {
  emu.restore();
  const app = emu.play.apps.get(PACKAGE)!;
  for (const sku of ['coins_100', 'coins_500', 'remove_ads']) {
    app.inAppProducts.set(sku, {
      packageName: PACKAGE,
      sku,
      status: 'active',
      purchaseType: 'managedUser',
      defaultLanguage: 'en-US',
      listings: { 'en-US': { title: `Title ${sku}`, description: `Description of ${sku}` } },
    });
  }
  app.subscriptions.set('premium', {
    packageName: PACKAGE,
    productId: 'premium',
    listings: [
      { languageCode: 'en-US', title: 'Premium', description: 'Radar and alerts', benefits: ['Radar'] },
    ],
  });
  token = await googleToken(emu);
});

const api = `/androidpublisher/v3/applications/${PACKAGE}`;
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

describe('Google Play one-time products in the emulator', () => {
  it('lists in pages of its own size by token, ignoring maxResults, and never sets pageInfo', async () => {
    emu.play.productRules.inAppPageSize = 2;
    const first = await call('GET', `${api}/inappproducts?maxResults=50`);
    expect(first.status).toBe(200);
    expect(first.body.inappproduct.map((p: { sku: string }) => p.sku)).toEqual(['coins_100', 'coins_500']);
    expect(first.body.pageInfo).toBeUndefined();
    const token = first.body.tokenPagination.nextPageToken as string;
    const second = await call('GET', `${api}/inappproducts?token=${token}`);
    expect(second.body.inappproduct.map((p: { sku: string }) => p.sku)).toEqual(['remove_ads']);
    expect(second.body.tokenPagination).toBeUndefined();
  });

  it('writes live, outside any edit: PUT replaces, PATCH merges, both checked against the limits', async () => {
    const current = (await call('GET', `${api}/inappproducts/coins_100`)).body;
    const put = await call('PUT', `${api}/inappproducts/coins_100`, {
      ...current,
      listings: { ...current.listings, 'de-DE': { title: 'Münzen', description: '100 Münzen' } },
    });
    expect(put.status).toBe(200);
    expect((await call('GET', `${api}/inappproducts/coins_100`)).body.listings['de-DE'].title).toBe('Münzen');
    expect(emu.play.counters.editsInserted).toBe(0);

    const long = await call('PATCH', `${api}/inappproducts/coins_100`, {
      listings: { 'en-US': { title: 'x'.repeat(56), description: 'ok' } },
    });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toMatch(/Title for language en-US is too long \(max 55/);
    const tooLongDescription = await call('PATCH', `${api}/inappproducts/coins_100`, {
      listings: { 'en-US': { title: 'ok', description: 'x'.repeat(201) } },
    });
    expect(tooLongDescription.body.error.message).toMatch(/Description for language en-US is too long/);
    // The 2017 limit, as a setting.
    emu.play.productRules.inAppDescription = 80;
    const older = await call('PATCH', `${api}/inappproducts/coins_100`, {
      listings: { 'en-US': { title: 'ok', description: 'x'.repeat(81) } },
    });
    expect(older.status).toBe(400);
  });

  it('refuses a product without its default-language listing, an unknown SKU, a subscription, a bad language', async () => {
    const noDefault = await call('PATCH', `${api}/inappproducts/coins_100`, {
      listings: { 'de-DE': { title: 'Münzen' } },
    });
    expect(noDefault.status).toBe(400);
    expect(noDefault.body.error.message).toBe('Missing listing for the default language en-US.');
    expect((await call('PUT', `${api}/inappproducts/nope`, { sku: 'nope' })).status).toBe(404);
    const created = await call('PUT', `${api}/inappproducts/gems?allowMissing=true`, {
      sku: 'gems',
      listings: { 'en-US': { title: 'Gems' } },
    });
    expect(created.status).toBe(200);
    const subscription = await call('PATCH', `${api}/inappproducts/coins_100`, {
      purchaseType: 'subscription',
    });
    expect(subscription.status).toBe(400);
    const language = await call('PATCH', `${api}/inappproducts/coins_100`, {
      listings: { 'en-US': { title: 'a' }, xx: { title: 'b' } },
    });
    expect(language.body.error.message).toBe('Invalid language code: xx');
    // Not a field of Google's schema: refused as Google refuses an unknown field.
    const unknown = await call('PATCH', `${api}/inappproducts/coins_100`, { colour: 'red' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.status).toBe('INVALID_ARGUMENT');
  });
});

describe('Google Play subscriptions in the emulator', () => {
  const listing = (languageCode: string, more: Record<string, unknown> = {}) => ({
    languageCode,
    title: 'Premium',
    description: 'Radar and alerts',
    ...more,
  });
  const patch = (body: unknown, query = 'updateMask=listings&regionsVersion.version=2022/02') =>
    call('PATCH', `${api}/subscriptions/premium?${query}`, body);

  it('pages by pageSize (at most 1000) and pageToken', async () => {
    const app = emu.play.apps.get(PACKAGE)!;
    for (const id of ['annual', 'monthly'])
      app.subscriptions.set(id, { packageName: PACKAGE, productId: id, listings: [listing('en-US')] });
    const first = await call('GET', `${api}/subscriptions?pageSize=2`);
    expect(first.body.subscriptions.map((s: { productId: string }) => s.productId)).toEqual([
      'annual',
      'monthly',
    ]);
    const rest = await call('GET', `${api}/subscriptions?pageSize=2&pageToken=${first.body.nextPageToken}`);
    expect(rest.body.subscriptions.map((s: { productId: string }) => s.productId)).toEqual(['premium']);
    expect(rest.body.nextPageToken).toBeUndefined();
    expect((await call('GET', `${api}/subscriptions?pageSize=5000`)).body.subscriptions).toHaveLength(3);
  });

  it('replaces the listings by update mask, and checks each against the limits and the default language', async () => {
    const ok = await patch({ listings: [listing('en-US'), listing('fr-FR', { title: 'Premium FR' })] });
    expect(ok.status).toBe(200);
    expect(ok.body.listings.map((l: { languageCode: string }) => l.languageCode)).toEqual(['en-US', 'fr-FR']);

    const refusals: [unknown, RegExp][] = [
      [{ listings: [listing('en-US', { description: 'x'.repeat(81) })] }, /Description .* too long \(max 80/],
      [{ listings: [listing('en-US', { benefits: ['a', 'b', 'c', 'd', 'e'] })] }, /At most 4 benefits/],
      [{ listings: [listing('en-US', { benefits: ['x'.repeat(41)] })] }, /A benefit .* too long \(max 40/],
      [{ listings: [listing('en-US', { title: '' })] }, /listings.title is required/],
      [{ listings: [listing('fr-FR')] }, /Missing listing for the default language en-US/],
      [{ listings: [listing('en-US'), listing('en-US')] }, /Duplicate listing for language en-US/],
    ];
    for (const [body, message] of refusals) {
      const res = await patch(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
    expect(
      (await call('GET', `${api}/subscriptions/premium`)).body.listings.map(
        (l: { title: string }) => l.title,
      ),
    ).toEqual(['Premium', 'Premium FR']);
  });

  it('needs updateMask and regionsVersion.version; allowMissing creates; onetimeproducts does not exist', async () => {
    const body = { listings: [listing('en-US')] };
    expect((await patch(body, 'regionsVersion.version=2022/02')).body.error.message).toBe(
      'updateMask is required.',
    );
    expect((await patch(body, 'updateMask=listings')).body.error.message).toBe(
      'regionsVersion.version is required.',
    );
    expect(
      (
        await call(
          'PATCH',
          `${api}/subscriptions/pro?updateMask=listings&regionsVersion.version=2022/02`,
          body,
        )
      ).status,
    ).toBe(404);
    const created = await call(
      'PATCH',
      `${api}/subscriptions/pro?allowMissing=true&regionsVersion.version=2022/02`,
      { productId: 'pro', ...body },
    );
    expect(created.status).toBe(200);
    expect((await call('GET', `${api}/oneTimeProducts`)).status).toBe(404);
    expect(emu.play.productCalls.at(-1)).toBe('PATCH subscriptions/pro');
  });
});

describe('Google Play batch product routes and deletes in the emulator', () => {
  it('batch-gets and batch-updates up to 100 different products, checked whole before any change', async () => {
    const got = await call('GET', `${api}/inappproducts:batchGet?sku=coins_500&sku=coins_100`);
    expect(got.status).toBe(200);
    expect(got.body.inappproduct.map((p: { sku: string }) => p.sku)).toEqual(['coins_500', 'coins_100']);
    const twice = await call('GET', `${api}/inappproducts:batchGet?sku=coins_100&sku=coins_100`);
    expect(twice.status).toBe(400);
    expect(twice.body.error.status).toBe('INVALID_ARGUMENT');
    const tooMany = Array.from({ length: 101 }, (_, i) => `sku=s${i}`).join('&');
    expect((await call('GET', `${api}/inappproducts:batchGet?${tooMany}`)).status).toBe(400);

    const product = (sku: string, title: string) => ({
      sku,
      inappproduct: { sku, listings: { 'en-US': { title } } },
    });
    // One title over 55 characters: the whole batch is refused, the other product unchanged.
    const refused = await call('POST', `${api}/inappproducts:batchUpdate`, {
      requests: [product('coins_100', 'Hundred'), product('coins_500', 'x'.repeat(56))],
    });
    expect(refused.status).toBe(400);
    const app = emu.play.apps.get(PACKAGE)!;
    expect(app.inAppProducts.get('coins_100')!.listings['en-US']!.title).toBe('Title coins_100');
    const duplicate = await call('POST', `${api}/inappproducts:batchUpdate`, {
      requests: [product('coins_100', 'A'), product('coins_100', 'B')],
    });
    expect(duplicate.status).toBe(400);
    const updated = await call('POST', `${api}/inappproducts:batchUpdate`, {
      requests: [product('coins_100', 'Hundred'), product('coins_500', 'Five hundred')],
    });
    expect(updated.status).toBe(200);
    expect(updated.body.inappproducts.map((p: { listings: any }) => p.listings['en-US'].title)).toEqual([
      'Hundred',
      'Five hundred',
    ]);

    const subs = await call('POST', `${api}/subscriptions:batchUpdate`, {
      requests: [
        {
          subscription: { productId: 'premium', listings: [{ languageCode: 'en-US', title: 'Premium+' }] },
          updateMask: 'listings',
          regionsVersion: { version: '2022/02' },
        },
      ],
    });
    expect(subs.status).toBe(200);
    expect(
      (await call('GET', `${api}/subscriptions:batchGet?productIds=premium`)).body.subscriptions[0].listings,
    ).toEqual([{ languageCode: 'en-US', title: 'Premium+' }]);
    const noMask = await call('POST', `${api}/subscriptions:batchUpdate`, {
      requests: [
        { subscription: { productId: 'premium', listings: [] }, regionsVersion: { version: '2022/02' } },
      ],
    });
    expect(noMask.status).toBe(400);
  });

  it('deletes products, but not a subscription that had a published base plan', async () => {
    expect((await call('DELETE', `${api}/inappproducts/remove_ads`)).status).toBe(204);
    expect((await call('DELETE', `${api}/inappproducts/remove_ads`)).status).toBe(404);
    expect(
      (
        await call('POST', `${api}/inappproducts:batchDelete`, {
          requests: [{ sku: 'coins_100' }, { sku: 'coins_500' }],
        })
      ).status,
    ).toBe(204);
    expect(emu.play.apps.get(PACKAGE)!.inAppProducts.size).toBe(0);

    const app = emu.play.apps.get(PACKAGE)!;
    app.subscriptions.get('premium')!.basePlans = [{ basePlanId: 'monthly', state: 'ACTIVE' }];
    const refused = await call('DELETE', `${api}/subscriptions/premium`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.status).toBe('FAILED_PRECONDITION');
    app.subscriptions.get('premium')!.basePlans = [{ basePlanId: 'monthly', state: 'DRAFT' }];
    expect((await call('DELETE', `${api}/subscriptions/premium`)).status).toBe(204);
    expect(app.subscriptions.has('premium')).toBe(false);
  });
});
