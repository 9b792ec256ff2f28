/**
 * The translation matrix of a project (design.md §14): per store, target locale and translatable
 * field, the source text, the target text, what it was translated from and its state. Target
 * locales of a store are its listings other than the source, and the other store's locales that
 * this store also has (those are wholly missing here).
 */
import type { Executor } from '../../db/database.js';
import { isStoreLocale, mapLocale, STORES, type Store } from '../../shared/stores.js';
import { listingsWithFields } from '../listings/index.js';
import { productField, productsWithTexts } from '../products/index.js';
import { productFieldNames, type ProductLimits } from '../../shared/product-fields.js';
import type { ProductRef } from './entry-rules.js';
import {
  stateOf,
  translatableFields,
  type Draft,
  type TranslationRecord,
  type TranslationState,
} from './translation-state.js';
import { translationsRepository as repo, type StateRow } from './translations.repository.js';

export interface MatrixEntry {
  store: Store;
  locale: string;
  field: string;
  state: TranslationState;
  source: string | null;
  target: string | null;
  /** The source text the target was translated from, when known. */
  translatedFrom: string | null;
  draft: Draft | null;
  /** A product's text (field `products.<productId>.<field>`): which product and field. */
  product?: ProductRef;
}

export interface Matrix {
  sourceLocale: string;
  /** The stores that have a listing in the source locale: only they can be translated. */
  stores: Store[];
  /** Per store, the source texts of its translatable fields. */
  sources: Partial<Record<Store, Record<string, string>>>;
  /** Per store, the product texts among the sources: field name → product and field. */
  products: Partial<Record<Store, Record<string, ProductRef>>>;
  entries: MatrixEntry[];
}

const toRecord = (row: StateRow): TranslationRecord => ({
  sourceValue: row.source_value,
  sourceHash: row.source_hash,
  draft:
    row.draft_value === null
      ? null
      : {
          text: row.draft_value,
          sourceValue: row.draft_source_value,
          provider: row.draft_provider ?? 'unknown',
          note: row.draft_note,
          createdAt: row.draft_at ?? row.updated_at,
        },
});

/** A locale code as the store spells it (zh-Hans on the App Store is zh-CN on Google Play). */
export function storeLocaleOf(store: Store, locale: string): string | null {
  if (isStoreLocale(store, locale)) return locale;
  const other = STORES.find((s) => s !== store)!;
  return isStoreLocale(other, locale) ? mapLocale(other, store, locale) : null;
}

