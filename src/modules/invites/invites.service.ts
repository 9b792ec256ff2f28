/** Invites as admins manage them: create a share link, list pending ones, revoke one. */
import type { Executor } from '../../db/database.js';
import { invalidField, notFound, usageLimitExceeded } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import {
  authorize,
  checkScope,
  scopeProjectIds,
  parseScope,
  storedScope,
  type RequestContext,
  type Role,
  type ScopeInput,
} from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import { emailDomain, normalizeEmail, type MembersRepository } from '../members/index.js';
import { parseSettings, PLANS, type OrganizationsRepository, type Plan } from '../organizations/index.js';
import { INVITE_LIFETIME_MS, type Invite, type PendingInvite } from './invite.js';
import { invitesRepository as invites } from './invites.repository.js';

export interface CreatedInvite {
  invite: Invite;
  inviteUrl: string;
}

export interface InvitesServiceDeps {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  publicUrl: string;
  organizations: Pick<OrganizationsRepository, 'find' | 'lock'>;
  members: Pick<MembersRepository, 'count' | 'findByEmail'>;
  /** Which of these ids are projects of the organization (a scope names only those). */
  knownProjects: (db: Executor, organizationId: string, ids: string[]) => Promise<ReadonlySet<string>>;
}

export const inviteGone = () => notFound('Invite');

export function createInvitesService({
  db,
  clock,
  audit,
  publicUrl,
  organizations,
  members,
  knownProjects,
}: InvitesServiceDeps) {
  return {
    /**
     * Creates a share-link invite (no e-mail is sent). Rules of design.md §7 and the seat quota of
     * §8 (members + pending invites), checked under the organization's lock so that parallel
     * invites cannot pass the quota. Re-inviting a pending address replaces its old invite.
     */
    async create(
      ctx: RequestContext,
      input: { email: string; role?: Role; access?: ScopeInput },
    ): Promise<CreatedInvite> {
      authorize(ctx, 'invites.create');
      const email = normalizeEmail(input.email);
      if (email === null) throw invalidField('email', 'must be an e-mail address');
      const role = input.role ?? 'member';
      const now = clock.now();
      return db.transaction().execute(async (trx) => {
        await organizations.lock(trx, ctx.organizationId);
        const org = await organizations.find(trx, ctx.organizationId);
        if (org === undefined) throw notFound('Organization');
        const { allowedDomains } = parseSettings(org.settings);
        if (allowedDomains.length > 0 && !allowedDomains.includes(emailDomain(email))) {
          throw invalidField(
            'email',
            `the organization only admits addresses at ${allowedDomains.join(', ')}`,
          );
        }
        if ((await members.findByEmail(trx, ctx.organizationId, email)) !== undefined) {
          throw invalidField('email', 'this address already belongs to a member');
        }
        const replaced = await invites.revokePendingForEmail(trx, ctx.organizationId, email);
        const seats = PLANS[org.plan as Plan].seats;
        if (seats !== null) {
          const used =
            (await members.count(trx, ctx.organizationId)) +
            (await invites.countSeatHolding(trx, ctx.organizationId, now.toISOString()));
          if (used >= seats) {
            throw usageLimitExceeded(
              `The ${org.plan} plan allows ${seats} seats (members and pending invites); all are taken`,
            );
          }
        }
        const known = await knownProjects(trx, ctx.organizationId, scopeProjectIds(input.access));
        const access = checkScope(input.access, role, known);
        const invite: Invite = {
          inviteId: newId('inv'),
          email,
          role,
          expiresAt: new Date(now.getTime() + INVITE_LIFETIME_MS).toISOString(),
          access,
        };
        await invites.insert(trx, {
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
          access: storedScope(access),
        });
        await audit.record(
          trx,
          ctx,
          'invites.create',
          { type: 'invite', id: invite.inviteId },
          { email, role, replacedInvites: replaced, ...(storedScope(access) !== null && { access }) },
        );
        return { invite, inviteUrl: `${publicUrl}/invite/${invite.inviteId}` };
      });
    },

    async list(ctx: RequestContext): Promise<PendingInvite[]> {
      authorize(ctx, 'invites.list');
      const now = clock.now().toISOString();
      const rows = await invites.listPending(db, ctx.organizationId);
      return rows.map((row) => ({
        inviteId: row.id,
        email: row.email,
        role: row.role as Role,
        expiresAt: row.expires_at,
        access: parseScope(row.access),
        status: row.expires_at <= now ? 'expired' : 'pending',
        invitedBy: row.invited_by,
        createdAt: row.created_at,
      }));
    },

    async revoke(ctx: RequestContext, inviteId: string): Promise<void> {
      authorize(ctx, 'invites.revoke');
      await db.transaction().execute(async (trx) => {
        if (!(await invites.revoke(trx, ctx.organizationId, inviteId))) throw inviteGone();
        await audit.record(trx, ctx, 'invites.revoke', { type: 'invite', id: inviteId });
      });
    },
  };
}

export type InvitesService = ReturnType<typeof createInvitesService>;
