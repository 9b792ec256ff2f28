/** Sync (design.md §9): pull each linked store's listings and merge them three-way into the project's. */
import {
  StoreError,
  type StoreConnector,
  type StoreMedia,
  type StoreMediaFile,
  type StoreProduct,
} from '../../connectors/store-connector.js';
import { pageSlot, parsePageSlot } from '../../shared/page-slots.js';
import type { Executor } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { STORES, type Store } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import { actorOf } from '../audit/index.js';
import type { CredentialsService } from '../credentials/index.js';
import { forgetDrift } from '../drift/index.js';
import { mergeSnapshot, type TextsChanged } from '../listings/index.js';
import type { MediaMerge, StoreMediaService } from '../media/index.js';
import type { ReleasesService } from '../releases/index.js';
import type { ProductMerge, ProductsService } from '../products/index.js';
import type { DetailsService } from '../details/index.js';
import type { Project, ProjectsService } from '../projects/index.js';
import type { OperationControl, OperationRun, OperationRunner } from './operation-runner.js';
import { operationsRepository as ops } from './operations.repository.js';
import {
  appRef,
  credentialsMissing,
  includes,
  selectStores,
  skipped,
  storeKey,
  type OutcomeError,
  type SyncInput,
  type SyncOutcome,
  type SyncResult,
} from './sync.js';

/** A store's refusal as an outcome; anything else is a bug and goes on as an exception. */
export const storeFailure = (error: unknown): OutcomeError => {
  if (error instanceof StoreError) return { code: error.code, message: error.message };
  throw error;
};

export interface SyncServiceDeps {
  db: Executor;
  clock: Clock;
  projects: Pick<ProjectsService, 'require'>;
  credentials: Pick<CredentialsService, 'connectorFor'>;
  runner: OperationRunner;
  media: Pick<StoreMediaService, 'merge'>;
  releases: Pick<ReleasesService, 'recordStore'>;
  products: Pick<ProductsService, 'merge'>;
  details: Pick<DetailsService, 'merge'>;
  /** The translation bookkeeping, told of the texts a sync changed. */
  textsChanged?: TextsChanged;
}

