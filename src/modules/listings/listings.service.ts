/** Listings of a project: read them, edit one, delete a locale, its history and reverts, copies. */
import type { Executor } from '../../db/database.js';
import { invalid, invalidField, notFound } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { mapLocale, STORE_LABEL, type Store } from '../../shared/stores.js';
import { authorize, requireLocalesInScope, type OperationId, type RequestContext } from '../access/index.js';
import { historyActor, type AuditLog } from '../audit/index.js';
import type { ProjectsService } from '../projects/index.js';
import {
  CROSS_STORE_FIELDS,
  fieldNames,
  isStoreField,
  listingWarnings,
  type Warning,
} from '../../shared/listing-fields.js';
import type { EditSource, FieldEdits, HistoryEntry, Listing } from './listing.js';
import {
  toListing,
  validateEdits,
  warningsOf,
  type EditResult,
  type ListingWriter,
} from './listing-writer.js';
import { listingsRepository as repo } from './listings.repository.js';

export interface ListingsServiceDeps {
  db: Executor;
  clock: Clock;
  projects: Pick<ProjectsService, 'require'>;
  writer: ListingWriter;
  audit: Pick<AuditLog, 'record'>;
}

/** A listing as an audit entry's target. */
const listingTarget = (projectId: string, store: Store, locale: string) => ({
  type: 'listing',
  id: `${store}/${locale}`,
  projectId,
});

