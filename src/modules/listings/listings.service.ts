import type { Executor } from '../../db/database.js';
import { AppError, invalid, invalidField, notFound, type ErrorDetail } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { RequestContext } from '../access/context.js';
import { authorize } from '../access/operations.js';
import { actorOf } from '../audit/audit.js';
import { parseSettings } from '../organizations/organization.js';
import { findOrganization } from '../organizations/organizations.repository.js';
import { isLinked, STORE_IDENTIFIER, type Project } from '../projects/project.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { toProject } from '../projects/projects.repository.js';
import { isStoreLocale, mapLocale, type Store } from '../stores/locales.js';
import { STORE_LABEL } from '../sync/sync.js';
import {
  checkFieldValue,
  CROSS_STORE_FIELDS,
  fieldNames,
  isStoreField,
  listingWarnings,
  type Warning,
} from './fields.js';
import type {
  EditSource,
  FieldEdits,
  FieldState,
  FieldView,
  HistoryEntry,
  Listing,
  ListingDiff,
} from './listing.js';
import * as repo from './listings.repository.js';
import { changesetOf, fieldState, isEmpty, type Changeset } from './changeset.js';

/** A project's pending changeset and whether an admin approved exactly it. */
export interface Pending {
  changeset: Changeset;
  approval: ListingDiff['approval'];
}

export interface EditResult {
  listing: Listing;
  warnings: Warning[];
}

/** One listing's edits, as import and copy gather them before applying all or nothing. */
export interface ListingEdits {
  store: Store;
  locale: string;
  edits: FieldEdits;
}

function toListing(row: repo.ListingWithFields): Listing {
  const byName = new Map(row.fields.map((f) => [f.field, f]));
  const fields: Record<string, FieldView> = {};
  let state: FieldState = 'unchanged';
  for (const name of fieldNames(row.store as Store)) {
    const stored = byName.get(name);
    if (stored === undefined) {
      fields[name] = { value: null, base: null, state: 'unchanged' };
      continue;
    }
    const view: FieldView = { value: stored.value, base: stored.base, state: fieldState(stored) };
    if (view.state === 'conflict') view.storeValue = stored.conflict_value;
    fields[name] = view;
    if (view.state === 'conflict' || (view.state === 'modified' && state === 'unchanged')) state = view.state;
  }
  return { store: row.store as Store, locale: row.locale, state, fields, updatedAt: row.updated_at };
}

const currentValues = (listing: Listing): Record<string, string | null> =>
  Object.fromEntries(Object.entries(listing.fields).map(([name, view]) => [name, view.value]));

/** "" clears a field like null does: the stores treat an empty text as absent. */
const normalizeValue = (value: string | null): string | null => (value === '' ? null : value);

/**
 * Checks a batch of listing edits against the store rules of design.md §9: the store must be
 * linked, the locale must be one of the store's codes, every field must exist and fit its limit.
 * Reports every problem at once; `prefix` names where the edits came from (e.g. a file path).
 */
