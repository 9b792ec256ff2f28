import type { Executor } from '../../db/database.js';
import type { InvitesTable } from '../../db/tables.js';

export async function insertInvite(db: Executor, row: InvitesTable): Promise<void> {
  await db.insertInto('invites').values(row).execute();
}

export async function findInvite(db: Executor, id: string): Promise<InvitesTable | undefined> {
  return db.selectFrom('invites').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listPendingInvites(db: Executor, organizationId: string): Promise<InvitesTable[]> {
  return db
    .selectFrom('invites')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'pending')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Pending invites that still hold a seat: not yet expired. */
export async function countSeatHoldingInvites(
  db: Executor,
  organizationId: string,
  now: string,
): Promise<number> {
  const row = await db
    .selectFrom('invites')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organization_id', '=', organizationId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Revokes the pending invites of one address; answers how many there were. */
export const revokePendingForEmail = (db: Executor, organizationId: string, email: string): Promise<number> =>
  revokePending(db, organizationId, 'email', email);

export async function revokeInvite(db: Executor, organizationId: string, id: string): Promise<boolean> {
  return (await revokePending(db, organizationId, 'id', id)) === 1;
}

async function revokePending(
  db: Executor,
  organizationId: string,
  column: 'email' | 'id',
  value: string,
): Promise<number> {
  const result = await db
    .updateTable('invites')
    .set({ status: 'revoked' })
    .where('organization_id', '=', organizationId)
    .where(column, '=', value)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Marks a pending, unexpired invite accepted. One conditional UPDATE: of two clients accepting
 * the same invite at once, exactly one sees a row updated.
 */
export async function claimInvite(db: Executor, id: string, memberId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('invites')
    .set({ status: 'accepted', accepted_at: now, member_id: memberId })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The invites table, for the services that the composition root gives it to. */
export const invitesRepository = {
  insert: insertInvite,
  find: findInvite,
  listPending: listPendingInvites,
  countSeatHolding: countSeatHoldingInvites,
  revokePendingForEmail,
  revoke: revokeInvite,
  claim: claimInvite,
};

export type InvitesRepository = typeof invitesRepository;
