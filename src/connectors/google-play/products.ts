/**
 * Google Play's one-time products (`inappproducts`) and subscriptions (`monetization.subscriptions`)
 * (stores-more.md §A6, §A7, §A9): live resources outside any edit. A write reads the product, changes
 * the listings of the locales asked for and sends the whole of them back — one call per product, so
 * a product's locales are taken or refused together.
 */
import {
  StoreError,
  type FieldValues,
  type ProductChange,
  type ProductResult,
  type ProductWriteOptions,
  type StoreProduct,
} from '../store-connector.js';
import type { PlayClient } from './client.js';

type Counter = { calls: number };

interface InAppListing {
  title?: string;
  description?: string;
  benefits?: string[];
}
interface InAppProduct {
  sku: string;
  status?: string;
  purchaseType?: string;
  listings?: Record<string, InAppListing>;
  [key: string]: unknown;
}
interface SubscriptionListing {
  languageCode: string;
  title?: string;
  description?: string;
  benefits?: string[];
}
interface Subscription {
  productId: string;
  archived?: boolean;
  basePlans?: { state?: string }[];
  listings?: SubscriptionListing[];
  [key: string]: unknown;
}

/** The regions version sent with subscription writes (commonly used; stores-more.md §A7). */
const REGIONS_VERSION = '2022/02';

const orNull = (value: string | undefined) => (value === undefined || value === '' ? null : value);
/** Benefits are kept one per line. */
const benefitsText = (benefits: string[] | undefined) =>
  benefits === undefined || benefits.length === 0 ? null : benefits.join('\n');

/** A subscription's state in one word: its base plans' (Google has no state on the subscription). */
function subscriptionState(subscription: Subscription): string {
  if (subscription.archived === true) return 'archived';
  const states = (subscription.basePlans ?? []).map((p) => (p.state ?? '').toLowerCase());
  if (states.includes('active')) return 'active';
  return states[0] || 'draft';
}

/** A listing with `fields` applied: a null text is left out (title is never null here: it is required). */
function applied<T extends { title?: string; description?: string; benefits?: string[] }>(
  listing: T,
  fields: FieldValues,
): T {
  const next: Record<string, unknown> = { ...listing };
  for (const [name, value] of Object.entries(fields)) {
    if (name === 'benefits') next.benefits = value === null ? undefined : value.split('\n');
    else next[name] = value ?? undefined;
  }
  for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
  return next as T;
}

const differs = (a: object | undefined, b: object) => JSON.stringify(a ?? {}) !== JSON.stringify(b);

export function createPlayProducts(client: PlayClient) {
  async function listInApp(counter: Counter, pkg: string): Promise<InAppProduct[]> {
    const items: InAppProduct[] = [];
    let token: string | undefined;
    do {
      const page = await client.call<{
        inappproduct?: InAppProduct[];
        tokenPagination?: { nextPageToken?: string };
      }>(
        counter,
        'GET',
        `${client.app(pkg)}/inappproducts${token === undefined ? '' : `?token=${encodeURIComponent(token)}`}`,
      );
      items.push(...(page.inappproduct ?? []));
      token = page.tokenPagination?.nextPageToken;
    } while (token !== undefined);
    // Legacy subscriptions in this API are read through monetization.subscriptions instead.
    return items.filter((p) => p.purchaseType !== 'subscription');
  }

  async function listSubscriptions(counter: Counter, pkg: string): Promise<Subscription[]> {
    const items: Subscription[] = [];
    let token: string | undefined;
    do {
      const page = await client.call<{ subscriptions?: Subscription[]; nextPageToken?: string }>(
        counter,
        'GET',
        `${client.app(pkg)}/subscriptions?pageSize=1000${token === undefined ? '' : `&pageToken=${encodeURIComponent(token)}`}`,
      );
      items.push(...(page.subscriptions ?? []));
      token = page.nextPageToken;
    } while (token !== undefined);
    return items;
  }

  async function read(counter: Counter, pkg: string): Promise<StoreProduct[]> {
    const [inApp, subscriptions] = await Promise.all([
      listInApp(counter, pkg),
      listSubscriptions(counter, pkg),
    ]);
    return [
      ...inApp.map((p) => ({
        kind: 'inAppProduct',
        productId: p.sku,
        referenceName: null,
        state: p.status ?? null,
        storeRef: null,
        texts: new Map(
          Object.entries(p.listings ?? {}).map(([language, l]) => [
            language,
            { title: orNull(l.title), description: orNull(l.description) },
          ]),
        ),
      })),
      ...subscriptions.map((s) => ({
        kind: 'subscription',
        productId: s.productId,
        referenceName: null,
        state: subscriptionState(s),
        storeRef: null,
        texts: new Map(
          (s.listings ?? []).map((l) => [
            l.languageCode,
            {
              title: orNull(l.title),
              description: orNull(l.description),
              benefits: benefitsText(l.benefits),
            },
          ]),
        ),
      })),
    ];
  }

  async function writeInApp(
    counter: Counter,
    pkg: string,
    change: ProductChange,
    options: ProductWriteOptions,
  ) {
    const url = `${client.app(pkg)}/inappproducts/${encodeURIComponent(change.productId)}`;
    const product = await client.call<InAppProduct>(counter, 'GET', url);
    const listings = { ...(product.listings ?? {}) };
    for (const [language, fields] of Object.entries(change.locales)) {
      listings[language] = applied(listings[language] ?? {}, fields);
    }
    // Whether PATCH merges the listings map key by key is unconfirmed: the whole product is PUT.
    if (!differs(product.listings, listings)) return;
    await options.beforeWrite?.();
    await client.call(counter, 'PUT', url, { ...product, listings });
  }

  async function writeSubscription(
    counter: Counter,
    pkg: string,
    change: ProductChange,
    options: ProductWriteOptions,
  ) {
    const url = `${client.app(pkg)}/subscriptions/${encodeURIComponent(change.productId)}`;
    const subscription = await client.call<Subscription>(counter, 'GET', url);
    const listings = [...(subscription.listings ?? [])];
    for (const [language, fields] of Object.entries(change.locales)) {
      const at = listings.findIndex((l) => l.languageCode === language);
      if (at === -1) listings.push(applied<SubscriptionListing>({ languageCode: language }, fields));
      else listings[at] = applied(listings[at]!, fields);
    }
    if (!differs(subscription.listings, listings)) return;
    await options.beforeWrite?.();
    // A language left out of `listings` may be removed: every language is sent (stores-more.md §A9).
    await client.call(
      counter,
      'PATCH',
      `${url}?updateMask=listings&regionsVersion.version=${encodeURIComponent(REGIONS_VERSION)}`,
      { packageName: subscription.packageName, productId: subscription.productId, listings },
    );
  }

  return {
    read,
    async write(counter: Counter, pkg: string, changes: ProductChange[], options: ProductWriteOptions) {
      return Promise.all(
        changes.map(async (change): Promise<ProductResult> => {
          const locales = Object.keys(change.locales);
          try {
            if (change.kind === 'inAppProduct') await writeInApp(counter, pkg, change, options);
            else await writeSubscription(counter, pkg, change, options);
            options.onProduct?.(change.productId, 'written');
            return { productId: change.productId, written: locales, failures: [] };
          } catch (error) {
            if (!(error instanceof StoreError) || error.code === 'CANCELLED') throw error;
            const failure = { code: error.code, message: error.message };
            options.onProduct?.(change.productId, 'failed');
            return {
              productId: change.productId,
              written: [],
              failures: locales.map((locale) => ({ locale, field: error.field, error: failure })),
            };
          }
        }),
      );
    },
  };
}