export function createListingsService({ db, clock, projects, writer, audit }: ListingsServiceDeps) {
  async function readListing(
    executor: Executor,
    ctx: RequestContext,
    projectId: string,
    store: Store,
    locale: string,
  ) {
    const row = await repo.find(executor, projectId, store, locale);
    if (row === undefined || row.status !== 'active' || row.organization_id !== ctx.organizationId) {
      throw notFound(`Listing ${store}/${locale}`);
    }
    return { row, listing: toListing({ ...row, fields: await repo.listFields(executor, row.id) }) };
  }

  /**
   * Validates and writes one listing's edits, answering the listing and its warnings; `action`'s
   * audit entry is written with them.
   */
  async function edit(
    ctx: RequestContext,
    action: OperationId,
    projectId: string,
    entry: { store: Store; locale: string; edits: FieldEdits },
    source: EditSource,
    describe?: (entry: unknown, field?: string) => string,
  ): Promise<EditResult> {
    const project = await projects.require(ctx, projectId);
    requireLocalesInScope(ctx, [entry.locale]);
    validateEdits(project, [entry], describe);
    const listing = await writer.writeListings(projectId, async (trx) => {
      const written = await writer.applyEdits(trx, ctx, projectId, entry, source);
      await audit.record(trx, ctx, action, listingTarget(projectId, entry.store, entry.locale), {
        fields: Object.keys(entry.edits),
      });
      return written;
    });
    return { listing, warnings: warningsOf(listing) };
  }

  /** The partial update, audited as `action`: a listing edit, or an operation made of one (What's New). */
  async function updateAs(
    ctx: RequestContext,
    action: OperationId,
    projectId: string,
    store: Store,
    locale: string,
    edits: FieldEdits,
  ): Promise<EditResult> {
    if (Object.keys(edits).length === 0) {
      await projects.require(ctx, projectId);
      throw invalid('Give at least one field to change');
    }
    return edit(ctx, action, projectId, { store, locale, edits }, 'edit');
  }

  return {
    /** Every active listing of the project, by store then locale. */
    async list(ctx: RequestContext, projectId: string): Promise<Listing[]> {
      authorize(ctx, 'listings.list');
      await projects.require(ctx, projectId);
      const rows = await repo.listWithFields(db, ctx.organizationId, projectId);
      return rows.filter((row) => row.status === 'active').map(toListing);
    },

    async get(ctx: RequestContext, projectId: string, store: Store, locale: string): Promise<Listing> {
      authorize(ctx, 'listings.get');
      await projects.require(ctx, projectId);
      return (await readListing(db, ctx, projectId, store, locale)).listing;
    },

    /**
     * Partial update of one listing; creates the locale if new. Validated as a whole (400 with a
     * detail per bad field); advice comes back as warnings without blocking.
     */
    async update(
      ctx: RequestContext,
      projectId: string,
      store: Store,
      locale: string,
      edits: FieldEdits,
    ): Promise<EditResult> {
      authorize(ctx, 'listings.update');
      return updateAs(ctx, 'listings.update', projectId, store, locale, edits);
    },

    updateAs,

    /**
     * Checks edits as an update would — every problem at once, 400 with one detail per field — and
     * writes nothing; answers the advice the texts would get (the listing as it would be).
     */
    async validate(
      ctx: RequestContext,
      projectId: string,
      store: Store,
      locale: string,
      edits: FieldEdits,
    ): Promise<{ valid: true; warnings: Warning[] }> {
      authorize(ctx, 'listings.validate');
      const project = await projects.require(ctx, projectId);
      requireLocalesInScope(ctx, [locale]);
      validateEdits(project, [{ store, locale, edits }]);
      const row = await repo.find(db, projectId, store, locale);
      const current =
        row === undefined || row.status !== 'active'
          ? {}
          : Object.fromEntries((await repo.listFields(db, row.id)).map((f) => [f.field, f.value]));
      return { valid: true, warnings: listingWarnings(store, { ...current, ...edits }) };
    },

    /**
     * Deletes the local locale. A locale the store has (any base value) stays as a removal that
     * only a push with `prune: true` carries out; one that never reached the store is gone at once.
     */
    async remove(ctx: RequestContext, projectId: string, store: Store, locale: string) {
      authorize(ctx, 'listings.delete');
      await projects.require(ctx, projectId);
      requireLocalesInScope(ctx, [locale]);
      return writer.writeListings(projectId, async (trx) => {
        const { row, listing } = await readListing(trx, ctx, projectId, store, locale);
        const inStore = Object.values(listing.fields).some((f) => f.base !== null);
        if (inStore) await repo.setStatus(trx, row.id, 'removed', clock.now().toISOString());
        else await repo.delete(trx, row.id);
        await audit.record(trx, ctx, 'listings.delete', listingTarget(projectId, store, locale), {
          pendingStoreRemoval: inStore,
        });
        return { deleted: true, pendingStoreRemoval: inStore };
      });
    },

    async history(
      ctx: RequestContext,
      projectId: string,
      store: Store,
      locale: string,
      page: { limit: number; offset: number },
    ): Promise<{ entries: HistoryEntry[]; total: number }> {
      authorize(ctx, 'listings.history');
      await projects.require(ctx, projectId);
      const { rows, total } = await repo.listHistory(db, projectId, store, locale, page);
      if (total === 0 && (await repo.find(db, projectId, store, locale)) === undefined) {
        throw notFound(`Listing ${store}/${locale}`);
      }
      return {
        total,
        entries: rows.map((row) => ({
          id: row.id,
          field: row.field,
          old: row.old_value,
          new: row.new_value,
          source: row.source as EditSource,
          actor: historyActor(row, store),
          createdAt: row.created_at,
        })),
      };
    },

    /**
     * Sets a field back to its value before (default) or after the given history entry, as a new
     * edit recorded in the history; validated like any edit.
     */
    async revert(
      ctx: RequestContext,
      projectId: string,
      store: Store,
      locale: string,
      input: { historyId: string; to?: 'before' | 'after' },
    ): Promise<EditResult> {
      authorize(ctx, 'listings.revert');
      await projects.require(ctx, projectId);
      const entry = await repo.findHistoryEntry(db, projectId, input.historyId);
      if (entry === undefined || entry.store !== store || entry.locale !== locale)
        throw notFound('History entry');
      const edits = { [entry.field]: input.to === 'after' ? entry.new_value : entry.old_value };
      return edit(ctx, 'listings.revert', projectId, { store, locale, edits }, 'revert');
    },

    /**
     * Copies texts from one store/locale to another, mapping field names between the stores
     * (App Store description → Play fullDescription, name → title, subtitle → shortDescription)
     * and the locale code (stores.md §4). Validated like any edit, all or nothing.
     */
    async copy(
      ctx: RequestContext,
      projectId: string,
      input: {
        from: { store: Store; locale: string };
        to: { store: Store; locale?: string };
        fields?: string[];
      },
    ): Promise<EditResult & { copied: { from: string; to: string }[] }> {
      authorize(ctx, 'listings.copy');
      await projects.require(ctx, projectId);
      const { listing: source } = await readListing(db, ctx, projectId, input.from.store, input.from.locale);
      const toLocale = input.to.locale ?? mapLocale(input.from.store, input.to.store, input.from.locale);
      if (toLocale === null) {
        throw invalidField(
          'to.locale',
          `${STORE_LABEL[input.to.store]} has no locale for "${input.from.locale}"; name one`,
        );
      }
      const sameStore = input.from.store === input.to.store;
      const mapping = sameStore
        ? Object.fromEntries(fieldNames(input.from.store).map((f) => [f, f]))
        : CROSS_STORE_FIELDS[input.from.store];
      const wanted = input.fields ?? Object.keys(mapping);
      const edits: FieldEdits = {};
      const copied: { from: string; to: string }[] = [];
      wanted.forEach((field, index) => {
        if (!isStoreField(input.from.store, field))
          throw invalidField(`fields[${index}]`, `is not a ${input.from.store} field`);
        const target = Object.hasOwn(mapping, field) ? mapping[field] : undefined;
        if (target === undefined) {
          throw invalidField(
            `fields[${index}]`,
            `${field} has no counterpart in ${STORE_LABEL[input.to.store]}`,
          );
        }
        const value = source.fields[field]?.value ?? null;
        // Without an explicit field list, empty source fields are skipped rather than clearing the target.
        if (value === null && input.fields === undefined) return;
        edits[target] = value;
        copied.push({ from: field, to: target });
      });
      if (copied.length === 0)
        throw invalid('Nothing to copy: the source listing has no text in the mapped fields');
      const result = await edit(
        ctx,
        'listings.copy',
        projectId,
        { store: input.to.store, locale: toLocale, edits },
        'copy',
        (_entry, field) => (field ? `to.${field}` : 'to.locale'),
      );
      return { ...result, copied };
    },
  };
}

export type ListingsService = ReturnType<typeof createListingsService>;
