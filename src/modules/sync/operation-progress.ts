/**
 * The progress of one sync or push: counted in memory and written now and then (with an
 * `operation.progress` event); each locale a push wrote recorded at once, so that a resumed push
 * skips it; and the cancel check before every store write.
 */
import { StoreError } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { Store } from '../../shared/stores.js';
import type { RequestContext } from '../access/index.js';
import type { Outbox } from '../events/index.js';
import type { Project } from '../projects/index.js';
import { operationsRepository as ops } from './operations.repository.js';

/** Progress is written at most this often (and once at the end). */
const PROGRESS_EVERY_MS = 250;

/** Media files of a push: settled by the store, refused, of how many. */
export interface MediaCount {
  done: number;
  failed: number;
  total: number;
}

export interface Progress {
  done: number;
  total: number;
  stores: Partial<
    Record<
      Store,
      { done: number; total: number; locales: string[]; media?: MediaCount; products?: MediaCount }
    >
  >;
  media?: MediaCount;
  /** Products of a push whose texts the store took, refused, of how many. */
  products?: MediaCount;
}

/** What the work of an operation may ask of its run: cancel checks and progress. */
export interface OperationControl {
  readonly operationId: string;
  /** Before each store write: throws StoreError CANCELLED once a cancel was asked for. */
  beforeWrite(store: Store): () => Promise<void>;
  /** Declares how many locales a store's part has. */
  expect(store: Store, total: number): void;
  /** One locale of a store done: counted, and recorded at once so that a resumed push skips it. */
  advance(store: Store, locale: string): void;
  /** The locales of a store this operation wrote before (a run resumed after its instance died). */
  written(store: Store): Promise<string[]>;
  /** Declares how many media files a store's part uploads. */
  expectMedia(store: Store, total: number): void;
  /** One media file settled (or refused) by a store. */
  mediaItem(store: Store, state: 'uploaded' | 'failed'): void;
  /** Declares how many products a store's part writes. */
  expectProducts(store: Store, total: number): void;
  /** One product's texts taken (or refused) by a store. */
  productItem(store: Store, state: 'written' | 'failed'): void;
}

export interface ProgressDeps {
  db: Executor;
  clock: Clock;
  outbox: Outbox;
}

const cancelledError = (store: Store) =>
  new StoreError(
    store,
    'CANCELLED',
    'Not written: the operation was cancelled before this write',
    null,
    false,
  );

/** Progress of one run: counted in memory, written (with an operation.progress event) now and then. */
export function createProgress(
  deps: ProgressDeps,
  ctx: RequestContext,
  project: Project,
  operationId: string,
  kind: 'sync' | 'push',
) {
  const { db, clock, outbox } = deps;
  const state: Progress = { done: 0, total: 0, stores: {} };
  let cancelled = false;
  let writesMarked = false;
  let dirty = false;
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  // Completion records, written as each locale is done (not debounced like progress).
  const recording = new Set<Promise<void>>();
  const recordDone = (store: Store, locale: string) => {
    // Only a push is resumed after writing (a sync that wrote is failed, never repeated).
    if (kind !== 'push') return;
    const done = ops
      .recordItemDone(db, { operation_id: operationId, store, locale, done_at: clock.now().toISOString() })
      .catch((error: unknown) =>
        ctx.log.warn({ err: error, operationId, store, locale }, 'recording a written locale failed'),
      )
      .finally(() => recording.delete(done));
    recording.add(done);
  };
  const write = () => {
    timer = null;
    if (!dirty) return writing;
    dirty = false;
    const snapshot = JSON.stringify(state);
    const data = { projectId: project.id, operationId, progress: JSON.parse(snapshot) as unknown };
    writing = writing
      .then(() =>
        db.transaction().execute(async (trx) => {
          await ops.setProgress(trx, operationId, snapshot);
          await outbox.emit(trx, ctx.organizationId, 'operation.progress', data);
        }),
      )
      .catch((error: unknown) => ctx.log.warn({ err: error, operationId }, 'recording progress failed'));
    return writing;
  };
  const changed = () => {
    dirty = true;
    timer ??= setTimeout(() => void write(), PROGRESS_EVERY_MS);
  };
  const control: OperationControl = {
    operationId,
    beforeWrite: (store) => async () => {
      if (cancelled || (await ops.cancelRequested(db, operationId))) {
        cancelled = true;
        throw cancelledError(store);
      }
      if (!writesMarked) {
        // A sync or synchronous push that dies after this point is failed, never repeated; a
        // background push is resumed with the changeset it started with (background-operations.ts).
        writesMarked = true;
        await ops.markWritesStarted(db, operationId);
      }
    },
    expect(store, total) {
      const part = (state.stores[store] ??= { done: 0, total: 0, locales: [] });
      state.total += total - part.total;
      part.total = total;
      changed();
    },
    advance(store, locale) {
      const part = (state.stores[store] ??= { done: 0, total: 0, locales: [] });
      part.done += 1;
      part.locales.push(locale);
      state.done += 1;
      recordDone(store, locale);
      changed();
    },
    written: (store) => ops.itemsDone(db, operationId, store),
    expectMedia(store, total) {
      const part = (state.stores[store] ??= { done: 0, total: 0, locales: [] });
      const all = (state.media ??= { done: 0, failed: 0, total: 0 });
      const mine = (part.media ??= { done: 0, failed: 0, total: 0 });
      all.total += total - mine.total;
      mine.total = total;
      changed();
    },
    expectProducts(store, total) {
      const part = (state.stores[store] ??= { done: 0, total: 0, locales: [] });
      const all = (state.products ??= { done: 0, failed: 0, total: 0 });
      const mine = (part.products ??= { done: 0, failed: 0, total: 0 });
      all.total += total - mine.total;
      mine.total = total;
      changed();
    },
    productItem(store, outcome) {
      const part = (state.stores[store] ??= { done: 0, total: 0, locales: [] });
      const all = (state.products ??= { done: 0, failed: 0, total: 0 });
      const mine = (part.products ??= { done: 0, failed: 0, total: 0 });
      const key = outcome === 'written' ? 'done' : 'failed';
      mine[key] += 1;
      all[key] += 1;
      changed();
    },
    mediaItem(store, outcome) {
      const part = (state.stores[store] ??= { done: 0, total: 0, locales: [] });
      const all = (state.media ??= { done: 0, failed: 0, total: 0 });
      const mine = (part.media ??= { done: 0, failed: 0, total: 0 });
      const key = outcome === 'uploaded' ? 'done' : 'failed';
      mine[key] += 1;
      all[key] += 1;
      changed();
    },
  };
  return {
    control,
    cancelled: () => cancelled,
    async flush() {
      if (timer !== null) clearTimeout(timer);
      await Promise.all([...recording]);
      await write();
    },
  };
}
