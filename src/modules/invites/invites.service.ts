import type { Executor } from '../../db/database.js';
import { isUniqueViolation } from '../../db/errors.js';
import { invalid, invalidField, notFound, usageLimitExceeded } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { RequestContext } from '../access/context.js';
import { authorize, type Role } from '../access/operations.js';
import { issueApiKey, type IssuedKey } from '../api-keys/api-keys.service.js';
import { actorOf, recordAudit } from '../audit/audit.js';
import { emailDomain, normalizeEmail, type Member } from '../members/member.js';
import { countMembers, findMember, findMemberByEmail, insertMember } from '../members/members.repository.js';
import { normalizeName, parseSettings } from '../organizations/organization.js';
import { findOrganization, lockOrganization } from '../organizations/organizations.repository.js';
import { PLANS, type Plan } from '../organizations/plans.js';
import { INVITE_LIFETIME_MS, type Invite, type InvitePreview, type PendingInvite } from './invite.js';
import * as invites from './invites.repository.js';

export interface CreatedInvite {
  invite: Invite;
  inviteUrl: string;
}

export interface AcceptedInvite extends IssuedKey {
  member: Member;
}

const inviteGone = () => notFound('Invite');

export function createInvitesService(deps: { db: Executor; clock: Clock; publicUrl: string }) {
  const { db, clock, publicUrl } = deps;

  /**
   * Reads an invite that can still be accepted: 404 unknown/used/revoked, 400 expired. The rules it
   * was created under are checked again as they stand now (400): the organization still admits its
   * address (allowedDomains may have changed), and whoever created it is still an admin.
   */
  async function openInvite(executor: Executor, inviteId: string, now: Date) {
    const invite = await invites.findInvite(executor, inviteId);
    if (invite === undefined || invite.status !== 'pending') throw inviteGone();
    if (invite.expires_at <= now.toISOString()) {
      throw invalidField(
        'inviteId',
        'this invite has expired; ask an admin of the organization for a new one',
      );
    }
    const org = await findOrganization(executor, invite.organization_id);
    if (org === undefined) throw inviteGone();
    const { allowedDomains } = parseSettings(org.settings);
    if (allowedDomains.length > 0 && !allowedDomains.includes(emailDomain(invite.email))) {
      throw invalidField(
        'inviteId',
        `the organization now only admits addresses at ${allowedDomains.join(', ')}; ask an admin for a new invite`,
      );
    }
    if (invite.invited_by !== null) {
      const inviter = await findMember(executor, invite.organization_id, invite.invited_by);
      if (inviter?.role !== 'admin') {
        throw invalidField(
          'inviteId',
          'whoever created this invite is no longer an admin of the organization; ask an admin for a new one',
        );
      }
    }
    return { invite, org };
  }

  return {
    /**
     * Creates a share-link invite (no e-mail is sent). Rules of design.md §7 and the seat quota of
     * §8 (members + pending invites), checked under the organization's lock so that parallel
     * invites cannot pass the quota. Re-inviting a pending address replaces its old invite.
     */
    async create(ctx: RequestContext, input: { email: string; role?: Role }): Promise<CreatedInvite> {
      authorize(ctx, 'invites.create');
      const email = normalizeEmail(input.email);
      if (email === null) throw invalidField('email', 'must be an e-mail address');
      const role = input.role ?? 'member';
      const now = clock.now();
      return db.transaction().execute(async (trx) => {
        await lockOrganization(trx, ctx.organizationId);
        const org = await findOrganization(trx, ctx.organizationId);
        if (org === undefined) throw notFound('Organization');
        const { allowedDomains } = parseSettings(org.settings);
        if (allowedDomains.length > 0 && !allowedDomains.includes(emailDomain(email))) {
          throw invalidField(
            'email',
            `the organization only admits addresses at ${allowedDomains.join(', ')}`,
          );
        }
        if ((await findMemberByEmail(trx, ctx.organizationId, email)) !== undefined) {
          throw invalidField('email', 'this address already belongs to a member');
        }
        const replaced = await invites.revokePendingForEmail(trx, ctx.organizationId, email);
        const seats = PLANS[org.plan as Plan].seats;
        if (seats !== null) {
          const used =
            (await countMembers(trx, ctx.organizationId)) +
            (await invites.countSeatHoldingInvites(trx, ctx.organizationId, now.toISOString()));
          if (used >= seats) {
            throw usageLimitExceeded(
              `The ${org.plan} plan allows ${seats} seats (members and pending invites); all are taken`,
            );
          }
        }
        const invite: Invite = {
          inviteId: newId('inv'),
          email,
          role,
          expiresAt: new Date(now.getTime() + INVITE_LIFETIME_MS).toISOString(),
        };
        await invites.insertInvite(trx, {
          id: invite.inviteId,
          organization_id: ctx.organizationId,
          email,
          role,
          status: 'pending',
          invited_by: ctx.principal.memberId,
          created_at: now.toISOString(),
          expires_at: invite.expiresAt,
          accepted_at: null,
          member_id: null,
        });
        await recordAudit(trx, {
          organizationId: ctx.organizationId,
          actor: actorOf(ctx),
          action: 'invites.create',
          target: { type: 'invite', id: invite.inviteId },
          details: { email, role, replacedInvites: replaced },
          at: now,
        });
        return { invite, inviteUrl: `${publicUrl}/invite/${invite.inviteId}` };
      });
    },

    async list(ctx: RequestContext): Promise<PendingInvite[]> {
      authorize(ctx, 'invites.list');
      const now = clock.now().toISOString();
      const rows = await invites.listPendingInvites(db, ctx.organizationId);
      return rows.map((row) => ({
        inviteId: row.id,
        email: row.email,
        role: row.role as Role,
        expiresAt: row.expires_at,
        status: row.expires_at <= now ? 'expired' : 'pending',
        invitedBy: row.invited_by,
        createdAt: row.created_at,
      }));
    },

    async revoke(ctx: RequestContext, inviteId: string): Promise<void> {
      authorize(ctx, 'invites.revoke');
      await db.transaction().execute(async (trx) => {
        if (!(await invites.revokeInvite(trx, ctx.organizationId, inviteId))) throw inviteGone();
        await recordAudit(trx, {
          organizationId: ctx.organizationId,
          actor: actorOf(ctx),
          action: 'invites.revoke',
          target: { type: 'invite', id: inviteId },
          at: clock.now(),
        });
      });
    },

    /** What the invite link shows before acceptance. No auth: the unguessable id is the credential. */
    async preview(inviteId: string): Promise<InvitePreview> {
      const { invite, org } = await openInvite(db, inviteId, clock.now());
      return {
        inviteId: invite.id,
        organizationName: org.name,
        email: invite.email,
        role: invite.role as Role,
        expiresAt: invite.expires_at,
      };
    },

    /**
     * Turns the invite into a member with a first API key (shown once). Single use: concurrent
     * acceptances of one invite create exactly one member; the others see 404.
     */
    async accept(inviteId: string, input: { name: string }): Promise<AcceptedInvite> {
      const name = normalizeName('name', input.name);
      const now = clock.now();
      const at = now.toISOString();
      return db.transaction().execute(async (trx) => {
        const { invite } = await openInvite(trx, inviteId, now);
        const memberId = newId('mem');
        if (!(await invites.claimInvite(trx, inviteId, memberId, at))) throw inviteGone();
        const member: Member = {
          id: memberId,
          email: invite.email,
          name,
          role: invite.role as Role,
          status: 'active',
          lastActive: null,
          joinedAt: at,
        };
        try {
          await insertMember(trx, {
            id: memberId,
            organization_id: invite.organization_id,
            email: member.email,
            name,
            role: member.role,
            status: 'active',
            last_active_at: null,
            joined_at: at,
          });
        } catch (error) {
          if (isUniqueViolation(error))
            throw invalid('This address already belongs to a member of the organization');
          throw error;
        }
        const actor = { memberId, keyId: null };
        await recordAudit(trx, {
          organizationId: invite.organization_id,
          actor,
          action: 'invites.accept',
          target: { type: 'invite', id: inviteId },
          details: { memberId, email: member.email, role: member.role },
          at: now,
        });
        const issued = await issueApiKey(
          trx,
          { organizationId: invite.organization_id, memberId, name: 'First key', expiresAt: null, actor },
          now,
        );
        return { member, ...issued };
      });
    },
  };
}

export type InvitesService = ReturnType<typeof createInvitesService>;
