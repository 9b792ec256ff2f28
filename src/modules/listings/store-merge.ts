/**
 * The bookkeeping of sync and push on listings (design.md §9). Sync is a three-way merge of the
 * store's text into value/base; push (planned from the changeset, changeset.ts) writes the fields
 * whose value differs from base and, once a store accepted them, moves base up to value.
 */
import type { LocaleChange, StoreSnapshot } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { lockProject } from '../projects/index.js';
import { newId } from '../../shared/ids.js';
import type { Store } from '../../shared/stores.js';
import type { AuditActor } from '../audit/index.js';
import { fieldNames } from '../../shared/listing-fields.js';
import type { TextChange, TextsChanged } from './listing.js';
import type { Conflict } from './listings.schemas.js';

export type { Conflict };
import { listingsRepository as repo } from './listings.repository.js';

/** A field as it is here: the working copy, the store's value at the last sync or push. */
export interface LocalField {
  value: string | null;
  base: string | null;
  inConflict: boolean;
}

/** What a field becomes; `conflict` (the store's value) only when both sides changed it. */
export interface MergedField {
  value: string | null;
  base: string | null;
  conflict?: string | null;
}

/**
 * The three-way merge of one field (design.md §9), or null when nothing changes here. The store
 * sending "" means the field is empty, as null does (both stores treat an empty text as absent).
 * - not edited here: the field follows the store;
 * - edited here, store unchanged (still the base): the edit stays, and a conflict the store has
 *   since undone is no longer one;
 * - edited here, and the store now has the same text: in sync;
 * - edited here and changed in the store to something else: a conflict; the local value stays.
 */
export function mergeField(local: LocalField | undefined, incomingRaw: string | null): MergedField | null {
  const incoming = incomingRaw === '' ? null : incomingRaw;
  const value = local?.value ?? null;
  const base = local?.base ?? null;
  const edited = local !== undefined && (value !== base || local.inConflict);
  if (!edited) return value === incoming && base === incoming ? null : { value: incoming, base: incoming };
  if (incoming === value) return { value, base: incoming };
  if (incoming === base) return local.inConflict ? { value, base } : null;
  return { value, base, conflict: incoming };
}

export interface MergeResult {
  locales: string[];
  conflicts: Conflict[];
  changedFields: number;
}

/**
 * Merges a store snapshot into the project's listings, in the caller's transaction:
 * - a field not edited here takes the store's value (value and base);
 * - a field edited here keeps its value; if the store still has the base, nothing else changes;
 *   if the store now has the local value, the edit is simply in sync;
 * - a field changed on both sides to different texts is a conflict: the local value stays, the
 *   store's text is kept beside it until someone edits the field.
 * Locales the store no longer has are dropped here unless they carry local edits.
 */
export async function mergeSnapshot(
  db: Executor,
  scope: { organizationId: string; projectId: string; actor: Pick<AuditActor, 'memberId' | 'operator'> },
  store: Store,
  snapshot: StoreSnapshot,
  at: string,
  /** The translation bookkeeping, told of the texts the store changed here. */
  textsChanged?: TextsChanged,
): Promise<MergeResult> {
  await lockProject(db, scope.projectId);
  const existing = (await repo.listWithFields(db, scope.organizationId, scope.projectId)).filter(
    (l) => l.store === store,
  );
  const byLocale = new Map(existing.map((l) => [l.locale, l]));
  const result: MergeResult = { locales: [...snapshot.keys()].sort(), conflicts: [], changedFields: 0 };
  const history = [];
  const changes: TextChange[] = [];

  for (const [locale, storeFields] of snapshot) {
    let listing = byLocale.get(locale);
    if (listing === undefined) {
      const row = {
        id: newId('lst'),
        organization_id: scope.organizationId,
        project_id: scope.projectId,
        store,
        locale,
        status: 'active',
        created_at: at,
        updated_at: at,
      };
      listing = { ...(await repo.insert(db, row)), fields: [] };
    }
    const fields = new Map(listing.fields.map((f) => [f.field, f]));
    for (const field of fieldNames(store)) {
      const row = fields.get(field);
      const value = row?.value ?? null;
      const next = mergeField(
        row && { value, base: row.base, inConflict: row.in_conflict === 1 },
        storeFields[field] ?? null,
      );
      if (next !== null && next.conflict !== undefined) {
        result.conflicts.push({ store, locale, field, localValue: value, storeValue: next.conflict });
      }
      if (next === null) continue;
      await repo.upsertField(db, {
        listing_id: listing.id,
        field,
        value: next.value,
        base: next.base,
        conflict_value: next.conflict ?? null,
        in_conflict: next.conflict === undefined ? 0 : 1,
        updated_at: at,
      });
      if (next.value !== value) {
        result.changedFields += 1;
        changes.push({ store, locale, field, before: value, after: next.value });
        history.push({
          id: newId('hist'),
          organization_id: scope.organizationId,
          project_id: scope.projectId,
          store,
          locale,
          field,
          old_value: value,
          new_value: next.value,
          source: 'sync',
          actor_member_id: scope.actor.memberId,
          actor_operator: scope.actor.operator,
          created_at: at,
        });
      }
    }
    await repo.touch(db, listing.id, at);
  }

  for (const listing of existing) {
    if (snapshot.has(listing.locale)) continue;
    const untouched = listing.fields.every((f) => f.value === f.base && f.in_conflict === 0);
    const wasInStore = listing.fields.some((f) => f.base !== null);
    // Gone from the store and not edited here: follow the store. A locale never pushed stays.
    if (wasInStore && (untouched || listing.status === 'removed')) await repo.delete(db, listing.id);
  }
  await repo.insertHistory(db, history);
  if (changes.length > 0) await textsChanged?.(db, scope.projectId, changes);
  return result;
}

/**
 * After a store accepted a push, in the caller's transaction: base = value for the fields it took
 * — only where the value is still what was pushed, so an edit made during the push stays pending —
 * and the locales it removed (prune) are gone here too.
 */
export async function recordPush(
  db: Executor,
  scope: { projectId: string },
  store: Store,
  accepted: LocaleChange[],
  removed: string[],
  at: string,
): Promise<void> {
  await lockProject(db, scope.projectId);
  for (const change of accepted) {
    const listing = await repo.find(db, scope.projectId, store, change.locale);
    if (listing === undefined) continue;
    for (const row of await repo.listFields(db, listing.id)) {
      if (!Object.hasOwn(change.fields, row.field) || row.value !== change.fields[row.field]) continue;
      await repo.upsertField(db, { ...row, base: row.value, updated_at: at });
    }
  }
  for (const locale of removed) {
    const listing = await repo.find(db, scope.projectId, store, locale);
    if (listing !== undefined && listing.status === 'removed') await repo.delete(db, listing.id);
  }
}
