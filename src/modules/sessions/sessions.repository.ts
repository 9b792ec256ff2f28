import type { Executor } from '../../db/database.js';
import { CREDENTIAL_HOLDER_COLUMNS } from '../../db/credential-holder.js';
import { preparedQuery } from '../../db/prepared.js';
import type { PasskeysTable, SessionsTable, SignInLinksTable } from '../../db/tables.js';

const sessionByHash = preparedQuery((db: Executor, hash: string) =>
  db
    .selectFrom('sessions')
    .innerJoin('members', 'members.id', 'sessions.member_id')
    .innerJoin('organizations', 'organizations.id', 'sessions.organization_id')
    .select([
      'sessions.id as sessionId',
      'sessions.token_hash as tokenHash',
      'sessions.last_seen_at as lastSeenAt',
      'sessions.expires_at as expiresAt',
      ...CREDENTIAL_HOLDER_COLUMNS,
    ])
    .where('sessions.token_hash', '=', hash),
);

/** Deletes one row of a member's; false when it was not theirs or was gone already. */
async function deleteOfMember(
  db: Executor,
  table: 'sessions' | 'passkeys',
  memberId: string,
  id: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom(table)
    .where('member_id', '=', memberId)
    .where('id', '=', id)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export const sessionsRepository = {
  insert: async (db: Executor, row: SessionsTable) => {
    await db.insertInto('sessions').values(row).execute();
  },
  /** The session with this hash, with its member and organization as they are now. */
  findByHash: async (db: Executor, hash: string) => (await sessionByHash(db, hash))[0],
  find: (db: Executor, id: string) =>
    db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst(),
  touch: async (db: Executor, id: string, at: string) => {
    await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
  },
  listOfMember: (db: Executor, memberId: string) =>
    db
      .selectFrom('sessions')
      .selectAll()
      .where('member_id', '=', memberId)
      .orderBy('last_seen_at', 'desc')
      .orderBy('id')
      .execute(),
  /** Ends one session of a member; false when it was not theirs or had ended already. */
  end: async (db: Executor, memberId: string, id: string): Promise<boolean> => {
    return deleteOfMember(db, 'sessions', memberId, id);
  },
  endOfMember: async (db: Executor, organizationId: string, memberId: string): Promise<void> => {
    await db
      .deleteFrom('sessions')
      .where('organization_id', '=', organizationId)
      .where('member_id', '=', memberId)
      .execute();
  },
  /** Sessions past their absolute or idle end; removed as sign-ins happen, so the table stays small. */
  removeExpired: async (db: Executor, now: string, idleSince: string): Promise<void> => {
    await db
      .deleteFrom('sessions')
      .where((eb) => eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', idleSince)]))
      .execute();
  },
  setRegistrationChallenge: async (db: Executor, id: string, challenge: string | null) => {
    await db
      .updateTable('sessions')
      .set({ registration_challenge: challenge })
      .where('id', '=', id)
      .execute();
  },
};

export const signInLinksRepository = {
  insert: async (db: Executor, row: SignInLinksTable) => {
    await db.insertInto('sign_in_links').values(row).execute();
  },
  /**
   * Marks the unused, unexpired link with this hash as used, in one statement so that two
   * redemptions of one link cannot both succeed; returns it, or undefined.
   */
  claim: (db: Executor, hash: string, now: string) =>
    db
      .updateTable('sign_in_links')
      .set({ used_at: now })
      .where('token_hash', '=', hash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['id', 'organization_id', 'member_id'])
      .executeTakeFirst(),
  findByHash: (db: Executor, hash: string) =>
    db.selectFrom('sign_in_links').selectAll().where('token_hash', '=', hash).executeTakeFirst(),
};

export const passkeysRepository = {
  insert: async (db: Executor, row: PasskeysTable) => {
    await db.insertInto('passkeys').values(row).execute();
  },
  findByCredentialId: (db: Executor, credentialId: string) =>
    db
      .selectFrom('passkeys')
      .innerJoin('members', 'members.id', 'passkeys.member_id')
      .selectAll('passkeys')
      .select(['members.status as memberStatus'])
      .where('passkeys.credential_id', '=', credentialId)
      .executeTakeFirst(),
  listOfMember: (db: Executor, memberId: string) =>
    db
      .selectFrom('passkeys')
      .selectAll()
      .where('member_id', '=', memberId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  used: async (db: Executor, id: string, counter: number, at: string) => {
    await db.updateTable('passkeys').set({ counter, last_used_at: at }).where('id', '=', id).execute();
  },
  remove: async (db: Executor, memberId: string, id: string): Promise<boolean> => {
    return deleteOfMember(db, 'passkeys', memberId, id);
  },
};

export const challengesRepository = {
  insert: async (db: Executor, row: { id: string; challenge: string; expires_at: string }) => {
    await db.insertInto('webauthn_challenges').values(row).execute();
  },
  /** Takes a challenge out (single use), if it has not expired; expired ones are removed too. */
  take: async (db: Executor, id: string, now: string): Promise<string | undefined> => {
    await db.deleteFrom('webauthn_challenges').where('expires_at', '<=', now).execute();
    const row = await db
      .deleteFrom('webauthn_challenges')
      .where('id', '=', id)
      .returning('challenge')
      .executeTakeFirst();
    return row?.challenge;
  },
};