export function validateEdits(
  project: Project,
  batch: ListingEdits[],
  prefix?: (e: ListingEdits, field?: string) => string,
) {
  const details: ErrorDetail[] = [];
  for (const entry of batch) {
    const where = (field?: string) => (prefix ? prefix(entry, field) : (field ?? 'locale'));
    if (!isLinked(project, entry.store)) {
      details.push({
        field: prefix ? where() : 'store',
        message: `the project has no ${STORE_IDENTIFIER[entry.store]}: link it to ${STORE_LABEL[entry.store]} first`,
      });
      continue;
    }
    if (!isStoreLocale(entry.store, entry.locale)) {
      details.push({
        field: where(),
        message: `"${entry.locale}" is not a ${STORE_LABEL[entry.store]} locale code`,
      });
      continue;
    }
    for (const [field, value] of Object.entries(entry.edits)) {
      const problem = checkFieldValue(entry.store, field, value);
      if (problem !== null) details.push({ field: where(field), message: problem });
    }
  }
  if (details.length > 0) {
    throw invalid(`Invalid listing: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, details);
  }
}

export function createListingsService(deps: { db: Executor; clock: Clock; projects: ProjectsService }) {
  const { db, clock, projects } = deps;

  async function loadProject(ctx: RequestContext, projectId: string): Promise<Project> {
    return toProject(await projects.requireRow(ctx, projectId));
  }

  async function readListing(
    executor: Executor,
    ctx: RequestContext,
    projectId: string,
    store: Store,
    locale: string,
  ) {
    const row = await repo.findListing(executor, projectId, store, locale);
    if (row === undefined || row.status !== 'active' || row.organization_id !== ctx.organizationId) {
      throw notFound(`Listing ${store}/${locale}`);
    }
    return toListing({ ...row, fields: await repo.listFields(executor, row.id) });
  }

  /**
   * Applies one listing's edits inside a transaction: creates (or revives) the locale, writes the
   * fields whose value changes, records each change in the history. Editing a field in conflict
   * resolves the conflict: the store's value becomes the base, so a push writes the local value.
   */
  async function applyEdits(
    trx: Executor,
    ctx: RequestContext,
    projectId: string,
    entry: ListingEdits,
    source: EditSource,
  ): Promise<Listing> {
    const at = clock.now().toISOString();
    let row = await repo.findListing(trx, projectId, entry.store, entry.locale);
    if (row === undefined) {
      row = await repo.insertListing(trx, {
        id: newId('lst'),
        organization_id: ctx.organizationId,
        project_id: projectId,
        store: entry.store,
        locale: entry.locale,
        status: 'active',
        created_at: at,
        updated_at: at,
      });
    } else if (row.status !== 'active') {
      await repo.setListingStatus(trx, row.id, 'active', at);
    }
    const existing = new Map((await repo.listFields(trx, row.id)).map((f) => [f.field, f]));
    const history = [];
    for (const [field, raw] of Object.entries(entry.edits)) {
      const value = normalizeValue(raw);
      const current = existing.get(field);
      const before = current?.value ?? null;
      if (before === value && current?.in_conflict !== 1) continue;
      await repo.upsertField(trx, {
        listing_id: row.id,
        field,
        value,
        base: current?.in_conflict === 1 ? current.conflict_value : (current?.base ?? null),
        conflict_value: null,
        in_conflict: 0,
        updated_at: at,
      });
      if (before !== value) {
        history.push({
          id: newId('hist'),
          organization_id: ctx.organizationId,
          project_id: projectId,
          store: entry.store,
          locale: entry.locale,
          field,
          old_value: before,
          new_value: value,
          source,
          actor_member_id: actorOf(ctx).memberId,
          created_at: at,
        });
      }
    }
    await repo.insertHistory(trx, history);
    await repo.touchListing(trx, row.id, at);
    return toListing({
      ...row,
      status: 'active',
      updated_at: at,
      fields: await repo.listFields(trx, row.id),
    });
  }

  /** Runs `work` in a transaction that holds the project's listings lock (lockProjectListings). */
  const writeListings = <T>(projectId: string, work: (trx: Executor) => Promise<T>): Promise<T> =>
    db.transaction().execute(async (trx) => {
      await repo.lockProjectListings(trx, projectId);
      return work(trx);
    });

  /** Whether the pending changes need an approval, and whether this exact changeset has one. */
  async function approvalOf(
    executor: Executor,
    ctx: RequestContext,
    projectId: string,
    changeset: Changeset,
  ): Promise<ListingDiff['approval']> {
    const org = await findOrganization(executor, ctx.organizationId);
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

  /** The project's pending changeset, read once, with its approval state. */
  async function pending(executor: Executor, ctx: RequestContext, projectId: string): Promise<Pending> {
    const changeset = changesetOf(await repo.listListings(executor, ctx.organizationId, projectId));
    return { changeset, approval: await approvalOf(executor, ctx, projectId, changeset) };
  }

  const diffOf = ({ changeset, approval }: Pending): ListingDiff => ({
    inSync: isEmpty(changeset),
    changeCount: changeset.changeCount,
    stores: changeset.stores,
    removedLocales: changeset.removedLocales,
    hash: changeset.hash,
    approval,
  });

  return {
    async list(ctx: RequestContext, projectId: string): Promise<Listing[]> {
      authorize(ctx, 'listings.read');
      await loadProject(ctx, projectId);
      const rows = await repo.listListings(db, ctx.organizationId, projectId);
      return rows.filter((row) => row.status === 'active').map(toListing);
    },

    async get(ctx: RequestContext, projectId: string, store: Store, locale: string): Promise<Listing> {
      authorize(ctx, 'listings.read');
      await loadProject(ctx, projectId);
      return readListing(db, ctx, projectId, store, locale);
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
      authorize(ctx, 'listings.edit');
      const project = await loadProject(ctx, projectId);
      if (Object.keys(edits).length === 0) throw invalid('Give at least one field to change');
      validateEdits(project, [{ store, locale, edits }]);
      const listing = await writeListings(projectId, (trx) =>
        applyEdits(trx, ctx, projectId, { store, locale, edits }, 'edit'),
      );
      return { listing, warnings: listingWarnings(store, currentValues(listing)) };
    },

    /**
     * Deletes the local locale. A locale the store has (any base value) stays as a removal that
     * only a push with `prune: true` carries out; one that never reached the store is gone at once.
     */
    async remove(ctx: RequestContext, projectId: string, store: Store, locale: string) {
      authorize(ctx, 'listings.edit');
      await loadProject(ctx, projectId);
      return writeListings(projectId, async (trx) => {
        const listing = await readListing(trx, ctx, projectId, store, locale);
        const row = await repo.findListing(trx, projectId, store, locale);
        const inStore = Object.values(listing.fields).some((f) => f.base !== null);
        if (inStore) await repo.setListingStatus(trx, row!.id, 'removed', clock.now().toISOString());
        else await repo.deleteListing(trx, row!.id);
        return { deleted: true, pendingStoreRemoval: inStore };
      });
    },

    async diff(ctx: RequestContext, projectId: string, store: Store | 'both' = 'both'): Promise<ListingDiff> {
      authorize(ctx, 'listings.read');
      await loadProject(ctx, projectId);
      const diff = diffOf(await pending(db, ctx, projectId));
      if (store === 'both') return diff;
      // The hash and approval stay those of the whole project: an approval covers every store.
      const only = <T>(byStore: Partial<Record<Store, T>>) =>
        byStore[store] === undefined ? {} : { [store]: byStore[store] };
      const stores = only(diff.stores);
      const changeCount = Object.values(stores[store] ?? {}).reduce(
        (n, fields) => n + Object.keys(fields).length,
        0,
      );
      const removedLocales = only(diff.removedLocales);
      return {
        ...diff,
        stores,
        removedLocales,
        changeCount,
        inSync: changeCount === 0 && removedLocales[store] === undefined,
      };
    },

    async history(
      ctx: RequestContext,
      projectId: string,
      store: Store,
      locale: string,
      page: { limit: number; offset: number },
    ): Promise<{ entries: HistoryEntry[]; total: number }> {
      authorize(ctx, 'listings.read');
      await loadProject(ctx, projectId);
      const { rows, total } = await repo.listHistory(db, projectId, store, locale, page);
      if (total === 0 && (await repo.findListing(db, projectId, store, locale)) === undefined) {
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
          actor: { memberId: row.actor_member_id },
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
      authorize(ctx, 'listings.edit');
      const project = await loadProject(ctx, projectId);
      const entry = await repo.findHistoryEntry(db, projectId, input.historyId);
      if (entry === undefined || entry.store !== store || entry.locale !== locale)
        throw notFound('History entry');
      const edits = { [entry.field]: input.to === 'after' ? entry.new_value : entry.old_value };
      validateEdits(project, [{ store, locale, edits }]);
      const listing = await writeListings(projectId, (trx) =>
        applyEdits(trx, ctx, projectId, { store, locale, edits }, 'revert'),
      );
      return { listing, warnings: listingWarnings(store, currentValues(listing)) };
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
      authorize(ctx, 'listings.edit');
      const project = await loadProject(ctx, projectId);
      const source = await readListing(db, ctx, projectId, input.from.store, input.from.locale);
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
      const entry = { store: input.to.store, locale: toLocale, edits };
      validateEdits(project, [entry], (_e, field) => (field ? `to.${field}` : 'to.locale'));
      const listing = await writeListings(projectId, (trx) => applyEdits(trx, ctx, projectId, entry, 'copy'));
      return { listing, warnings: listingWarnings(entry.store, currentValues(listing)), copied };
    },

    /** Admin approval of the current pending diff; any later edit changes the diff and voids it. */
    async approve(ctx: RequestContext, projectId: string) {
      authorize(ctx, 'listings.approve');
      await loadProject(ctx, projectId);
      return writeListings(projectId, async (trx) => {
        const diff = diffOf(await pending(trx, ctx, projectId));
        if (diff.inSync) throw invalid('There are no pending changes to approve');
        const approval = {
          id: newId('appr'),
          organization_id: ctx.organizationId,
          project_id: projectId,
          diff_hash: diff.hash,
          approved_by: ctx.principal.memberId,
          created_at: clock.now().toISOString(),
        };
        await repo.insertApproval(trx, approval);
        return {
          approvalId: approval.id,
          hash: diff.hash,
          changeCount: diff.changeCount,
          approvedBy: approval.approved_by,
          approvedAt: approval.created_at,
        };
      });
    },

    /**
     * The pending changeset of a project and its approval state, read once: a push plans from it
     * and checks its approval against it (see assertPushAllowed), so what is pushed is exactly
     * what was approved. Call it while holding the project's operation lock.
     */
    pending: (ctx: RequestContext, projectId: string) => pending(db, ctx, projectId),

    /**
     * The push gate of design.md §6: with `requireApproval` on, a non-admin may push only a
     * changeset that an admin approved as it stands. Throws 403 APPROVAL_REQUIRED otherwise.
     */
    assertPushAllowed(ctx: RequestContext, { changeset, approval }: Pending): void {
      if (ctx.principal.role === 'admin') return;
      if (approval.required && !isEmpty(changeset) && !approval.approved) {
        throw new AppError(
          'APPROVAL_REQUIRED',
          'This organization requires an admin to approve pending changes before a push (POST /projects/:projectId/approvals)',
        );
      }
    },

    /**
     * Applies edits to several listings at once (import): every edit is validated first and the
     * whole batch is written in one transaction, so a bad file changes nothing.
     */
    async applyBatch(
      ctx: RequestContext,
      projectId: string,
      batch: ListingEdits[],
      source: EditSource,
      describe?: (e: ListingEdits, field?: string) => string,
    ): Promise<{ listings: Listing[]; warnings: (Warning & { store: Store; locale: string })[] }> {
      authorize(ctx, 'listings.edit');
      const project = await loadProject(ctx, projectId);
      validateEdits(project, batch, describe);
      const listings = await writeListings(projectId, async (trx) => {
        const written: Listing[] = [];
        for (const entry of batch) written.push(await applyEdits(trx, ctx, projectId, entry, source));
        return written;
      });
      const warnings = listings.flatMap((l) =>
        listingWarnings(l.store, currentValues(l)).map((w) => ({ ...w, store: l.store, locale: l.locale })),
      );
      return { listings, warnings };
    },

    /** Throws unless the caller may edit the project's listings (403) and the project exists (404). */
    async checkEditable(ctx: RequestContext, projectId: string): Promise<void> {
      authorize(ctx, 'listings.edit');
      await loadProject(ctx, projectId);
    },

    /** Sorted locales with a listing in either store: the project's `metadata.locales`. */
    locales: (projectId: string) => repo.activeLocales(db, projectId),
  };
}

export type ListingsService = ReturnType<typeof createListingsService>;
