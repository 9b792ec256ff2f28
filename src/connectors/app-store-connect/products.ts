/**
 * In-app purchases, subscriptions and subscription groups on App Store Connect (stores-more.md §A):
 * read each product and the texts of the model it uses, write changed texts per locale. Apple has
 * two metadata models in 4.4.1; a product with versions uses the version model (texts on its
 * draft version, created when none is open), else the v1 model (texts on the product). Never both.
 */
import {
  type FieldValues,
  type ProductChange,
  type ProductResult,
  type ProductWriteOptions,
  type StoreProduct,
} from '../store-connector.js';
import type { AscClient, Counter } from './client.js';
import type { JsonApiResource } from './mapper.js';
import { text, textsByLocale, writeLocales } from './localization-writes.js';

type Family = 'inAppPurchase' | 'subscription' | 'subscriptionGroup';

/** Paths, types and relationship names per family (stores-more.md §A2). */
const FAMILY: Record<
  Family,
  {
    container: string;
    type: string;
    localizations: string;
    versions: string;
    v1Relationship: string;
    versionRelationship: string;
    texts: string[];
  }
> = {
  inAppPurchase: {
    container: '/v2/inAppPurchases',
    type: 'inAppPurchases',
    localizations: 'inAppPurchaseLocalizations',
    versions: 'inAppPurchaseVersions',
    v1Relationship: 'inAppPurchaseV2',
    versionRelationship: 'inAppPurchase',
    texts: ['name', 'description'],
  },
  subscription: {
    container: '/v1/subscriptions',
    type: 'subscriptions',
    localizations: 'subscriptionLocalizations',
    versions: 'subscriptionVersions',
    v1Relationship: 'subscription',
    versionRelationship: 'subscription',
    texts: ['name', 'description'],
  },
  subscriptionGroup: {
    container: '/v1/subscriptionGroups',
    type: 'subscriptionGroups',
    localizations: 'subscriptionGroupLocalizations',
    versions: 'subscriptionGroupVersions',
    v1Relationship: 'subscriptionGroup',
    versionRelationship: 'subscriptionGroup',
    texts: ['name', 'customAppName'],
  },
};

/** Version states whose localizations may be written (a draft; Apple's rule for REJECTED is unconfirmed). */
const DRAFT_STATES = ['PREPARE_FOR_SUBMISSION', 'REJECTED', 'DEVELOPER_REJECTED'];

/** A subscription group's product id in appmeta: it has none of its own (design.md §17). */
export const GROUP_PREFIX = 'group:';

const isFamily = (kind: string): kind is Family => Object.hasOwn(FAMILY, kind);

/** Where a product's texts live: its v1 localizations, or those of its newest version. */
interface TextsHome {
  model: 'v1' | 'v2';
  /** The version whose localizations these are (v2), with its state. */
  version: { id: string; state: string } | null;
  localizations: JsonApiResource[];
}

