/**
 * Cross-store copy of product texts (design.md §17): a product's texts in one store become the
 * texts of its counterpart in the other — the product with the same id, or the one the request
 * names — locale codes mapped (zh-Hans ↔ zh-CN), fields mapped (App Store name ↔ Google Play
 * title, description ↔ description). Every text is checked against the target's limits first: one
 * too long is refused, never cut; all or nothing.
 */
import { invalidField, notFound } from '../../errors.js';
import { mapLocale, STORE_LABEL, type Store } from '../../shared/stores.js';
import type { ProductEdit } from './product-writer.js';
import type { ProductRow, TextRow } from './products.repository.js';

/** Which kinds are the same thing in the other store, and how their fields correspond. */
const COUNTERPART: Record<string, { kind: string; fields: Record<string, string> }> = {
  'appstore/inAppPurchase': { kind: 'inAppProduct', fields: { name: 'title', description: 'description' } },
  'appstore/subscription': { kind: 'subscription', fields: { name: 'title', description: 'description' } },
  'playstore/inAppProduct': { kind: 'inAppPurchase', fields: { title: 'name', description: 'description' } },
  'playstore/subscription': { kind: 'subscription', fields: { title: 'name', description: 'description' } },
};

export interface CopyInput {
  from: { store: Store; productId: string };
  /** The counterpart's product id when it differs from the source's. */
  to?: { productId?: string };
  /** Target locales (in the target store's codes) to copy into; all by default. */
  locales?: string[];
}

export const otherStore = (store: Store): Store => (store === 'appstore' ? 'playstore' : 'appstore');

/** The kind a product of `kind` corresponds to in the other store, or undefined (groups have none). */
export const counterpartKind = (store: Store, kind: string): string | undefined =>
  COUNTERPART[`${store}/${kind}`]?.kind;

/** The edits a copy makes, and which locale went where. */
export function planCopy(
  input: CopyInput,
  source: ProductRow | undefined,
  target: ProductRow | undefined,
  texts: TextRow[],
): { edits: ProductEdit[]; copied: { from: string; to: string }[] } {
  const from = input.from.store;
  const to = otherStore(from);
  if (source === undefined) throw notFound(`${STORE_LABEL[from]} product ${input.from.productId}`);
  const targetId = input.to?.productId ?? source.linked_product_id ?? input.from.productId;
  if (target === undefined) {
    throw notFound(
      `${STORE_LABEL[to]} product ${targetId} (sync first, or name the counterpart in to.productId)`,
    );
  }
  const counterpart = COUNTERPART[`${from}/${source.kind}`];
  if (counterpart === undefined) {
    throw invalidField('from.productId', `a ${source.kind} has no counterpart in ${STORE_LABEL[to]}`);
  }
  if (counterpart.kind !== target.kind) {
    throw invalidField(
      'to.productId',
      `${targetId} is a ${target.kind}; a ${source.kind} is copied into a ${counterpart.kind}`,
    );
  }
  const edits: ProductEdit[] = [];
  const copied: { from: string; to: string }[] = [];
  for (const locale of [...new Set(texts.map((t) => t.locale))].sort()) {
    const mapped = mapLocale(from, to, locale);
    if (mapped === null || (input.locales !== undefined && !input.locales.includes(mapped))) continue;
    const fields: Record<string, string> = {};
    for (const [sourceField, targetField] of Object.entries(counterpart.fields)) {
      const value = texts.find((t) => t.locale === locale && t.field === sourceField)?.value ?? null;
      if (value !== null) fields[targetField] = value;
    }
    if (Object.keys(fields).length === 0) continue;
    edits.push({ store: to, productId: target.product_id, locale: mapped, fields });
    copied.push({ from: locale, to: mapped });
  }
  if (edits.length === 0) throw invalidField('from', 'there are no texts to copy from there');
  return { edits, copied };
}
