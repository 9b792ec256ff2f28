/**
 * A detail's values as stored and as read: the demo account password is sealed with the key ring
 * (bound to its project, store and field, so a ciphertext cannot be moved to another row) and
 * opened only to compare it with the store's or to send it to the store — never to show it.
 */
import type { KeyRing, Sealed } from '../../shared/key-ring.js';
import { isSecretDetail } from '../../shared/detail-fields.js';
import type { Store } from '../../shared/stores.js';
import type { DetailRow } from './details.repository.js';

/** A row with its values in the clear (secrets included): for comparisons and pushes only. */
export interface PlainDetail {
  field: string;
  value: string | null;
  base: string | null;
  inConflict: boolean;
  conflictValue: string | null;
  updatedAt: string;
}

export function createDetailValues(keyRing: KeyRing) {
  const context = (projectId: string, store: string, field: string) =>
    `app_details:${projectId}:${store}:${field}`;

  const sealOne = (projectId: string, store: Store, field: string, value: string | null) =>
    value === null || !isSecretDetail(store, field)
      ? value
      : JSON.stringify(keyRing.seal(value, context(projectId, store, field)));

  const openOne = (projectId: string, store: Store, field: string, stored: string | null) =>
    stored === null || !isSecretDetail(store, field)
      ? stored
      : keyRing.open(JSON.parse(stored) as Sealed, context(projectId, store, field));

  return {
    seal: sealOne,
    open: (row: DetailRow): PlainDetail => {
      const store = row.store as Store;
      return {
        field: row.field,
        value: openOne(row.project_id, store, row.field, row.value),
        base: openOne(row.project_id, store, row.field, row.base),
        inConflict: row.in_conflict === 1,
        conflictValue: openOne(row.project_id, store, row.field, row.conflict_value),
        updatedAt: row.updated_at,
      };
    },
    /** The stored row of plain values. */
    row: (projectId: string, store: Store, plain: PlainDetail): DetailRow => ({
      project_id: projectId,
      store,
      field: plain.field,
      value: sealOne(projectId, store, plain.field, plain.value),
      base: sealOne(projectId, store, plain.field, plain.base),
      in_conflict: plain.inConflict ? 1 : 0,
      conflict_value: sealOne(projectId, store, plain.field, plain.conflictValue),
      updated_at: plain.updatedAt,
    }),
  };
}

export type DetailValues = ReturnType<typeof createDetailValues>;

/** What a secret's change is called where a value would be shown (history, diffs): never the value. */
export const secretMark = (value: string | null) => (value === null ? null : 'set');