export function createAscProducts(client: AscClient) {
  async function homeOf(counter: Counter, family: Family, id: string): Promise<TextsHome> {
    const f = FAMILY[family];
    const versions = await client.all(counter, `${f.container}/${encodeURIComponent(id)}/versions?limit=200`);
    if (versions.length === 0) {
      const path = `${f.container}/${encodeURIComponent(id)}/${f.localizations}?limit=200`;
      return { model: 'v1', version: null, localizations: await client.all(counter, path) };
    }
    const newest = versions.reduce((a, b) =>
      Number(b.attributes?.version ?? 0) > Number(a.attributes?.version ?? 0) ? b : a,
    );
    const localizations = await client.all(counter, `/v1/${f.versions}/${newest.id}/localizations?limit=200`);
    return {
      model: 'v2',
      version: { id: newest.id, state: text(newest.attributes?.state) ?? '' },
      localizations,
    };
  }

  const textsOf = (family: Family, home: TextsHome): Map<string, FieldValues> =>
    textsByLocale(home.localizations, FAMILY[family].texts);

  async function read(counter: Counter, appId: string): Promise<StoreProduct[]> {
    const app = `/v1/apps/${encodeURIComponent(appId)}`;
    const [iaps, groups] = await Promise.all([
      client.all(counter, `${app}/inAppPurchasesV2?limit=200`),
      client.all(counter, `${app}/subscriptionGroups?limit=200`),
    ]);
    const subscriptions = (
      await Promise.all(
        groups.map((g) => client.all(counter, `/v1/subscriptionGroups/${g.id}/subscriptions?limit=200`)),
      )
    ).flat();
    const containers: {
      family: Family;
      resource: JsonApiResource;
      productId: string;
      reference: string | null;
    }[] = [
      ...iaps.map((r) => ({
        family: 'inAppPurchase' as const,
        resource: r,
        productId: text(r.attributes?.productId) ?? r.id,
        reference: text(r.attributes?.name),
      })),
      ...subscriptions.map((r) => ({
        family: 'subscription' as const,
        resource: r,
        productId: text(r.attributes?.productId) ?? r.id,
        reference: text(r.attributes?.name),
      })),
      ...groups.map((r) => ({
        family: 'subscriptionGroup' as const,
        resource: r,
        productId: `${GROUP_PREFIX}${text(r.attributes?.referenceName) ?? r.id}`,
        reference: text(r.attributes?.referenceName),
      })),
    ];
    return Promise.all(
      containers.map(async (c) => ({
        kind: c.family,
        productId: c.productId,
        referenceName: c.reference,
        // Groups have no state of their own.
        state: text(c.resource.attributes?.state),
        storeRef: c.resource.id,
        texts: textsOf(c.family, await homeOf(counter, c.family, c.resource.id)),
      })),
    );
  }

  /** The draft version to write into: the newest when it is one, else a new one (it copies the texts). */
  async function draftOf(counter: Counter, family: Family, id: string, home: TextsHome): Promise<TextsHome> {
    if (home.version !== null && DRAFT_STATES.includes(home.version.state)) return home;
    const f = FAMILY[family];
    const created = await client.call(counter, 'POST', `/v1/${f.versions}`, {
      data: {
        type: f.versions,
        relationships: { [f.versionRelationship]: { data: { type: f.type, id } } },
      },
    });
    const version = created.data as JsonApiResource;
    return {
      model: 'v2',
      version: { id: version.id, state: text(version.attributes?.state) ?? 'PREPARE_FOR_SUBMISSION' },
      localizations: await client.all(counter, `/v1/${f.versions}/${version.id}/localizations?limit=200`),
    };
  }

  /** One product: its model, a draft when it uses versions, then each locale on its own. */
  async function writeProduct(
    counter: Counter,
    change: ProductChange,
    options: ProductWriteOptions,
  ): Promise<ProductResult> {
    if (!isFamily(change.kind) || change.storeRef === null) {
      const error = {
        code: 'NOT_FOUND',
        message: `No App Store ${change.kind} ${change.productId}: sync first`,
      };
      const failures = Object.keys(change.locales).map((locale) => ({ locale, field: null, error }));
      return { productId: change.productId, written: [], failures };
    }
    const family = change.kind;
    const containerId = change.storeRef;
    const f = FAMILY[family];
    const where = async () => {
      let home = await homeOf(counter, family, containerId);
      if (home.model === 'v2') home = await draftOf(counter, family, containerId, home);
      return {
        path: `${home.model === 'v1' ? '/v1' : '/v2'}/${f.localizations}`,
        type: f.localizations,
        relationship:
          home.model === 'v1'
            ? { [f.v1Relationship]: { data: { type: f.type, id: containerId } } }
            : { version: { data: { type: f.versions, id: home.version!.id } } },
        existing: home.localizations,
      };
    };
    const { written, failures } = await writeLocales(
      client,
      counter,
      where,
      change.locales,
      options.beforeWrite,
    );
    return { productId: change.productId, written, failures };
  }

  return {
    read,
    async write(counter: Counter, changes: ProductChange[], options: ProductWriteOptions) {
      return Promise.all(
        changes.map(async (change) => {
          const result = await writeProduct(counter, change, options);
          options.onProduct?.(change.productId, result.failures.length === 0 ? 'written' : 'failed');
          return result;
        }),
      );
    },
  };
}
