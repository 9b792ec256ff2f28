/**
 * What happens behind an invite link (no API key: the unguessable invite id is the credential):
 * show the invite, accept it as a new member with a first key, signed in to the dashboard.
 */
import type { Executor } from '../../db/database.js';
import type { InvitesTable } from '../../db/tables.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, invalid, invalidField } from '../../errors.js';
import type { Outbox } from '../events/index.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { parseScope, type Caller, type Role } from '../access/index.js';
import type { IssueKey, IssuedKey } from '../api-keys/index.js';
import type { AuditLog } from '../audit/index.js';
import { emailDomain, type Member, type MembersRepository } from '../members/index.js';
import { normalizeName, parseSettings, type OrganizationsRepository } from '../organizations/index.js';
import type { InvitePreview } from './invite.js';
import { invitesRepository as invites } from './invites.repository.js';
import { inviteGone } from './invites.service.js';

/** Whoever opens the link: nobody, or a caller whose key came along (an admin learns more). */
type Viewer = Pick<Caller, 'organizationId' | 'principal'> | null;

/** The browser that accepts: its user agent, and a session cookie it still holds (ended). */
export interface SignInRequest {
  userAgent: string | null;
  replacing: string | null;
}

export interface AcceptedInvite extends IssuedKey {
  member: Member;
  /**
   * The new member's dashboard session (design.md §10): the cookie's value, and its end; null when
   * the invite was accepted by a program, not on the dashboard.
   */
  session: { sessionId: string; token: string; expiresAt: string } | null;
}

export interface InviteAcceptanceDeps {
  db: Executor;
  clock: Clock;
  outbox: Pick<Outbox, 'emit'>;
  audit: AuditLog;
  organizations: Pick<OrganizationsRepository, 'find'>;
  members: Pick<MembersRepository, 'find' | 'insert'>;
  issueKey: IssueKey;
  /** Starts a dashboard session inside the caller's transaction (the sessions service). */
  startSession: (
    db: Executor,
    args: { organizationId: string; memberId: string; method: 'invite' } & SignInRequest,
  ) => Promise<NonNullable<AcceptedInvite['session']>>;
}

export function createInviteAcceptance({
  db,
  clock,
  outbox,
  audit,
  organizations,
  members,
  issueKey,
  startSession,
}: InviteAcceptanceDeps) {
  /**
   * Why an invite that exists cannot be used any more: 409 when it was accepted (saying when, and
   * by whom to an admin of its organization), 404 when it was revoked or replaced.
   */
  async function closedInvite(executor: Executor, invite: InvitesTable, viewer: Viewer) {
    if (invite.status !== 'accepted') {
      return new AppError(
        'NOT_FOUND',
        'This invite was revoked or replaced by a newer one; ask an admin of the organization for a new invite',
      );
    }
    const admin = viewer?.organizationId === invite.organization_id && viewer.principal.role === 'admin';
    const member =
      admin && invite.member_id !== null
        ? await members.find(executor, invite.organization_id, invite.member_id)
        : undefined;
    const by = member === undefined ? '' : ` by ${member.name} <${member.email}> (${member.id})`;
    return new AppError(
      'CONFLICT',
      `This invite was already used${by} on ${invite.accepted_at?.slice(0, 10) ?? 'an earlier day'}. ` +
        'An invite works once: whoever accepted it signs in with their own key or passkey, and anyone else ' +
        'needs a new invite from an admin.',
    );
  }

  /**
   * Reads an invite that can still be accepted: 404 unknown or revoked, 409 used, 400 expired. The
   * rules it was created under are checked again as they stand now (400): the organization still
   * admits its address (allowedDomains may have changed), and whoever created it is still an admin.
   */
  async function openInvite(executor: Executor, inviteId: string, now: Date, viewer: Viewer) {
    const invite = await invites.find(executor, inviteId);
    if (invite === undefined) throw inviteGone();
    if (invite.status !== 'pending') throw await closedInvite(executor, invite, viewer);
    if (invite.expires_at <= now.toISOString()) {
      throw invalidField(
        'inviteId',
        'this invite has expired; ask an admin of the organization for a new one',
      );
    }
    const org = await organizations.find(executor, invite.organization_id);
    if (org === undefined) throw inviteGone();
    const { allowedDomains } = parseSettings(org.settings);
    if (allowedDomains.length > 0 && !allowedDomains.includes(emailDomain(invite.email))) {
      throw invalidField(
        'inviteId',
        `the organization now only admits addresses at ${allowedDomains.join(', ')}; ask an admin for a new invite`,
      );
    }
    if (invite.invited_by !== null) {
      const inviter = await members.find(executor, invite.organization_id, invite.invited_by);
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
    /** What the invite link shows before acceptance. */
    async preview(inviteId: string, viewer: Viewer = null): Promise<InvitePreview> {
      const { invite, org } = await openInvite(db, inviteId, clock.now(), viewer);
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
     * acceptances of one invite create exactly one member; the others see 409.
     */
    /**
     * Accepts an invite: the member, its first key and (`signIn` given, on the dashboard) a
     * session, in one transaction.
     */
    async accept(
      inviteId: string,
      input: { name: string },
      signIn: SignInRequest | null,
      viewer: Viewer = null,
    ): Promise<AcceptedInvite> {
      const name = normalizeName('name', input.name);
      const now = clock.now();
      const at = now.toISOString();
      return db.transaction().execute(async (trx) => {
        const { invite } = await openInvite(trx, inviteId, now, viewer);
        const memberId = newId('mem');
        if (!(await invites.claim(trx, inviteId, memberId, at))) {
          const current = await invites.find(trx, inviteId);
          throw current === undefined ? inviteGone() : await closedInvite(trx, current, viewer);
        }
        const member: Member = {
          id: memberId,
          email: invite.email,
          name,
          role: invite.role as Role,
          status: 'active',
          lastActive: null,
          joinedAt: at,
          access: parseScope(invite.access),
        };
        try {
          await members.insert(trx, {
            id: memberId,
            organization_id: invite.organization_id,
            email: member.email,
            name,
            role: member.role,
            status: 'active',
            last_active_at: null,
            joined_at: at,
            access: invite.access,
          });
        } catch (error) {
          if (isUniqueViolation(error))
            throw invalid('This address already belongs to a member of the organization');
          throw error;
        }
        const actor = { memberId, keyId: null, operator: null };
        await audit.recordAs(
          trx,
          invite.organization_id,
          actor,
          'invites.accept',
          { type: 'invite', id: inviteId },
          { memberId, email: member.email, role: member.role },
        );
        await outbox.emit(trx, invite.organization_id, 'member.joined', {
          memberId,
          email: member.email,
          name,
          role: member.role,
        });
        const issued = await issueKey(trx, {
          organizationId: invite.organization_id,
          memberId,
          name: 'First key',
          expiresAt: null,
          actor,
        });
        const session =
          signIn === null
            ? null
            : await startSession(trx, {
                organizationId: invite.organization_id,
                memberId,
                method: 'invite',
                ...signIn,
              });
        return { member, session, ...issued };
      });
    },
  };
}

export type InviteAcceptance = ReturnType<typeof createInviteAcceptance>;
