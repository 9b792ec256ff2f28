/**
 * In-app purchases, subscriptions and subscription groups of the App Store emulator
 * (stores-more.md §A1–§A5): the containers, their versions (the 4.4.1 model) and localizations of
 * either model — v1 on the container, v2 on a version — and the rules whose values Apple has not
 * published, as settings.
 */
import { randomUUID } from 'node:crypto';

export type Family = 'inAppPurchase' | 'subscription' | 'subscriptionGroup';

/** A container of localizations: an in-app purchase, a subscription or a subscription group. */
export interface PurchaseContainer {
  id: string;
  family: Family;
  appId: string;
  /** The reference name (a group's referenceName). */
  name: string;
  productId: string | null;
  inAppPurchaseType?: 'CONSUMABLE' | 'NON_CONSUMABLE' | 'NON_RENEWING_SUBSCRIPTION';
  subscriptionPeriod?: string;
  /** Groups have none. */
  state: string | null;
  /** A subscription's group. */
  groupId?: string;
}

export interface PurchaseVersion {
  id: string;
  purchaseId: string;
  version: number;
  state: string;
}

/** A localization of either model: v1 hangs off the product, v2 off a version. */
export interface PurchaseLocalization {
  id: string;
  family: Family;
  model: 'v1' | 'v2';
  /** The container (v1) or the version (v2). */
  parentId: string;
  locale: string;
  /** name and description (a group: name and customAppName). */
  texts: Record<string, string | null>;
  /** v1 only. */
  state?: string;
}

export interface PurchaseRules {
  /**
   * Limits per family and text (code points). Purchases and subscriptions: display name 35
   * best-known (30 legacy), description 55 (45 legacy); groups: name 75 (one third-party note),
   * custom app name 30 (assumed) — all unconfirmed.
   */
  limits: Record<Family, Record<string, number>>;
  /** A description minimum (10 in legacy metadata; 0: off). */
  descriptionMin: number;
  /** Version states whose localizations may be written (unconfirmed beyond the draft). */
  editableVersionStates: string[];
  /** A second draft version of a product is refused (unconfirmed). */
  oneDraft: boolean;
  /** v1 writes are refused on a product that has versions (unconfirmed). */
  modelLock: boolean;
}

export const DEFAULT_PURCHASE_RULES: PurchaseRules = {
  limits: {
    inAppPurchase: { name: 35, description: 55 },
    subscription: { name: 35, description: 55 },
    subscriptionGroup: { name: 75, customAppName: 30 },
  },
  descriptionMin: 0,
  editableVersionStates: ['PREPARE_FOR_SUBMISSION', 'REJECTED'],
  oneDraft: true,
  modelLock: true,
};

type Texts = Record<string, string>;

interface ContainerSeed {
  id?: string;
  /** v1 localizations: locale → texts (and the localization's state, default APPROVED). */
  localizations?: Record<string, Texts & { state?: string }>;
  /** The 4.4.1 model: versions, oldest first, each with its localizations. */
  versions?: { id?: string; state: string; localizations?: Record<string, Texts> }[];
}

export interface PurchaseSeed extends ContainerSeed {
  productId: string;
  name: string;
  inAppPurchaseType?: PurchaseContainer['inAppPurchaseType'];
  state?: string;
}

export interface SubscriptionGroupSeed extends ContainerSeed {
  referenceName: string;
  subscriptions?: (ContainerSeed & {
    productId: string;
    name: string;
    state?: string;
    subscriptionPeriod?: string;
  })[];
}

export function createPurchasesState() {
  const products = new Map<string, PurchaseContainer>();
  const versions = new Map<string, PurchaseVersion>();
  const localizations = new Map<string, PurchaseLocalization>();
  const rules: PurchaseRules = structuredClone(DEFAULT_PURCHASE_RULES);
  /** Every purchase request as "METHOD path", oldest first: what tests compare. */
  const calls: string[] = [];

  function addTexts(container: PurchaseContainer, seed: ContainerSeed) {
    for (const [locale, { state, ...texts }] of Object.entries(seed.localizations ?? {})) {
      const id = randomUUID();
      localizations.set(id, {
        id,
        family: container.family,
        model: 'v1',
        parentId: container.id,
        locale,
        texts,
        state: state ?? 'APPROVED',
      });
    }
    (seed.versions ?? []).forEach((v, index) => {
      const version: PurchaseVersion = {
        id: v.id ?? randomUUID(),
        purchaseId: container.id,
        version: index + 1,
        state: v.state,
      };
      versions.set(version.id, version);
      for (const [locale, texts] of Object.entries(v.localizations ?? {})) {
        const id = randomUUID();
        localizations.set(id, {
          id,
          family: container.family,
          model: 'v2',
          parentId: version.id,
          locale,
          texts,
        });
      }
    });
  }

  function load(appId: string, seeds: PurchaseSeed[] = [], groups: SubscriptionGroupSeed[] = []) {
    for (const seed of seeds) {
      const container: PurchaseContainer = {
        id: seed.id ?? randomUUID(),
        family: 'inAppPurchase',
        appId,
        name: seed.name,
        productId: seed.productId,
        inAppPurchaseType: seed.inAppPurchaseType ?? 'CONSUMABLE',
        state: seed.state ?? 'APPROVED',
      };
      products.set(container.id, container);
      addTexts(container, seed);
    }
    for (const seed of groups) {
      const group: PurchaseContainer = {
        id: seed.id ?? randomUUID(),
        family: 'subscriptionGroup',
        appId,
        name: seed.referenceName,
        productId: null,
        state: null,
      };
      products.set(group.id, group);
      addTexts(group, seed);
      for (const sub of seed.subscriptions ?? []) {
        const subscription: PurchaseContainer = {
          id: sub.id ?? randomUUID(),
          family: 'subscription',
          appId,
          name: sub.name,
          productId: sub.productId,
          state: sub.state ?? 'APPROVED',
          subscriptionPeriod: sub.subscriptionPeriod ?? 'ONE_MONTH',
          groupId: group.id,
        };
        products.set(subscription.id, subscription);
        addTexts(subscription, sub);
      }
    }
  }

  return {
    products,
    versions,
    localizations,
    rules,
    calls,
    load,
    versionsOf: (purchaseId: string) =>
      [...versions.values()].filter((v) => v.purchaseId === purchaseId).sort((a, b) => a.version - b.version),
    containersOf: (appId: string, family: Family) =>
      [...products.values()].filter((p) => p.appId === appId && p.family === family),
    localizationsOf: (model: 'v1' | 'v2', parentId: string) =>
      [...localizations.values()].filter((l) => l.model === model && l.parentId === parentId),
    reset() {
      for (const map of [products, versions, localizations]) map.clear();
      Object.assign(rules, structuredClone(DEFAULT_PURCHASE_RULES));
      calls.length = 0;
    },
  };
}

export type PurchasesState = ReturnType<typeof createPurchasesState>;
