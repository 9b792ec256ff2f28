/**
 * What is pending in a project: every field whose working copy differs from what the store has,
 * and every locale deleted here that the store still has. Computed once from the listing rows and
 * used for both the diff a person reviews (and an admin approves, by its hash) and the plan a push
 * sends, so that what is pushed is always exactly what was approved.
 */
import { createHash } from 'node:crypto';
import type { FieldValues, LocaleChange } from '../../connectors/store-connector.js';
import type { Store } from '../../shared/stores.js';
import type { MediaChanges } from '../media/index.js';
import { fieldNames } from '../../shared/listing-fields.js';
import type { FieldChange, FieldState, KindCounts } from './listing.js';
import type { FieldRow, ListingWithFields } from './listings.repository.js';

export interface Changeset {
  /** store → locale → field → change, fields in the store's order. */
  stores: Partial<Record<Store, Record<string, Record<string, FieldChange>>>>;
  /** Locales deleted here that a push with `prune: true` would remove from the store. */
  removedLocales: Partial<Record<Store, string[]>>;
  /** Locales the store does not have yet (no field has a base): a push creates them. */
  newLocales: Partial<Record<Store, string[]>>;
  changeCount: number;
  /** Slots whose media differ from the store's (store → locale → slot type). */
  media: MediaChanges;
  mediaChangeCount: number;
  /** Google Play release notes that differ from the store's (track → version code → language). */
  releaseNotes: ReleaseNotesChanges;
  releaseNoteChangeCount: number;
  /** In-app purchase and subscription texts that differ from the store's (design.md §17). */
  products: ProductChanges;
  productChangeCount: number;
  /** App details and App Review information that differ from the store's (design.md §19). */
  details: DetailChanges;
  detailChangeCount: number;
  /** SHA-256 over every part that has changes: what an approval is bound to. */
  hash: string;
}

/** Google Play release notes: track → the release's first version code → language → change. */
export type ReleaseNotesChanges = Record<string, Record<string, Record<string, FieldChange>>>;

/** Product texts: store → product id → locale → field → change. */
export type ProductChanges = Partial<
  Record<Store, Record<string, Record<string, Record<string, FieldChange>>>>
>;

/** App details: store → field → change (a secret only as "set", never its value). */
export type DetailChanges = Partial<Record<Store, Record<string, FieldChange>>>;

/** A text's state from its working copy, base and conflict flag (listing fields, product texts). */
export function fieldState(row: Pick<FieldRow, 'value' | 'base' | 'in_conflict'>): FieldState {
  if (row.in_conflict === 1) return 'conflict';
  return row.value === row.base ? 'unchanged' : 'modified';
}

/** JSON with object keys sorted at every level: equal changesets hash equally whatever the row order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The pending changes of a project, from all its listing rows (as listListings reads them) and
 * its media changes.
 */
export function changesetOf(
  rows: ListingWithFields[],
  media: { changes: MediaChanges; count: number } = { changes: {}, count: 0 },
  notes: { changes: ReleaseNotesChanges; count: number } = { changes: {}, count: 0 },
  products: { changes: ProductChanges; count: number } = { changes: {}, count: 0 },
  details: { changes: DetailChanges; count: number } = { changes: {}, count: 0 },
): Changeset {
  const stores: Changeset['stores'] = {};
  const removedLocales: Changeset['removedLocales'] = {};
  const newLocales: Changeset['newLocales'] = {};
  let changeCount = 0;
  for (const row of rows) {
    const store = row.store as Store;
    if (row.status === 'removed') {
      if (row.fields.some((f) => f.base !== null)) (removedLocales[store] ??= []).push(row.locale);
      continue;
    }
    const order = fieldNames(store);
    const fields = [...row.fields].sort((a, b) => order.indexOf(a.field) - order.indexOf(b.field));
    let changed = false;
    for (const field of fields) {
      const state = fieldState(field);
      if (state === 'unchanged') continue;
      const change: FieldChange = { old: field.base, new: field.value };
      if (state === 'conflict') change.conflict = { storeValue: field.conflict_value };
      ((stores[store] ??= {})[row.locale] ??= {})[field.field] = change;
      changeCount += 1;
      changed = true;
    }
    if (changed && row.fields.every((f) => f.base === null)) (newLocales[store] ??= []).push(row.locale);
  }
  // Media join the hashed content only when there are some: approvals of text-only changes keep
  // the hash they had before media existed.
  // Release notes and products likewise.
  const hashed = {
    stores,
    removed: removedLocales,
    ...(media.count > 0 && { media: media.changes }),
    ...(notes.count > 0 && { releaseNotes: notes.changes }),
    ...(products.count > 0 && { products: products.changes }),
    ...(details.count > 0 && { details: details.changes }),
  };
  const hash = createHash('sha256').update(canonicalJson(hashed)).digest('hex');
  return {
    stores,
    removedLocales,
    newLocales,
    changeCount,
    media: media.changes,
    mediaChangeCount: media.count,
    releaseNotes: notes.changes,
    releaseNoteChangeCount: notes.count,
    products: products.changes,
    productChangeCount: products.count,
    details: details.changes,
    detailChangeCount: details.count,
    hash,
  };
}

