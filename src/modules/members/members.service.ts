import type { Executor } from '../../db/database.js';
import { invalidField, notFound } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import type { RequestContext } from '../access/context.js';
import { authorize, type Role } from '../access/operations.js';
import { revokeKeysOfMember } from '../api-keys/api-keys.repository.js';
import { actorOf, recordAudit } from '../audit/audit.js';
import { lockOrganization } from '../organizations/organizations.repository.js';
import type { Member } from './member.js';
import * as members from './members.repository.js';

export function createMembersService(deps: { db: Executor; clock: Clock }) {
  const { db, clock } = deps;

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
      await lockOrganization(trx, ctx.organizationId);
      const member = await members.findMember(trx, ctx.organizationId, memberId);
      if (member === undefined) throw notFound('Member');
      if (removesAdmin(member) && (await members.countMembers(trx, ctx.organizationId, 'admin')) <= 1) {
        throw invalidField('memberId', 'the organization must keep at least one admin');
      }
      return change(trx, member);
    });
  }

  return {
    async list(ctx: RequestContext): Promise<Member[]> {
      authorize(ctx, 'members.list');
      return members.listMembers(db, ctx.organizationId);
    },

    /** Changes a member's role; 400 when it would demote the last admin. */
    async updateRole(ctx: RequestContext, memberId: string, role: Role): Promise<{ id: string; role: Role }> {
      authorize(ctx, 'members.updateRole');
      return changeMember(
        ctx,
        memberId,
        (member) => member.role === 'admin' && role !== 'admin',
        async (trx, member) => {
          if (member.role !== role) {
            await members.updateMemberRole(trx, ctx.organizationId, member.id, role);
            await recordAudit(trx, {
              organizationId: ctx.organizationId,
              actor: actorOf(ctx),
              action: 'members.updateRole',
              target: { type: 'member', id: member.id },
              details: { from: member.role, to: role },
              at: clock.now(),
            });
          }
          return { id: member.id, role };
        },
      );
    },

    /** Removes a member and revokes all its keys in the same transaction; 400 for the last admin. */
    async remove(ctx: RequestContext, memberId: string): Promise<Member> {
      authorize(ctx, 'members.remove');
      return changeMember(
        ctx,
        memberId,
        (member) => member.role === 'admin',
        async (trx, member) => {
          const now = clock.now();
          await revokeKeysOfMember(trx, ctx.organizationId, member.id, now.toISOString());
          await members.deleteMember(trx, ctx.organizationId, member.id);
          await recordAudit(trx, {
            organizationId: ctx.organizationId,
            actor: actorOf(ctx),
            action: 'members.remove',
            target: { type: 'member', id: member.id },
            details: { email: member.email, role: member.role },
            at: now,
          });
          return member;
        },
      );
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
