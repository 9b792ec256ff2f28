/**
 * In-app purchases of the App Store emulator (stores-more.md §A1–§A5): products, their versions
 * (the 4.4.1 model) and localizations of either model — v1 on the product, v2 on a version — and
 * the rules whose values Apple has not published, as settings.
 */
import { randomUUID } from 'node:crypto';

export interface InAppPurchase {
  id: string;
  appId: string;
  name: string;
  productId: string;
  inAppPurchaseType: 'CONSUMABLE' | 'NON_CONSUMABLE' | 'NON_RENEWING_SUBSCRIPTION';
  state: string;
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
  model: 'v1' | 'v2';
  /** The product (v1) or the version (v2). */
  parentId: string;
  locale: string;
  name: string;
  description: string | null;
  /** v1 only. */
  state?: string;
}

export interface PurchaseRules {
  /** Display name: 35 best-known, 30 in legacy metadata (unconfirmed). */
  nameMax: number;
  /** Description: 55 best-known, 45 legacy (unconfirmed); a minimum of 10 as an option (0: off). */
  descriptionMax: number;
  descriptionMin: number;
  /** Version states whose localizations may be written (unconfirmed beyond the draft). */
  editableVersionStates: string[];
  /** A second draft version of a product is refused (unconfirmed). */
  oneDraft: boolean;
  /** v1 writes are refused on a product that has versions (unconfirmed). */
  modelLock: boolean;
}

export const DEFAULT_PURCHASE_RULES: PurchaseRules = {
  nameMax: 35,
  descriptionMax: 55,
  descriptionMin: 0,
  editableVersionStates: ['PREPARE_FOR_SUBMISSION', 'REJECTED'],
  oneDraft: true,
  modelLock: true,
};

export interface PurchaseSeed {
  id?: string;
  productId: string;
  name: string;
  inAppPurchaseType?: InAppPurchase['inAppPurchaseType'];
  state?: string;
  /** v1 localizations: locale → texts. */
  localizations?: Record<string, { name: string; description?: string; state?: string }>;
  /** The 4.4.1 model: versions, oldest first, each with its localizations. */
  versions?: {
    id?: string;
    state: string;
    localizations?: Record<string, { name: string; description?: string }>;
  }[];
}

export function createPurchasesState() {
  const products = new Map<string, InAppPurchase>();
  const versions = new Map<string, PurchaseVersion>();
  const localizations = new Map<string, PurchaseLocalization>();
  const rules: PurchaseRules = structuredClone(DEFAULT_PURCHASE_RULES);
  /** Every purchase request as "METHOD path", oldest first: what tests compare. */
  const calls: string[] = [];

  function load(appId: string, seeds: PurchaseSeed[] = []) {
    for (const seed of seeds) {
      const product: InAppPurchase = {
        id: seed.id ?? randomUUID(),
        appId,
        name: seed.name,
        productId: seed.productId,
        inAppPurchaseType: seed.inAppPurchaseType ?? 'CONSUMABLE',
        state: seed.state ?? 'APPROVED',
      };
      products.set(product.id, product);
      for (const [locale, texts] of Object.entries(seed.localizations ?? {})) {
        const id = randomUUID();
        localizations.set(id, {
          id,
          model: 'v1',
          parentId: product.id,
          locale,
          name: texts.name,
          description: texts.description ?? null,
          state: texts.state ?? 'APPROVED',
        });
      }
      (seed.versions ?? []).forEach((v, index) => {
        const version: PurchaseVersion = {
          id: v.id ?? randomUUID(),
          purchaseId: product.id,
          version: index + 1,
          state: v.state,
        };
        versions.set(version.id, version);
        for (const [locale, texts] of Object.entries(v.localizations ?? {})) {
          const id = randomUUID();
          localizations.set(id, {
            id,
            model: 'v2',
            parentId: version.id,
            locale,
            name: texts.name,
            description: texts.description ?? null,
          });
        }
      });
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
