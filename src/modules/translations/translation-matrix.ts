/**
 * The translation matrix of a project (design.md §14): per store, target locale and translatable
 * field, the source text, the target text, what it was translated from and its state. Target
 * locales of a store are its listings other than the source, and the other store's locales that
 * this store also has (those are wholly missing here).
 */
import type { Executor } from '../../db/database.js';
import { isStoreLocale, mapLocale, STORES, type Store } from '../../shared/stores.js';
import { listingsWithFields } from '../listings/index.js';
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
}

export interface Matrix {
  sourceLocale: string;
  /** The stores that have a listing in the source locale: only they can be translated. */
  stores: Store[];
  /** Per store, the source texts of its translatable fields. */
  sources: Partial<Record<Store, Record<string, string>>>;
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

export async function readMatrix(db: Executor, organizationId: string, projectId: string): Promise<Matrix> {
  const [sourceLocale, listings, rows] = await Promise.all([
    repo.sourceLocaleOf(db, projectId),
    listingsWithFields(db, organizationId, projectId),
    repo.listStates(db, projectId),
  ]);
  const active = listings.filter((l) => l.status === 'active');
  const records = new Map(rows.map((row) => [`${row.store}/${row.locale}/${row.field}`, toRecord(row)]));
  const valuesOf = (store: string, locale: string) => {
    const listing = active.find((l) => l.store === store && l.locale === locale);
    return listing === undefined ? undefined : new Map(listing.fields.map((f) => [f.field, f.value]));
  };
  const stores: Store[] = [];
  const sources: Matrix['sources'] = {};
  const entries: MatrixEntry[] = [];
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
  }
  return { sourceLocale, stores, sources, entries };
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
    const known = matrix.entries.filter((entry) => entry.store === store && entry.locale === here);
    if (known.length > 0) {
      out.push(...known);
      continue;
    }
    if (here === storeLocaleOf(store, matrix.sourceLocale)) continue;
    for (const [field, source] of Object.entries(matrix.sources[store] ?? {})) {
      out.push({
        store,
        locale: here,
        field,
        state: 'missing',
        source,
        target: null,
        translatedFrom: null,
        draft: null,
      });
    }
  }
  return out;
}
