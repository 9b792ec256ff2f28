import type { Executor } from '../../db/database.js';
import type { MembersTable } from '../../db/tables.js';
import { FULL_SCOPE, parseScope, type Role } from '../access/index.js';
import type { Member } from './member.js';

export async function insertMember(db: Executor, row: MembersTable): Promise<void> {
  await db.insertInto('members').values(row).execute();
}

export async function listMembers(db: Executor, organizationId: string): Promise<Member[]> {
  const rows = await db
    .selectFrom('members')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('joined_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.map(toMember);
}

export async function findMember(
  db: Executor,
  organizationId: string,
  id: string,
): Promise<Member | undefined> {
  const row = await db
    .selectFrom('members')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row && toMember(row);
}

/** Operator lookup across organizations (CLI only). */
export async function findMemberAnywhere(db: Executor, id: string): Promise<MembersTable | undefined> {
  return db.selectFrom('members').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findMemberByEmail(db: Executor, organizationId: string, email: string) {
  return db
    .selectFrom('members')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('email', '=', email)
    .executeTakeFirst();
}

/** Operator lookup across organizations (CLI only): every membership of an address. */
export async function findMembersByEmailAnywhere(db: Executor, email: string) {
  return db
    .selectFrom('members')
    .select(['id', 'organization_id'])
    .where('email', '=', email)
    .orderBy('organization_id')
    .execute();
}

export async function countMembers(db: Executor, organizationId: string, role?: Role): Promise<number> {
  let query = db
    .selectFrom('members')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('organization_id', '=', organizationId);
  if (role !== undefined) query = query.where('role', '=', role);
  const row = await query.executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Sets a member's role and scope (JSON; null: everything). */
export async function updateMemberRole(
  db: Executor,
  organizationId: string,
  id: string,
  role: Role,
  access: string | null,
) {
  await db
    .updateTable('members')
    .set({ role, access })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
}

export async function deleteMember(db: Executor, organizationId: string, id: string): Promise<void> {
  await db.deleteFrom('members').where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

function toMember(row: MembersTable): Member {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role as Role,
    status: 'active',
    lastActive: row.last_active_at,
    joinedAt: row.joined_at,
    access: row.role === 'admin' ? FULL_SCOPE : parseScope(row.access),
  };
}

/** The members table, for the services that the composition root gives it to. */
export const membersRepository = {
  insert: insertMember,
  list: listMembers,
  find: findMember,
  findByEmailAnywhere: findMembersByEmailAnywhere,
  findAnywhere: findMemberAnywhere,
  findByEmail: findMemberByEmail,
  count: countMembers,
  updateRole: updateMemberRole,
  delete: deleteMember,
};

export type MembersRepository = typeof membersRepository;