export async function readMatrix(
  db: Executor,
  organizationId: string,
  projectId: string,
  limits: ProductLimits,
): Promise<Matrix> {
  const [sourceLocale, listings, rows, { products, texts: productTexts }] = await Promise.all([
    repo.sourceLocaleOf(db, projectId),
    listingsWithFields(db, organizationId, projectId),
    repo.listStates(db, projectId),
    productsWithTexts(db, projectId),
  ]);
  const active = listings.filter((l) => l.status === 'active');
  const records = new Map(rows.map((row) => [`${row.store}/${row.locale}/${row.field}`, toRecord(row)]));
  const valuesOf = (store: string, locale: string) => {
    const listing = active.find((l) => l.store === store && l.locale === locale);
    return listing === undefined ? undefined : new Map(listing.fields.map((f) => [f.field, f.value]));
  };
  const stores: Store[] = [];
  const sources: Matrix['sources'] = {};
  const productRefs: Matrix['products'] = {};
  const entries: MatrixEntry[] = [];
  const productText = new Map(
    productTexts.map((t) => [`${t.store}/${t.locale}/${productField(t.product_id, t.field)}`, t.value]),
  );
  for (const store of STORES) {
    const sourceHere = storeLocaleOf(store, sourceLocale);
    const source = sourceHere === null ? undefined : valuesOf(store, sourceHere);
    if (source === undefined) continue;
    stores.push(store);
    sources[store] = Object.fromEntries(
      translatableFields(store).flatMap((field) => {
        const text = source.get(field);
        return text === undefined || text === null ? [] : [[field, text]];
      }),
    );
    const locales = new Set(active.filter((l) => l.store === store).map((l) => l.locale));
    // A draft may be for a locale that has no listing yet: accepting it creates the listing.
    for (const row of rows) if (row.store === store && row.draft_value !== null) locales.add(row.locale);
    for (const listing of active.filter((l) => l.store !== store)) {
      const mapped = mapLocale(listing.store as Store, store, listing.locale);
      if (mapped !== null) locales.add(mapped);
    }
    locales.delete(sourceHere!);
    for (const locale of [...locales].sort()) {
      const target = valuesOf(store, locale);
      for (const field of translatableFields(store)) {
        const sourceText = source.get(field) ?? null;
        const targetText = target?.get(field) ?? null;
        const record = records.get(`${store}/${locale}/${field}`);
        if (sourceText === null && targetText === null && !record?.draft) continue;
        entries.push({
          store,
          locale,
          field,
          state: stateOf(targetText, record, sourceText),
          source: sourceText,
          target: targetText,
          translatedFrom: record?.sourceValue ?? null,
          draft: record?.draft ?? null,
        });
      }
    }
    // Products (pages and events too): each translated into its own locales and every locale the
    // app is listed in — except those the store takes no changes to now (a page in review).
    for (const product of products.filter((p) => p.store === store && p.locked === null)) {
      const refs = productFieldNames(limits, store, product.kind).map((name) => ({
        key: productField(product.product_id, name),
        ref: { productId: product.product_id, kind: product.kind, field: name },
      }));
      const withSource = refs.filter(
        ({ key }) => (productText.get(`${store}/${sourceHere}/${key}`) ?? null) !== null,
      );
      if (withSource.length === 0) continue;
      for (const { key, ref } of withSource) {
        (sources[store] ??= {})[key] = productText.get(`${store}/${sourceHere}/${key}`)!;
        (productRefs[store] ??= {})[key] = ref;
      }
      const productLocales = new Set(locales);
      for (const t of productTexts) {
        if (t.store === store && t.product_id === product.product_id) productLocales.add(t.locale);
      }
      productLocales.delete(sourceHere!);
      for (const locale of [...productLocales].sort()) {
        for (const { key, ref } of refs) {
          const sourceText = productText.get(`${store}/${sourceHere}/${key}`) ?? null;
          const targetText = productText.get(`${store}/${locale}/${key}`) ?? null;
          const record = records.get(`${store}/${locale}/${key}`);
          if (sourceText === null && targetText === null && !record?.draft) continue;
          entries.push({
            store,
            locale,
            field: key,
            state: stateOf(targetText, record, sourceText),
            source: sourceText,
            target: targetText,
            translatedFrom: record?.sourceValue ?? null,
            draft: record?.draft ?? null,
            product: ref,
          });
        }
      }
    }
  }
  return { sourceLocale, stores, sources, products: productRefs, entries };
}

/**
 * The entries of one target locale, per store in that store's code (zh-Hans is zh-CN on Google
 * Play). A locale the project has no listing in yet is wholly missing: its entries are the
 * source's fields, so it can be machine-translated or handed to a translator.
 */
export function entriesOf(matrix: Matrix, locale: string): MatrixEntry[] {
  const out: MatrixEntry[] = [];
  for (const store of matrix.stores) {
    const here = storeLocaleOf(store, locale);
    if (here === null) continue;
    if (here === storeLocaleOf(store, matrix.sourceLocale)) continue;
    const known = matrix.entries.filter((entry) => entry.store === store && entry.locale === here);
    out.push(...known);
    // Whatever the source has that this locale has no entry for yet is wholly missing here.
    const fields = new Set(known.map((entry) => entry.field));
    for (const [field, source] of Object.entries(matrix.sources[store] ?? {})) {
      if (fields.has(field)) continue;
      const product = matrix.products[store]?.[field];
      out.push({
        store,
        locale: here,
        field,
        state: 'missing',
        source,
        target: null,
        translatedFrom: null,
        draft: null,
        ...(product !== undefined && { product }),
      });
    }
  }
  return out;
}
