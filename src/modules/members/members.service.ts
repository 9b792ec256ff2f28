/** Members of the caller's organization: list them, change a role, remove one. */
import type { Executor } from '../../db/database.js';
import { invalidField, notFound } from '../../errors.js';
import type { Outbox } from '../events/index.js';
import type { Clock } from '../../shared/clock.js';
import {
  authorize,
  checkScope,
  scopeProjectIds,
  storedScope,
  type AccessScope,
  type RequestContext,
  type Role,
  type ScopeInput,
} from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import type { Member } from './member.js';
import { membersRepository as members } from './members.repository.js';

export interface MembersServiceDeps {
  db: Executor;
  clock: Clock;
  outbox: Pick<Outbox, 'emit'>;
  audit: AuditLog;
  /** Takes the organization's row lock for the rest of the transaction. */
  organizations: { lock(db: Executor, organizationId: string): Promise<void> };
  /** Revokes every key of a member (a removed member's keys die with it). */
  apiKeys: {
    revokeOfMember(db: Executor, organizationId: string, memberId: string, at: string): Promise<void>;
  };
  /** Ends every dashboard session of a member: at removal, and when the role changes. */
  sessions: { endOfMember(db: Executor, organizationId: string, memberId: string): Promise<void> };
  /** Which of these ids are projects of the organization (a scope names only those). */
  knownProjects: (db: Executor, organizationId: string, ids: string[]) => Promise<ReadonlySet<string>>;
}

export function createMembersService({
  db,
  clock,
  outbox,
  audit,
  organizations,
  apiKeys,
  sessions,
  knownProjects,
}: MembersServiceDeps) {
  /**
   * Runs a change to one member under the organization's lock, after checking that an admin
   * would remain: "an organization always keeps at least one admin" (design.md §6) must hold
   * even when two admins demote each other at the same moment.
   */
  async function changeMember<T>(
    ctx: RequestContext,
    memberId: string,
    removesAdmin: (member: Member) => boolean,
    change: (trx: Executor, member: Member) => Promise<T>,
  ): Promise<T> {
    return db.transaction().execute(async (trx) => {
      await organizations.lock(trx, ctx.organizationId);
      const member = await members.find(trx, ctx.organizationId, memberId);
      if (member === undefined) throw notFound('Member');
      if (removesAdmin(member) && (await members.count(trx, ctx.organizationId, 'admin')) <= 1) {
        throw invalidField('memberId', 'the organization must keep at least one admin');
      }
      return change(trx, member);
    });
  }

  return {
    async list(ctx: RequestContext): Promise<Member[]> {
      authorize(ctx, 'members.list');
      return members.list(db, ctx.organizationId);
    },

    /**
     * Changes a member's role (ending their dashboard sessions) and/or their scope (design.md §16,
     * in force from their next request); 400 when it would demote the last admin, or for a scope
     * the role cannot have. A new role without a scope keeps the scope (an admin's is everything).
     */
    async update(
      ctx: RequestContext,
      memberId: string,
      patch: { role?: Role; access?: ScopeInput },
    ): Promise<{ id: string; role: Role; access: AccessScope }> {
      authorize(ctx, 'members.updateRole');
      return changeMember(
        ctx,
        memberId,
        (member) => member.role === 'admin' && patch.role !== undefined && patch.role !== 'admin',
        async (trx, member) => {
          const role = patch.role ?? member.role;
          const wanted = patch.access ?? (role === 'admin' ? undefined : member.access);
          const known = await knownProjects(trx, ctx.organizationId, scopeProjectIds(wanted));
          const access = checkScope(wanted, role, known);
          const stored = storedScope(access);
          const changed = {
            ...(member.role !== role && { from: member.role, to: role }),
            ...(storedScope(member.access) !== stored && { access: { from: member.access, to: access } }),
          };
          if (Object.keys(changed).length > 0) {
            await members.updateRole(trx, ctx.organizationId, member.id, role, stored);
            // A new role signs the member in anew; a new scope holds from their next request.
            if (member.role !== role) await sessions.endOfMember(trx, ctx.organizationId, member.id);
            await audit.record(trx, ctx, 'members.updateRole', { type: 'member', id: member.id }, changed);
          }
          return { id: member.id, role, access };
        },
      );
    },

    /** Removes a member, revoking its keys and ending its sessions in the same transaction; 400 for the last admin. */
    async remove(ctx: RequestContext, memberId: string): Promise<Member> {
      authorize(ctx, 'members.remove');
      return changeMember(
        ctx,
        memberId,
        (member) => member.role === 'admin',
        async (trx, member) => {
          await apiKeys.revokeOfMember(trx, ctx.organizationId, member.id, clock.now().toISOString());
          await sessions.endOfMember(trx, ctx.organizationId, member.id);
          await members.delete(trx, ctx.organizationId, member.id);
          await audit.record(
            trx,
            ctx,
            'members.remove',
            { type: 'member', id: member.id },
            { email: member.email, role: member.role },
          );
          await outbox.emit(trx, ctx.organizationId, 'member.removed', {
            memberId: member.id,
            email: member.email,
            role: member.role,
          });
          return member;
        },
      );
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
