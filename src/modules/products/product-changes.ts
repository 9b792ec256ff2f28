/**
 * The products part of a project's pending changeset — every product text whose working copy
 * differs from the store's (or is in conflict) — and what a push writes of it, decided before any
 * store call: conflicts and texts over a limit are left out and said.
 */
import type { MediaSlotChange, ProductChange } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { checkProductValue, type ProductLimits } from '../../shared/product-fields.js';
import type { Store } from '../../shared/stores.js';
import type { FieldChange, ProductChanges } from '../listings/index.js';
import { productField } from './product-merge.js';
import { productsRepository as repo, type ProductRow, type TextRow } from './products.repository.js';

/** Every product of a project with every text of them, for readers outside the feature (the translation matrix). */
export async function productsWithTexts(
  db: Executor,
  projectId: string,
): Promise<{ products: ProductRow[]; texts: TextRow[] }> {
  const [products, texts] = await Promise.all([repo.products(db, projectId), repo.texts(db, projectId)]);
  return { products, texts };
}

export async function productChangesOf(
  db: Executor,
  projectId: string,
): Promise<{ changes: ProductChanges; count: number }> {
  const changes: ProductChanges = {};
  let count = 0;
  for (const row of await repo.texts(db, projectId)) {
    if (row.value === row.base && row.in_conflict === 0) continue;
    const change: FieldChange = {
      old: row.base,
      new: row.value,
      ...(row.in_conflict === 1 && { conflict: { storeValue: row.conflict_value } }),
    };
    (((changes[row.store as Store] ??= {})[row.product_id] ??= {})[row.locale] ??= {})[row.field] = change;
    count += 1;
  }
  return { changes, count };
}

/** A text a push leaves out before any store call, and why. */
export interface ProductLeftOut {
  productId: string;
  locale: string;
  field: string;
  error: { code: string; message: string };
}

export interface ProductPushPlan {
  changes: ProductChange[];
  leftOut: ProductLeftOut[];
}

/**
 * What a push to `store` writes of the products' changes (only `locales` when given), with the
 * media slots a custom product page brings to their files (`media`, by page id).
 */
export function productPushPlan(
  changes: ProductChanges,
  store: Store,
  locales: string[] | undefined,
  products: ProductRow[],
  limits: ProductLimits,
  media: ReadonlyMap<string, MediaSlotChange[]> = new Map(),
): ProductPushPlan {
  const plan: ProductPushPlan = { changes: [], leftOut: [] };
  const byId = new Map(products.filter((p) => p.store === store).map((p) => [p.product_id, p]));
  const ids = new Set([
    ...Object.keys(changes[store] ?? {}),
    ...[...media.keys()].filter((id) => byId.has(id)),
  ]);
  for (const productId of ids) {
    const byLocale = changes[store]?.[productId] ?? {};
    const product = byId.get(productId);
    const change: ProductChange = {
      kind: product?.kind ?? '',
      productId,
      storeRef: product?.store_ref ?? null,
      locales: {},
    };
    for (const [locale, fields] of Object.entries(byLocale)) {
      if (locales !== undefined && !locales.includes(locale)) continue;
      for (const [field, fieldChange] of Object.entries(fields)) {
        const out = (code: string, message: string) =>
          plan.leftOut.push({
            productId,
            locale,
            field: productField(productId, field),
            error: { code, message },
          });
        if (fieldChange.conflict !== undefined) {
          out('CONFLICT', 'The store changed this text too: edit it here to choose, then push');
          continue;
        }
        // Limits may have changed since the edit (APPMETA_PRODUCT_LIMITS): checked again here.
        const problem =
          product === undefined
            ? null
            : checkProductValue(limits, store, product.kind, field, fieldChange.new);
        if (problem !== null) {
          out('INVALID_TEXT', `${field} ${problem.message}`);
          continue;
        }
        (change.locales[locale] ??= {})[field] = fieldChange.new;
      }
    }
    const slots = media.get(productId) ?? [];
    if (slots.length > 0) change.media = slots;
    if (Object.keys(change.locales).length > 0 || slots.length > 0) plan.changes.push(change);
  }
  return plan;
}

/** The products' changes in some locales only (all when `locales` is undefined), and how many. */
export function productsInLocales(
  changes: ProductChanges,
  locales: string[] | undefined,
): { changes: ProductChanges; count: number } {
  const kept: ProductChanges = {};
  let count = 0;
  for (const [store, byProduct] of Object.entries(changes) as [
    Store,
    Record<string, Record<string, Record<string, FieldChange>>>,
  ][]) {
    for (const [productId, byLocale] of Object.entries(byProduct)) {
      for (const [locale, fields] of Object.entries(byLocale)) {
        if (locales !== undefined && !locales.includes(locale)) continue;
        ((kept[store] ??= {})[productId] ??= {})[locale] = fields;
        count += Object.keys(fields).length;
      }
    }
  }
  return { changes: kept, count };
}
