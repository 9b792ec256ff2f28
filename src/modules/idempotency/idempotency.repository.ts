import type { Executor } from '../../db/database.js';
import type { IdempotencyKeysTable } from '../../db/tables.js';

type Key = { organizationId: string; caller: string; key: string };

export const idempotencyRepository = {
  /** Claims a key for a request; false when a row for it exists already. */
  claim: async (db: Executor, row: IdempotencyKeysTable): Promise<boolean> => {
    const result = await db
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['organization_id', 'caller', 'key']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
  },
  find: (db: Executor, { organizationId, caller, key }: Key) =>
    db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .where('caller', '=', caller)
      .where('key', '=', key)
      .executeTakeFirst(),
  complete: async (
    db: Executor,
    { organizationId, caller, key }: Key,
    response: { statusCode: number; headers: string; body: string },
  ): Promise<void> => {
    await db
      .updateTable('idempotency_keys')
      .set({
        state: 'done',
        status_code: response.statusCode,
        response_headers: response.headers,
        response_body: response.body,
      })
      .where('organization_id', '=', organizationId)
      .where('caller', '=', caller)
      .where('key', '=', key)
      .execute();
  },
  /** Removes one key, only when its row was made at `createdAt` (not a newer claim of the same key). */
  release: async (db: Executor, { organizationId, caller, key }: Key, createdAt: string): Promise<void> => {
    await db
      .deleteFrom('idempotency_keys')
      .where('organization_id', '=', organizationId)
      .where('caller', '=', caller)
      .where('key', '=', key)
      .where('created_at', '=', createdAt)
      .execute();
  },
  /** Forgets the organization's keys made before `before` (24 hours ago). */
  removeOlder: async (db: Executor, organizationId: string, before: string): Promise<void> => {
    await db
      .deleteFrom('idempotency_keys')
      .where('organization_id', '=', organizationId)
      .where('created_at', '<', before)
      .execute();
  },
};