export function createSyncService({
  db,
  clock,
  projects,
  credentials,
  runner,
  media,
  releases,
  products,
  details,
  textsChanged,
}: SyncServiceDeps) {
  /**
   * In-app purchases and subscriptions, custom product pages and in-app events, read after the
   * listings; their merge has its own transaction, then the pages' screenshots are merged.
   */
  async function syncProducts(ctx: RequestContext, project: Project, store: Store, client: StoreConnector) {
    const read = await client.readProducts(appRef(project, store));
    const merged = await db
      .transaction()
      .execute((trx) => products.merge(trx, ctx, project.id, store, read.products));
    const pages = pageMediaOf(read.products);
    const mediaMerge =
      pages === null ? null : await media.merge(ctx, project.id, store, pages.media, client, pages.covers);
    ctx.log.info(
      {
        store,
        calls: read.calls,
        products: merged.products,
        conflicts: merged.conflicts.length,
        ...(mediaMerge !== null && { pageMediaSlots: mediaMerge.changedSlots }),
      },
      'store products read',
    );
    return { ...merged, conflicts: [...merged.conflicts, ...(mediaMerge?.conflicts ?? [])] };
  }

  /** App details and App Review information, merged in a transaction of their own. */
  async function syncDetails(ctx: RequestContext, project: Project, store: Store, client: StoreConnector) {
    const read = await client.readDetails(appRef(project, store));
    const merged = await db
      .transaction()
      .execute((trx) => details.merge(trx, ctx, project.id, store, read.details));
    ctx.log.info({ store, calls: read.calls, changed: merged.changed }, 'store details read');
    return merged;
  }

  /** The parts after the listings that `include` asks for, each failing on its own. */
  async function syncParts(
    ctx: RequestContext,
    project: Project,
    store: Store,
    client: StoreConnector,
    include: SyncInput['include'],
  ) {
    const out = {
      productMerge: null as ProductMerge | null,
      productError: null as OutcomeError | null,
      detailMerge: null as Awaited<ReturnType<typeof syncDetails>> | null,
      detailError: null as OutcomeError | null,
    };
    if (includes({ include }, 'products')) {
      try {
        out.productMerge = await syncProducts(ctx, project, store, client);
      } catch (error) {
        out.productError = storeFailure(error);
      }
    }
    if (includes({ include }, 'details')) {
      try {
        out.detailMerge = await syncDetails(ctx, project, store, client);
      } catch (error) {
        out.detailError = storeFailure(error);
      }
    }
    return out;
  }

  async function syncStore(
    ctx: RequestContext,
    project: Project,
    store: Store,
    control: OperationControl,
    include: SyncInput['include'],
  ) {
    control.expect(store, 0);
    const client: StoreConnector | null = await credentials.connectorFor(ctx.organizationId, store);
    if (client === null) {
      return {
        outcome: { synced: false, locales: 0, error: credentialsMissing(store) },
        locales: [],
        conflicts: [],
      };
    }
    if (!includes({ include }, 'listings')) {
      const parts = await syncParts(ctx, project, store, client, include);
      const conflicts = [...(parts.productMerge?.conflicts ?? []), ...(parts.detailMerge?.conflicts ?? [])];
      // Nothing of what was asked could be read: the store's sync failed.
      if (parts.productMerge === null && parts.detailMerge === null) {
        const error = parts.productError ?? parts.detailError;
        if (error !== null)
          return { outcome: { synced: false, locales: 0, error }, locales: [], conflicts: [] };
      }
      return {
        outcome: {
          synced: true,
          locales: 0,
          ...(parts.productMerge !== null && { products: parts.productMerge.products }),
          ...(parts.productMerge !== null && itemCounts(parts.productMerge)),
          ...(parts.detailMerge !== null &&
            parts.detailMerge.changed > 0 && { details: parts.detailMerge.changed }),
          conflicts: conflicts.length,
        },
        locales: [],
        conflicts,
        ...(parts.productError !== null && { productError: parts.productError }),
        ...(parts.detailError !== null && { detailError: parts.detailError }),
      };
    }
    try {
      const report = await client.read(appRef(project, store));
      const merge = await db.transaction().execute(async (trx) => {
        // What the store holds becomes the base: drift found before this sync is merged now.
        await forgetDrift(trx, project.id, store);
        const merged = await mergeSnapshot(
          trx,
          {
            organizationId: ctx.organizationId,
            projectId: project.id,
            actor: actorOf(ctx),
          },
          store,
          report.snapshot,
          clock.now().toISOString(),
          textsChanged,
        );
        // Versions and tracks, and Google Play's notes, in the same transaction as the texts.
        const notes = await releases.recordStore(trx, ctx, project.id, store, report.releases);
        return { ...merged, conflicts: [...merged.conflicts, ...notes] };
      });
      // Media after the texts: a file the store cannot send, or storage that is full, is a
      // failure of the media, not of the texts merged above.
      let mediaMerge: MediaMerge | null = null;
      let mediaError: OutcomeError | null = null;
      try {
        mediaMerge = await media.merge(ctx, project.id, store, report.media, client);
      } catch (error) {
        mediaError =
          error instanceof AppError ? { code: error.code, message: error.message } : storeFailure(error);
      }
      ctx.log.info(
        {
          store,
          calls: report.calls,
          locales: merge.locales.length,
          conflicts: merge.conflicts.length,
          ...(mediaMerge !== null && {
            mediaSlots: mediaMerge.changedSlots,
            downloaded: mediaMerge.downloaded,
            unsettledSlots: mediaMerge.unsettledSlots,
          }),
        },
        'store read',
      );
      // Products and details after the listings: a store that refuses them fails them, not the texts.
      const { productMerge, productError, detailMerge, detailError } = await syncParts(
        ctx,
        project,
        store,
        client,
        include,
      );
      control.expect(store, merge.locales.length);
      for (const locale of merge.locales) control.advance(store, locale);
      const conflicts = [
        ...merge.conflicts,
        ...(mediaMerge?.conflicts ?? []),
        ...(productMerge?.conflicts ?? []),
        ...(detailMerge?.conflicts ?? []),
      ];
      const outcome: SyncOutcome = {
        synced: true,
        locales: merge.locales.length,
        ...(productMerge !== null && productMerge.products > 0 && { products: productMerge.products }),
        ...(productMerge !== null && itemCounts(productMerge)),
        ...(detailMerge !== null && detailMerge.changed > 0 && { details: detailMerge.changed }),
        conflicts: conflicts.length,
      };
      return {
        outcome,
        locales: merge.locales,
        conflicts,
        ...(mediaError !== null && { mediaError }),
        ...(productError !== null && { productError }),
        ...(detailError !== null && { detailError }),
      };
    } catch (error) {
      const outcome: SyncOutcome = { synced: false, locales: 0, error: storeFailure(error) };
      return { outcome, locales: [], conflicts: [] };
    }
  }

  /** The sync of `stores` as an operation of the runner. */
  function operation(
    ctx: RequestContext,
    project: Project,
    stores: Store[],
    include: SyncInput['include'],
  ): OperationRun<undefined, SyncResult> {
    return {
      kind: 'sync',
      stores,
      locales: undefined,
      prepare: async () => undefined,
      work: async (_prepared, control) => {
        const runs = new Map(
          await Promise.all(
            stores.map(
              async (store) => [store, await syncStore(ctx, project, store, control, include)] as const,
            ),
          ),
        );
        const result: SyncResult & { status: string } = {
          syncedLocales: [...new Set([...runs.values()].flatMap((r) => r.locales))].sort(),
          appStore: { synced: false, locales: 0 },
          playStore: { synced: false, locales: 0 },
          conflicts: [...runs.values()].flatMap((r) => r.conflicts),
          failures: [],
          status: 'succeeded',
        };
        for (const store of STORES) {
          const run = runs.get(store);
          result[storeKey(store)] = run?.outcome ?? {
            synced: false,
            locales: 0,
            error: skipped(project, store),
          };
          if (run && !run.outcome.synced && run.outcome.error) {
            result.failures.push({ store, locale: null, field: null, error: run.outcome.error });
          }
          if (run?.mediaError !== undefined) {
            result.failures.push({ store, locale: null, field: 'media', error: run.mediaError });
          }
          if (run?.detailError !== undefined) {
            result.failures.push({ store, locale: null, field: 'details', error: run.detailError });
          }
          if (run?.productError !== undefined) {
            result.failures.push({ store, locale: null, field: 'products', error: run.productError });
          }
        }
        const reached = [...runs.values()].some((r) => r.outcome.synced);
        if (reached) await ops.setLastSynced(db, project.id, clock.now().toISOString());
        result.status = reached ? (result.failures.length === 0 ? 'succeeded' : 'partial') : 'failed';
        return result;
      },
      events: (result, status) => [
        {
          type: 'sync.completed',
          data: {
            projectId: project.id,
            status,
            syncedLocales: result.syncedLocales,
            appStore: result.appStore,
            playStore: result.playStore,
            failures: result.failures,
          },
        },
        ...(result.conflicts.length > 0
          ? [{ type: 'sync.conflict' as const, data: { projectId: project.id, conflicts: result.conflicts } }]
          : []),
      ],
      failureEvents: (message) => [
        { type: 'sync.completed', data: { projectId: project.id, status: 'failed', error: message } },
      ],
    };
  }

  return {
    /**
     * Pulls the stores' listings and merges them (three-way, design.md §9). 200 whenever it ran;
     * each store reports `synced` and, when false, an `error`; conflicts are listed.
     */
    async sync(ctx: RequestContext, projectId: string, input: SyncInput): Promise<SyncResult> {
      authorize(ctx, 'projects.sync');
      const project = await projects.require(ctx, projectId);
      const stores = selectStores(project, input.store ?? 'both');
      return runner.run(ctx, project, operation(ctx, project, stores, input.include));
    },

    /** Checks a sync request and describes the operation it starts (for a background run). */
    async plan(ctx: RequestContext, projectId: string, input: SyncInput) {
      authorize(ctx, 'projects.sync');
      const project = await projects.require(ctx, projectId);
      const stores = selectStores(project, input.store ?? 'both');
      return { project, run: operation(ctx, project, stores, input.include) };
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;

/**
 * The screenshots and previews of the custom product pages a store read, keyed as the media
 * library keys them, and the slots that read speaks for (each page's locales); null when none.
 */
function pageMediaOf(items: StoreProduct[]) {
  const withMedia = items.filter((item) => item.media !== undefined);
  if (withMedia.length === 0) return null;
  const media: StoreMedia = new Map();
  const localesOf = new Map<string, Set<string>>();
  for (const page of withMedia) {
    localesOf.set(page.productId, new Set(page.media!.keys()));
    for (const [locale, slots] of page.media!) {
      const target = media.get(locale) ?? new Map<string, StoreMediaFile[]>();
      for (const [slotType, files] of slots) target.set(pageSlot(page.productId, slotType), files);
      media.set(locale, target);
    }
  }
  const covers = (locale: string, key: string) => {
    const page = parsePageSlot(key);
    return page !== null && localesOf.get(page.pageId)?.has(locale) === true;
  };
  return { media, covers };
}

/** The pages and events a sync read, said only when there are any. */
const itemCounts = (merged: ProductMerge) => ({
  ...(merged.productPages > 0 && { productPages: merged.productPages }),
  ...(merged.appEvents > 0 && { appEvents: merged.appEvents }),
});
