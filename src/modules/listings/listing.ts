import type { HistoryActor } from '../audit/index.js';
import type { Executor } from '../../db/database.js';
import type { Store } from '../../shared/stores.js';
import type { MediaChanges } from '../media/index.js';
import type { FieldChange } from './listings.schemas.js';

export type FieldState = 'unchanged' | 'modified' | 'conflict';

export interface FieldView {
  /** The team's working copy. */
  value: string | null;
  /** What the store had at the last successful sync or push. */
  base: string | null;
  state: FieldState;
  /** On a conflict: the store's value found by the sync that detected it. */
  storeValue?: string | null;
}

export interface Listing {
  store: Store;
  locale: string;
  state: FieldState;
  fields: Record<string, FieldView>;
  updatedAt: string;
}

/** `translation`: a machine draft accepted by a member. */
export type EditSource = 'edit' | 'revert' | 'copy' | 'import' | 'translation' | 'sync' | 'push';

export interface HistoryEntry {
  id: string;
  field: string;
  old: string | null;
  new: string | null;
  source: EditSource;
  actor: HistoryActor;
  createdAt: string;
}

export type { FieldChange } from './listings.schemas.js';

/** How many changes of each kind a store has pending. */
export interface KindCounts {
  fields: number;
  /** Screenshot and preview slots. */
  media: number;
  /** Google Play release notes (release × language). */
  releaseNotes: number;
  /** In-app purchase and subscription texts (product × locale × field). */
  products: number;
  /** App details (design.md §19), when any differ. */
  details?: number;
  removedLocales: number;
}

export interface ListingDiff {
  inSync: boolean;
  /** Per store, how many changes of each kind are pending. */
  counts: Partial<Record<Store, KindCounts>>;
  changeCount: number;
  /** store → locale → field → change. */
  stores: Partial<Record<Store, Record<string, Record<string, FieldChange>>>>;
  /** Locales deleted here that a push with `prune: true` would remove from the store. */
  removedLocales: Partial<Record<Store, string[]>>;
  /** Slots whose screenshots or previews differ from the store's. */
  media: MediaChanges;
  mediaChangeCount: number;
  /** Google Play release notes that differ from the store's: track → version code → language. */
  releaseNotes: Record<string, Record<string, Record<string, FieldChange>>>;
  releaseNoteChangeCount: number;
  /** Product texts that differ from the store's: store → product id → locale → field. */
  products: Partial<Record<Store, Record<string, Record<string, Record<string, FieldChange>>>>>;
  productChangeCount: number;
  /** App details that differ from the store's: store → field (design.md §19). */
  details: Partial<Record<Store, Record<string, FieldChange>>>;
  detailChangeCount: number;
  /** SHA-256 over the whole project's pending changes: what an approval is bound to. */
  hash: string;
  approval: { required: boolean; approved: boolean; approvedBy: string | null; approvedAt: string | null };
  /** Fields changed in the store's own console since the last sync (drift detection); API diff only. */
  storeDrift?: StoreDrift[];
}

export interface StoreDrift {
  store: string;
  locale: string;
  /** The field, or `*` for a locale added in the store. */
  field: string;
  base: string | null;
  storeValue: string | null;
  detectedAt: string;
}

/** One change of a listing text, as the translation bookkeeping sees it (design.md §14). */
export interface TextChange {
  store: Store;
  locale: string;
  field: string;
  before: string | null;
  after: string | null;
  /** The source text this target was translated from, when the writer knows it (an XLIFF unit's, a draft's). */
  translatedFrom?: string | null;
}

/** Told of every batch of listing text changes, in the transaction that makes them. */
export type TextsChanged = (trx: Executor, projectId: string, changes: TextChange[]) => Promise<void>;

/** A set of field edits for one listing; `null` clears a field. */
export type FieldEdits = Record<string, string | null>;
