import type { Executor } from '../../db/database.js';
import { CREDENTIAL_HOLDER_COLUMNS } from '../../db/credential-holder.js';
import { preparedQuery } from '../../db/prepared.js';
import type { ApiKeysTable } from '../../db/tables.js';
import type { ApiKey } from './api-key.js';

export async function insertApiKey(db: Executor, row: ApiKeysTable): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

const keyByHash = preparedQuery((db: Executor, hash: string) =>
  db
    .selectFrom('api_keys')
    .innerJoin('members', 'members.id', 'api_keys.member_id')
    .innerJoin('organizations', 'organizations.id', 'api_keys.organization_id')
    .select([
      'api_keys.id as keyId',
      'api_keys.token_hash as tokenHash',
      'api_keys.expires_at as expiresAt',
      'api_keys.last_used_at as lastUsedAt',
      ...CREDENTIAL_HOLDER_COLUMNS,
    ])
    .where('api_keys.token_hash', '=', hash)
    .where('api_keys.revoked_at', 'is', null),
);

/** The key with this hash and the member and organization behind it, if the key is not revoked. */
export async function findActiveKeyByHash(db: Executor, hash: string) {
  const [row] = await keyByHash(db, hash);
  return row;
}

export async function listActiveKeys(
  db: Executor,
  organizationId: string,
  memberId: string,
): Promise<ApiKey[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('member_id', '=', memberId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(toApiKey);
}

export async function findActiveKey(db: Executor, organizationId: string, keyId: string) {
  const row = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row === undefined ? undefined : toApiKey(row);
}

export async function revokeKey(
  db: Executor,
  organizationId: string,
  keyId: string,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('organization_id', '=', organizationId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function revokeKeysOfMember(db: Executor, organizationId: string, memberId: string, at: string) {
  await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('organization_id', '=', organizationId)
    .where('member_id', '=', memberId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Records use of a key and activity of its member (callers write this at most once a minute). */
export async function touchKey(db: Executor, keyId: string, memberId: string, at: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId).execute();
  await db.updateTable('members').set({ last_active_at: at }).where('id', '=', memberId).execute();
}

function toApiKey(row: ApiKeysTable): ApiKey {
  return {
    id: row.id,
    name: row.name,
    memberId: row.member_id,
    prefix: row.token_prefix,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
  };
}

/** The api_keys table, for the services that the composition root gives it to. */
export const apiKeysRepository = {
  insert: insertApiKey,
  findActiveByHash: findActiveKeyByHash,
  listActive: listActiveKeys,
  findActive: findActiveKey,
  revoke: revokeKey,
  revokeOfMember: revokeKeysOfMember,
  touch: touchKey,
};

export type ApiKeysRepository = typeof apiKeysRepository;
