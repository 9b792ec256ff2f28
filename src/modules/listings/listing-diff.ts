/**
 * What a push would change — the pending changeset of a project — as people review it (the diff)
 * and as a push plans from it, with whether an admin approved exactly it.
 */
import type { Executor } from '../../db/database.js';
import type { Store, StoreSelection } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import { parseSettings, type OrganizationsRepository } from '../organizations/index.js';
import type { ProjectsService } from '../projects/index.js';
import { mediaChangesOf } from '../media/index.js';
import {
  changesetOf,
  countsByStore,
  isEmpty,
  type Changeset,
  type ProductChanges,
  type DetailChanges,
  type ReleaseNotesChanges,
} from './changeset.js';
import type { ListingDiff, StoreDrift } from './listing.js';
import { listingsRepository as repo } from './listings.repository.js';

export type ApprovalState = ListingDiff['approval'];

/** A project's pending changeset and whether an admin approved exactly it. */
export interface Pending {
  changeset: Changeset;
  approval: ApprovalState;
}

export interface DiffsDeps {
  db: Executor;
  projects: Pick<ProjectsService, 'require'>;
  organizations: Pick<OrganizationsRepository, 'find'>;
  /** The pending Google Play release notes (the releases module's, given here to keep listings apart). */
  releaseNotes?: (
    executor: Executor,
    projectId: string,
  ) => Promise<{ changes: ReleaseNotesChanges; count: number }>;
  /** The pending product texts (the products module's, given here likewise). */
  products?: (executor: Executor, projectId: string) => Promise<{ changes: ProductChanges; count: number }>;
  /** The pending app details (the details module's, given here likewise). */
  details?: (executor: Executor, projectId: string) => Promise<{ changes: DetailChanges; count: number }>;
}

export function createDiffs({ db, projects, organizations, releaseNotes, products, details }: DiffsDeps) {
  /** Whether the pending changes need an approval, and whether this exact changeset has one. */
  async function approvalOf(
    executor: Executor,
    ctx: RequestContext,
    projectId: string,
    changeset: Changeset,
  ): Promise<ApprovalState> {
    const org = await organizations.find(executor, ctx.organizationId);
    const required = org !== undefined && parseSettings(org.settings).requireApproval;
    const approval = await repo.latestApproval(executor, projectId);
    const approved = !isEmpty(changeset) && approval?.diff_hash === changeset.hash;
    return {
      required,
      approved,
      approvedBy: approved ? approval.approved_by : null,
      approvedAt: approved ? approval.created_at : null,
    };
  }

  /**
   * The project's pending changeset, read once, with its approval state. A push plans from it
   * and checks its approval against it while holding the project's operation lock, so what is
   * pushed is exactly what was approved. `executor`: a transaction to read it in.
   */
  async function pending(ctx: RequestContext, projectId: string, executor: Executor = db): Promise<Pending> {
    const changeset = changesetOf(
      await repo.listWithFields(executor, ctx.organizationId, projectId),
      await mediaChangesOf(executor, projectId),
      releaseNotes === undefined ? undefined : await releaseNotes(executor, projectId),
      products === undefined ? undefined : await products(executor, projectId),
      details === undefined ? undefined : await details(executor, projectId),
    );
    return { changeset, approval: await approvalOf(executor, ctx, projectId, changeset) };
  }

  /** The diff as the API shows it; the hash and approval always cover every store. */
  const diffOf = ({ changeset, approval }: Pending): ListingDiff => ({
    inSync: isEmpty(changeset),
    counts: countsByStore(changeset),
    changeCount: changeset.changeCount,
    stores: changeset.stores,
    removedLocales: changeset.removedLocales,
    media: changeset.media,
    mediaChangeCount: changeset.mediaChangeCount,
    releaseNotes: changeset.releaseNotes,
    releaseNoteChangeCount: changeset.releaseNoteChangeCount,
    products: changeset.products,
    productChangeCount: changeset.productChangeCount,
    details: changeset.details,
    detailChangeCount: changeset.detailChangeCount,
    hash: changeset.hash,
    approval,
  });

  return {
    pending,
    diffOf,

    /** What a push would change, per store, locale and field; `store` narrows what is shown. */
    async diff(
      ctx: RequestContext,
      projectId: string,
      store: StoreSelection = 'both',
    ): Promise<ListingDiff & { storeDrift: StoreDrift[] }> {
      authorize(ctx, 'listings.diff');
      await projects.require(ctx, projectId);
      const drift = await repo.storeDrift(db, projectId);
      const diff = { ...diffOf(await pending(ctx, projectId)), storeDrift: drift };
      if (store === 'both') return diff;
      const only = <T>(byStore: Partial<Record<Store, T>>) =>
        byStore[store] === undefined ? {} : { [store]: byStore[store] };
      const stores = only(diff.stores);
      const changeCount = Object.values(stores[store] ?? {}).reduce(
        (n, fields) => n + Object.keys(fields).length,
        0,
      );
      const removedLocales = only(diff.removedLocales);
      const media = only(diff.media);
      const mediaChangeCount = Object.values(media[store] ?? {}).reduce(
        (n, slots) => n + Object.keys(slots).length,
        0,
      );
      const notes = store === 'playstore' ? diff.releaseNoteChangeCount : 0;
      const products = only(diff.products);
      const productChangeCount = Object.values(products[store] ?? {}).reduce(
        (n, byLocale) => n + Object.values(byLocale).reduce((m, fields) => m + Object.keys(fields).length, 0),
        0,
      );
      return {
        ...diff,
        stores,
        removedLocales,
        changeCount,
        media,
        mediaChangeCount,
        releaseNotes: store === 'playstore' ? diff.releaseNotes : {},
        releaseNoteChangeCount: notes,
        products,
        productChangeCount,
        details: only(diff.details),
        detailChangeCount: Object.keys(diff.details[store] ?? {}).length,
        counts: diff.counts[store] === undefined ? {} : { [store]: diff.counts[store] },
        inSync:
          changeCount === 0 &&
          mediaChangeCount === 0 &&
          notes === 0 &&
          productChangeCount === 0 &&
          diff.details[store] === undefined &&
          removedLocales[store] === undefined,
        storeDrift: drift.filter((d) => d.store === store),
      };
    },
  };
}

export type Diffs = ReturnType<typeof createDiffs>;
