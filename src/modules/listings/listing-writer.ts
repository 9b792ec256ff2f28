/**
 * The one way listing texts are written by people (edits, reverts, copies, imports): validated
 * against the store rules, applied field by field with a history entry per change, in a
 * transaction that holds the project's listings lock.
 */
import type { Executor } from '../../db/database.js';
import { invalid, type ErrorDetail } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import type { Outbox } from '../events/index.js';
import { newId } from '../../shared/ids.js';
import { isStoreLocale, STORE_LABEL, unknownLocaleMessage, type Store } from '../../shared/stores.js';
import { actorOf } from '../audit/index.js';
import { requireLocalesInScope, type RequestContext } from '../access/index.js';
import { isLinked, lockProject, STORE_IDENTIFIER, type Project } from '../projects/index.js';
import { fieldState } from './changeset.js';
import { checkFieldValue, fieldNames, listingWarnings, type Warning } from '../../shared/listing-fields.js';
import type {
  EditSource,
  FieldEdits,
  FieldState,
  FieldView,
  Listing,
  TextChange,
  TextsChanged,
} from './listing.js';
import { listingsRepository as repo, type ListingWithFields } from './listings.repository.js';

/** One listing's edits, as import and copy gather them before applying all or nothing. */
export interface ListingEdits {
  store: Store;
  locale: string;
  edits: FieldEdits;
  /** Per field, the source text a translation was made from (XLIFF import, accepted drafts). */
  translatedFrom?: Record<string, string | null>;
}

export interface EditResult {
  listing: Listing;
  warnings: Warning[];
}

/** A listing as the API shows it: every field of its store, set or not, with its state. */
export function toListing(row: ListingWithFields): Listing {
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

/** The advice for a listing as it now stands. */
export const warningsOf = (listing: Listing): Warning[] =>
  listingWarnings(
    listing.store,
    Object.fromEntries(Object.entries(listing.fields).map(([name, view]) => [name, view.value])),
  );

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
        message: unknownLocaleMessage(entry.store, entry.locale),
      });
      continue;
    }
    for (const [field, value] of Object.entries(entry.edits)) {
      const problem = checkFieldValue(entry.store, field, value);
      if (problem !== null) details.push({ field: where(field), ...problem });
    }
  }
  if (details.length > 0) {
    throw invalid(`Invalid listing: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, details);
  }
}

export function createListingWriter(deps: {
  db: Executor;
  clock: Clock;
  outbox: Pick<Outbox, 'emit'>;
  /** The translation bookkeeping, told of every change in the same transaction. */
  textsChanged?: TextsChanged;
}) {
  const { db, clock, outbox, textsChanged } = deps;

  /**
   * Runs `work` in a transaction that holds the project's listings lock (lockProject):
   * every write of a project's listings reads the fields as the previous one left them.
   */
  const writeListings = <T>(projectId: string, work: (trx: Executor) => Promise<T>): Promise<T> =>
    db.transaction().execute(async (trx) => {
      await lockProject(trx, projectId);
      return work(trx);
    });

  /**
   * Applies one listing's edits inside writeListings: creates (or revives) the locale, writes the
   * fields whose value changes, records each change in the history. Editing a field in conflict
   * resolves the conflict: the store's value becomes the base, so a push writes the local value.
   * The changes go to the translation bookkeeping at once, or into `batch` for the caller to hand
   * over together (a source and its translations imported at once are then current).
   */
  async function applyEdits(
    trx: Executor,
    ctx: RequestContext,
    projectId: string,
    entry: ListingEdits,
    source: EditSource,
    batch?: TextChange[],
  ): Promise<Listing> {
    // Every text a person writes comes through here: the caller's scope is checked here once.
    requireLocalesInScope(ctx, [entry.locale]);
    const at = clock.now().toISOString();
    const actor = actorOf(ctx);
    let row = await repo.find(trx, projectId, entry.store, entry.locale);
    if (row === undefined) {
      row = await repo.insert(trx, {
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
      await repo.setStatus(trx, row.id, 'active', at);
    }
    const existing = new Map((await repo.listFields(trx, row.id)).map((f) => [f.field, f]));
    const history = [];
    const changes: TextChange[] = [];
    for (const [field, raw] of Object.entries(entry.edits)) {
      const value = normalizeValue(raw);
      const current = existing.get(field);
      const before = current?.value ?? null;
      if (before === value && current?.in_conflict !== 1) continue;
      const written = {
        listing_id: row.id,
        field,
        value,
        base: current?.in_conflict === 1 ? current.conflict_value : (current?.base ?? null),
        conflict_value: null,
        in_conflict: 0,
        updated_at: at,
      };
      await repo.upsertField(trx, written);
      existing.set(field, written);
      if (before !== value) {
        changes.push({
          store: entry.store,
          locale: entry.locale,
          field,
          before,
          after: value,
          ...(entry.translatedFrom !== undefined &&
            Object.hasOwn(entry.translatedFrom, field) && { translatedFrom: entry.translatedFrom[field] }),
        });
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
          actor_member_id: actor.memberId,
          actor_operator: actor.operator,
          created_at: at,
        });
      }
    }
    await repo.insertHistory(trx, history);
    await repo.touch(trx, row.id, at);
    if (batch !== undefined) batch.push(...changes);
    else if (changes.length > 0) await textsChanged?.(trx, projectId, changes);
    if (history.length > 0) {
      await outbox.emit(trx, ctx.organizationId, 'listing.updated', {
        projectId,
        store: entry.store,
        locale: entry.locale,
        fields: history.map((h) => h.field),
        source,
        actor: actor.memberId ?? actor.operator,
      });
    }
    // The fields as written: the project's listings lock keeps every other writer out until commit,
    // so reading them back would cost a round trip to learn nothing.
    return toListing({ ...row, status: 'active', updated_at: at, fields: [...existing.values()] });
  }

  return {
    writeListings,
    applyEdits,

    /**
     * Validates a batch of edits (every problem at once) and applies them all in one
     * transaction, or none: a bad file of an import changes nothing.
     */
    async applyAll(
      ctx: RequestContext,
      project: Project,
      batch: ListingEdits[],
      source: EditSource,
      describe?: (e: ListingEdits, field?: string) => string,
      /** Runs in the same transaction after the edits (e.g. the audit entry of an import). */
      alsoInTransaction?: (trx: Executor) => Promise<void>,
    ): Promise<EditResult[]> {
      validateEdits(project, batch, describe);
      // All the locales out of scope are named at once, before anything is written.
      requireLocalesInScope(
        ctx,
        batch.map((entry) => entry.locale),
      );
      const listings = await writeListings(project.id, async (trx) => {
        const written: Listing[] = [];
        const changes: TextChange[] = [];
        for (const entry of batch) {
          written.push(await applyEdits(trx, ctx, project.id, entry, source, changes));
        }
        if (changes.length > 0) await textsChanged?.(trx, project.id, changes);
        await alsoInTransaction?.(trx);
        return written;
      });
      return listings.map((listing) => ({ listing, warnings: warningsOf(listing) }));
    },
  };
}

export type ListingWriter = ReturnType<typeof createListingWriter>;
