/**
 * The bookkeeping of sync and push on app details: a sync merges each detail three-way like a
 * listing field (design.md §9); the changeset's details part lists what differs from the store
 * (a secret only as "set", never its value); a push writes the changed details and moves base up
 * to what the store took.
 */
import type { StoreDetails } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { DETAIL_FIELDS, isSecretDetail } from '../../shared/detail-fields.js';
import { newId } from '../../shared/ids.js';
import type { Store } from '../../shared/stores.js';
import type { AuditActor } from '../audit/index.js';
import { mergeField, type Conflict, type DetailChanges, type FieldChange } from '../listings/index.js';
import { lockProject } from '../projects/index.js';
import { secretMark, type DetailValues, type PlainDetail } from './detail-values.js';
import { detailsRepository as repo, type DetailHistoryRow } from './details.repository.js';

/** A store's value as appmeta keeps it: a string ("true"/"false" for a flag) or null. */
export const storedOf = (value: string | boolean | null | undefined): string | null =>
  typeof value === 'boolean' ? String(value) : value === undefined || value === '' ? null : value;

/** The value a store takes: a flag as a boolean. */
export const storeValueOf = (field: string, value: string | null): string | boolean | null =>
  field === 'review.demoAccountRequired' && value !== null ? value === 'true' : value;

export function historyRow(
  projectId: string,
  store: Store,
  field: string,
  change: { old: string | null; new: string | null },
  source: string,
  actor: Pick<AuditActor, 'memberId' | 'operator'>,
  at: string,
): DetailHistoryRow {
  const secret = isSecretDetail(store, field);
  return {
    id: newId('dth'),
    project_id: projectId,
    store,
    field,
    old_value: secret ? secretMark(change.old) : change.old,
    new_value: secret ? secretMark(change.new) : change.new,
    source,
    actor_member_id: actor.memberId,
    actor_operator: actor.operator,
    created_at: at,
  };
}

export function createDetailsBookkeeping(values: DetailValues) {
  const plainRows = async (db: Executor, projectId: string, store?: Store) =>
    (await repo.rows(db, projectId, store)).map((row) => ({
      store: row.store as Store,
      ...values.open(row),
    }));

  /** Merges what a store has into the project's details, in the caller's transaction. */
  async function merge(
    db: Executor,
    scope: { projectId: string; actor: Pick<AuditActor, 'memberId' | 'operator'> },
    store: Store,
    incoming: StoreDetails,
    at: string,
  ): Promise<{ conflicts: Conflict[]; changed: number }> {
    await lockProject(db, scope.projectId);
    const current = new Map((await plainRows(db, scope.projectId, store)).map((row) => [row.field, row]));
    const result = { conflicts: [] as Conflict[], changed: 0 };
    const history: DetailHistoryRow[] = [];
    for (const field of Object.keys(DETAIL_FIELDS[store])) {
      if (!Object.hasOwn(incoming, field)) continue;
      const row = current.get(field);
      const next = mergeField(
        row && { value: row.value, base: row.base, inConflict: row.inConflict },
        storedOf(incoming[field]),
      );
      if (next === null) continue;
      const secret = isSecretDetail(store, field);
      if (next.conflict !== undefined) {
        result.conflicts.push({
          store,
          locale: '',
          field: `details.${field}`,
          localValue: secret ? secretMark(row?.value ?? null) : (row?.value ?? null),
          storeValue: secret ? secretMark(next.conflict) : next.conflict,
        });
      }
      const plain: PlainDetail = {
        field,
        value: next.value,
        base: next.base,
        inConflict: next.conflict !== undefined,
        conflictValue: next.conflict ?? null,
        updatedAt: at,
      };
      if (plain.value === null && plain.base === null && !plain.inConflict) {
        if (row !== undefined) await repo.remove(db, { projectId: scope.projectId, store, field });
      } else await repo.upsert(db, values.row(scope.projectId, store, plain));
      if ((row?.value ?? null) !== next.value) {
        result.changed += 1;
        history.push(
          historyRow(
            scope.projectId,
            store,
            field,
            { old: row?.value ?? null, new: next.value },
            'sync',
            scope.actor,
            at,
          ),
        );
      }
    }
    await repo.insertHistory(db, history);
    return result;
  }

  /** The details part of a project's changeset. */
  async function changesOf(
    db: Executor,
    projectId: string,
  ): Promise<{ changes: DetailChanges; count: number }> {
    const changes: DetailChanges = {};
    let count = 0;
    for (const row of await plainRows(db, projectId)) {
      if (row.value === row.base && !row.inConflict) continue;
      const secret = isSecretDetail(row.store, row.field);
      // A secret's change is bound to the approval by when it was set, never by its value.
      const change: FieldChange = secret
        ? { old: secretMark(row.base), new: row.value === null ? null : `set (changed ${row.updatedAt})` }
        : { old: row.base, new: row.value };
      if (row.inConflict) {
        change.conflict = { storeValue: secret ? secretMark(row.conflictValue) : row.conflictValue };
      }
      (changes[row.store] ??= {})[row.field] = change;
      count += 1;
    }
    return { changes, count };
  }

  /** What a push writes to `store`: the changed details in the clear (conflicts left out). */
  async function pushPlan(db: Executor, projectId: string, store: Store, changes: DetailChanges) {
    const wanted = changes[store] ?? {};
    const rows = new Map((await plainRows(db, projectId, store)).map((row) => [row.field, row]));
    const plan = {
      changes: {} as StoreDetails,
      conflicts: [] as string[],
      sent: new Map<string, string | null>(),
    };
    for (const [field, change] of Object.entries(wanted)) {
      if (change.conflict !== undefined) {
        plan.conflicts.push(field);
        continue;
      }
      const value = rows.get(field)?.value ?? null;
      plan.changes[field] = storeValueOf(field, value);
      plan.sent.set(field, value);
    }
    return plan;
  }

  /** After a push: base = value for the fields the store took (unless edited meanwhile). */
  async function recordPush(
    db: Executor,
    projectId: string,
    store: Store,
    taken: { field: string; value: string | null }[],
    at: string,
  ): Promise<void> {
    await lockProject(db, projectId);
    const rows = new Map((await plainRows(db, projectId, store)).map((row) => [row.field, row]));
    for (const { field, value } of taken) {
      const row = rows.get(field);
      if (row === undefined || row.value !== value) continue;
      if (value === null) await repo.remove(db, { projectId, store, field });
      else
        await repo.upsert(
          db,
          values.row(projectId, store, {
            ...row,
            base: value,
            inConflict: false,
            conflictValue: null,
            updatedAt: at,
          }),
        );
    }
  }

  return { plainRows, merge, changesOf, pushPlan, recordPush };
}

export type DetailsBookkeeping = ReturnType<typeof createDetailsBookkeeping>;