/**
 * The counts per store and kind of a diff's parts (the whole diff, or a push's narrowed one):
 * what a reviewer and a push confirmation name before anything is written.
 */
export function countsByStore(parts: {
  stores: Partial<Record<string, Record<string, Record<string, unknown>>>>;
  media: Partial<Record<string, Record<string, Record<string, unknown>>>>;
  releaseNotes: Record<string, Record<string, Record<string, unknown>>>;
  products?: Partial<Record<string, Record<string, Record<string, Record<string, unknown>>>>>;
  details?: Partial<Record<string, Record<string, unknown>>>;
  removedLocales?: Partial<Record<string, string[]>>;
}): Partial<Record<Store, KindCounts>> {
  const counts: Partial<Record<Store, KindCounts>> = {};
  const of = (store: Store) =>
    (counts[store] ??= { fields: 0, media: 0, releaseNotes: 0, products: 0, removedLocales: 0 });
  const inner = (byLocale: Record<string, Record<string, unknown>> | undefined) =>
    Object.values(byLocale ?? {}).reduce((n, byKey) => n + Object.keys(byKey).length, 0);
  for (const store of ['appstore', 'playstore'] as const) {
    const fields = inner(parts.stores[store]);
    const media = inner(parts.media[store]);
    const removed = parts.removedLocales?.[store]?.length ?? 0;
    if (fields > 0) of(store).fields = fields;
    if (media > 0) of(store).media = media;
    if (removed > 0) of(store).removedLocales = removed;
    const products = Object.values(parts.products?.[store] ?? {}).reduce(
      (n, byLocale) => n + inner(byLocale),
      0,
    );
    if (products > 0) of(store).products = products;
    const details = Object.keys(parts.details?.[store] ?? {}).length;
    if (details > 0) of(store).details = details;
  }
  const notes = Object.values(parts.releaseNotes).reduce((n, byVersion) => n + inner(byVersion), 0);
  if (notes > 0) of('playstore').releaseNotes = notes;
  return counts;
}

/** Every locale a push to `stores` (narrowed to `locales`) would write: texts, removals, media, notes. */
export function changesetLocales(
  changeset: Changeset,
  stores: Store[],
  locales: string[] | undefined,
): string[] {
  const found = new Set<string>();
  for (const store of stores) {
    for (const locale of Object.keys(changeset.stores[store] ?? {})) found.add(locale);
    for (const locale of changeset.removedLocales[store] ?? []) found.add(locale);
    for (const locale of Object.keys(changeset.media[store] ?? {})) found.add(locale);
    for (const byLocale of Object.values(changeset.products[store] ?? {}))
      for (const locale of Object.keys(byLocale)) found.add(locale);
  }
  if (stores.includes('playstore')) {
    for (const releases of Object.values(changeset.releaseNotes)) {
      for (const languages of Object.values(releases))
        for (const language of Object.keys(languages)) found.add(language);
    }
  }
  return [...found].filter((locale) => locales === undefined || locales.includes(locale)).sort();
}

export const isEmpty = (changeset: Changeset) =>
  changeset.changeCount === 0 &&
  changeset.mediaChangeCount === 0 &&
  changeset.releaseNoteChangeCount === 0 &&
  changeset.productChangeCount === 0 &&
  changeset.detailChangeCount === 0 &&
  Object.keys(changeset.removedLocales).length === 0;

export interface PushPlan {
  changes: LocaleChange[];
  /** Locales deleted here that the store still has (pushed only with prune). */
  removals: string[];
  /** Fields left out because they are in conflict with the store. */
  conflicts: { locale: string; field: string }[];
}

/** What a push to `store` writes from a changeset: changed fields only, optionally only some locales. */
export function planFor(changeset: Changeset, store: Store, locales: string[] | undefined): PushPlan {
  const wanted = (locale: string) => locales === undefined || locales.includes(locale);
  const plan: PushPlan = {
    changes: [],
    removals: (changeset.removedLocales[store] ?? []).filter(wanted),
    conflicts: [],
  };
  const created = new Set(changeset.newLocales[store] ?? []);
  for (const [locale, fields] of Object.entries(changeset.stores[store] ?? {})) {
    if (!wanted(locale)) continue;
    const values: FieldValues = {};
    for (const [field, change] of Object.entries(fields)) {
      if (change.conflict !== undefined) plan.conflicts.push({ locale, field });
      else values[field] = change.new;
    }
    if (Object.keys(values).length > 0)
      plan.changes.push({ locale, fields: values, create: created.has(locale) });
  }
  return plan;
}
