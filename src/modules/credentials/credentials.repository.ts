import type { Executor } from '../../db/database.js';
import type { StoreCredentialsTable } from '../../db/tables.js';

export async function upsertCredentials(db: Executor, row: StoreCredentialsTable): Promise<void> {
  await db
    .insertInto('store_credentials')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['organization_id', 'store']).doUpdateSet({
        key_id: row.key_id,
        iv: row.iv,
        ciphertext: row.ciphertext,
        auth_tag: row.auth_tag,
        metadata: row.metadata,
        updated_at: row.updated_at,
        // A new key has not been checked yet.
        last_verification: null,
      }),
    )
    .execute();
}

export async function findCredentials(db: Executor, organizationId: string, store: string) {
  return db
    .selectFrom('store_credentials')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('store', '=', store)
    .executeTakeFirst();
}

export async function listCredentials(db: Executor, organizationId: string) {
  return db
    .selectFrom('store_credentials')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .execute();
}

export async function deleteCredentials(
  db: Executor,
  organizationId: string,
  store: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('store_credentials')
    .where('organization_id', '=', organizationId)
    .where('store', '=', store)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Records the answer of the last check with the store; false when the credential is gone. */
export async function setCredentialsVerification(
  db: Executor,
  organizationId: string,
  store: string,
  verification: string,
): Promise<void> {
  await db
    .updateTable('store_credentials')
    .set({ last_verification: verification })
    .where('organization_id', '=', organizationId)
    .where('store', '=', store)
    .execute();
}

/** Every row, for key rotation (operator). */
export async function allCredentials(db: Executor) {
  return db.selectFrom('store_credentials').selectAll().execute();
}

/** The store_credentials table, for the services that the composition root gives it to. */
export const credentialsRepository = {
  upsert: upsertCredentials,
  find: findCredentials,
  list: listCredentials,
  delete: deleteCredentials,
  setVerification: setCredentialsVerification,
  all: allCredentials,
};

export type CredentialsRepository = typeof credentialsRepository;
