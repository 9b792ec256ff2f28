import type { HistoryActor } from '../audit/index.js';
import type { Store } from '../../shared/stores.js';
import type { MediaKind } from './slots.js';

/** One file placed in a slot, as the API shows it. */
export interface MediaItem {
  id: string;
  sha256: string;
  /** MD5 hex of the bytes: App Store Connect's `sourceFileChecksum`. */
  md5: string;
  kind: MediaKind;
  contentType: string;
  bytes: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  fileName: string;
  position: number;
  /** Where the bytes are (GET, with the caller's credentials). */
  url: string;
  thumbnailUrl: string | null;
}

export type SlotState = 'unchanged' | 'modified' | 'conflict';

export interface MediaSlot {
  store: Store;
  locale: string;
  slotType: string;
  /** The custom product page the slot belongs to; absent for the default product page. */
  productPage?: string;
  kind: MediaKind;
  maxItems: number;
  state: SlotState;
  /** The working copy, in order. */
  items: MediaItem[];
  /** SHA-256 of what the store had at the last sync or push, in order; null if never read. */
  base: string[] | null;
  /** The store's files when a sync found both sides changed (editing the slot resolves it). */
  conflict: string[] | null;
}

/** A slot whose working copy differs from the store's: what a push of media would do. */
export interface MediaChange {
  old: string[];
  new: string[];
  added: string[];
  removed: string[];
  /** The files both sides have are in another order. */
  reordered: boolean;
  /** Bytes a push would upload (the added files). */
  uploadBytes: number;
  /** The store's files when the slot is in conflict: a push leaves it alone until it is edited. */
  conflict?: string[];
}

/** store → locale → slot type → change. */
export type MediaChanges = Partial<Record<Store, Record<string, Record<string, MediaChange>>>>;

export type MediaEditSource =
  'upload' | 'reorder' | 'remove' | 'copy' | 'revert' | 'import' | 'sync' | 'push';

export interface MediaHistoryEntry {
  id: string;
  old: string[];
  new: string[];
  source: MediaEditSource;
  actor: HistoryActor;
  createdAt: string;
}

/** A slot as routes and tools name it: of the default product page, or of a custom one. */
export interface SlotRef {
  store: Store;
  locale: string;
  slotType: string;
  productPage?: string | undefined;
}

/** The custom product pages of a project, and why the store refuses changes to one now (design.md §18). */
export interface PageLocks {
  lockOf(projectId: string, pageId: string): Promise<{ locked: string | null } | undefined>;
}
