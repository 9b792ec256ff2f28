/**
 * Dashboard sessions: started by an API key, a one-time sign-in link, a passkey or an accepted
 * invite; resolved to a caller on every request; listed and ended by their member; ended at once
 * when the member is removed or their role changes (members calls endOfMember).
 */
import type { Executor } from '../../db/database.js';
import { AppError, invalidField, notFound, unauthorized } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { hashSecret, isSecretOf, newSecret, sameHash } from '../../shared/secret.js';
import { authorize, type Caller, type RequestContext } from '../access/index.js';
import { actorOf, operatorActor, type AuditActor, type AuditLog } from '../audit/index.js';
import { memberByEmail, type MembersRepository } from '../members/index.js';
import { activeCaller, type OrganizationsRepository } from '../organizations/index.js';
import {
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  SESSION_PREFIX,
  SESSION_TOUCH_MS,
  SIGN_IN_LINK_PREFIX,
  SIGN_IN_LINK_TTL_MS,
  type SessionInfo,
  type SignInLink,
  type SignInMethod,
  type StartedSession,
} from './session.js';
import { sessionsRepository as sessions, signInLinksRepository as links } from './sessions.repository.js';

/** What the request that signs in tells about itself. */
export interface SignInRequest {
  userAgent: string | null;
  /** The session cookie the browser still holds, ended by the new sign-in (rotation). */
  replacing: string | null;
}

export interface SessionsServiceDeps {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  publicUrl: string;
  members: Pick<MembersRepository, 'find'>;
  organizations: Pick<OrganizationsRepository, 'find'>;
  /** Resolves an API key to its caller (the api-keys service). */
  authenticateKey(authorization: string): Promise<Caller>;
}

export type StartSession = (
  db: Executor,
  args: { organizationId: string; memberId: string; method: SignInMethod } & SignInRequest,
) => Promise<StartedSession>;

export function createSessionsService(deps: SessionsServiceDeps) {
  const { db, clock, audit } = deps;

  const start: StartSession = async (trx, args) => {
    const now = clock.now();
    if (args.replacing !== null && isSecretOf(SESSION_PREFIX, args.replacing)) {
      const old = await sessions.findByHash(trx, hashSecret(args.replacing));
      if (old !== undefined) await sessions.end(trx, old.memberId, old.sessionId);
    }
    await sessions.removeExpired(
      trx,
      now.toISOString(),
      new Date(now.getTime() - SESSION_IDLE_MS).toISOString(),
    );
    const { secret, hash } = newSecret(SESSION_PREFIX);
    const id = newId('ses');
    const expiresAt = new Date(now.getTime() + SESSION_ABSOLUTE_MS).toISOString();
    await sessions.insert(trx, {
      id,
      token_hash: hash,
      organization_id: args.organizationId,
      member_id: args.memberId,
      method: args.method,
      user_agent: args.userAgent === null ? null : args.userAgent.slice(0, 300),
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: expiresAt,
      registration_challenge: null,
    });
    await audit.recordAs(
      trx,
      args.organizationId,
      { memberId: args.memberId, keyId: null, operator: null },
      'dashboard.session.create',
      { type: 'session', id },
      { method: args.method },
    );
    return { sessionId: id, token: secret, expiresAt };
  };

  function toInfo(
    row: Awaited<ReturnType<typeof sessions.listOfMember>>[number],
    current: string | undefined,
  ) {
    const info: SessionInfo = {
      id: row.id,
      method: row.method as SignInMethod,
      userAgent: row.user_agent,
      createdAt: row.created_at,
      lastSeenAt: row.last_seen_at,
      expiresAt: row.expires_at,
      current: row.id === current,
    };
    return info;
  }

  async function issueLink(organizationId: string, memberId: string, actor: AuditActor): Promise<SignInLink> {
    const now = clock.now();
    const { secret, hash } = newSecret(SIGN_IN_LINK_PREFIX);
    const id = newId('sil');
    const expiresAt = new Date(now.getTime() + SIGN_IN_LINK_TTL_MS).toISOString();
    await db.transaction().execute(async (trx) => {
      await links.insert(trx, {
        id,
        token_hash: hash,
        organization_id: organizationId,
        member_id: memberId,
        created_by_member_id: actor.memberId,
        created_by_operator: actor.operator,
        created_at: now.toISOString(),
        expires_at: expiresAt,
        used_at: null,
      });
      await audit.recordAs(
        trx,
        organizationId,
        actor,
        'dashboard.signInLinks.create',
        { type: 'member', id: memberId },
        {
          expiresAt,
        },
      );
    });
    return { url: `${deps.publicUrl}/sign-in/${secret}`, memberId, expiresAt };
  }

  return {
    start,

    /**
     * The caller behind a session cookie: the member's current role and organization plan. An
     * unknown, ended, idle (12 h) or expired (30 days) session is 401, like a bad key.
     */
    async authenticate(token: string): Promise<Caller> {
      if (!isSecretOf(SESSION_PREFIX, token)) throw unauthorized('The session has ended: sign in again');
      const hash = hashSecret(token);
      const found = await sessions.findByHash(db, hash);
      const now = clock.now();
      const caller =
        found === undefined ||
        !sameHash(found.tokenHash, hash) ||
        found.expiresAt <= now.toISOString() ||
        now.getTime() - Date.parse(found.lastSeenAt) >= SESSION_IDLE_MS
          ? null
          : activeCaller(found, { keyId: null, sessionId: found.sessionId });
      if (found === undefined || caller === null) throw unauthorized('The session has ended: sign in again');
      if (now.getTime() - Date.parse(found.lastSeenAt) >= SESSION_TOUCH_MS) {
        await sessions.touch(db, found.sessionId, now.toISOString());
      }
      return caller;
    },

    /** Signs in with an API key: a session for the key's member. */
    async signInWithKey(apiKey: string, request: SignInRequest): Promise<StartedSession> {
      if (typeof apiKey !== 'string' || apiKey.trim() === '')
        throw invalidField('apiKey', 'must not be empty');
      let caller: Caller;
      try {
        caller = await deps.authenticateKey(`Bearer ${apiKey.trim()}`);
      } catch (error) {
        if (error instanceof AppError && error.code === 'UNAUTHORIZED') {
          throw unauthorized('The API key is unknown, revoked or expired');
        }
        throw error;
      }
      return db.transaction().execute((trx) =>
        start(trx, {
          organizationId: caller.organizationId,
          memberId: caller.principal.memberId,
          method: 'api-key',
          ...request,
        }),
      );
    },

    /** Who the session (or key) belongs to: member, organization and role. */
    async whoAmI(ctx: RequestContext) {
      authorize(ctx, 'dashboard.session.get');
      const [member, organization] = await Promise.all([
        deps.members.find(db, ctx.organizationId, ctx.principal.memberId),
        deps.organizations.find(db, ctx.organizationId),
      ]);
      if (member === undefined || organization === undefined) throw notFound('Member');
      return {
        member,
        organization: { id: organization.id, name: organization.name, plan: organization.plan },
        role: member.role,
        sessionId: ctx.principal.sessionId ?? null,
      };
    },

    async list(ctx: RequestContext): Promise<SessionInfo[]> {
      authorize(ctx, 'dashboard.sessions.list');
      const rows = await sessions.listOfMember(db, ctx.principal.memberId);
      const now = clock.now().getTime();
      return rows
        .filter(
          (row) => Date.parse(row.expires_at) > now && now - Date.parse(row.last_seen_at) < SESSION_IDLE_MS,
        )
        .map((row) => toInfo(row, ctx.principal.sessionId));
    },

    /** Ends one of the caller's own sessions (sign out a device). */
    async end(ctx: RequestContext, sessionId: string): Promise<void> {
      authorize(ctx, 'dashboard.sessions.delete');
      await db.transaction().execute(async (trx) => {
        if (!(await sessions.end(trx, ctx.principal.memberId, sessionId))) throw notFound('Session');
        await audit.record(trx, ctx, 'dashboard.sessions.delete', { type: 'session', id: sessionId });
      });
    },

    /** Ends the session of this request (sign out). */
    async endCurrent(ctx: RequestContext): Promise<void> {
      authorize(ctx, 'dashboard.session.delete');
      const id = ctx.principal.sessionId;
      if (id === undefined)
        throw invalidField('session', 'this request carries no session cookie, only an API key');
      await db.transaction().execute(async (trx) => {
        await sessions.end(trx, ctx.principal.memberId, id);
        await audit.record(trx, ctx, 'dashboard.session.delete', { type: 'session', id });
      });
    },

    /** Ends every session of the caller: "sign out everywhere". */
    async endAll(ctx: RequestContext): Promise<void> {
      authorize(ctx, 'dashboard.sessions.deleteAll');
      await db.transaction().execute(async (trx) => {
        await sessions.endOfMember(trx, ctx.organizationId, ctx.principal.memberId);
        await audit.record(trx, ctx, 'dashboard.sessions.deleteAll', {
          type: 'member',
          id: ctx.principal.memberId,
        });
      });
    },

    /** A one-time sign-in link for a member of the caller's organization (admins). */
    async createSignInLink(ctx: RequestContext, memberId: string): Promise<SignInLink> {
      authorize(ctx, 'dashboard.signInLinks.create');
      const member = await deps.members.find(db, ctx.organizationId, memberId);
      if (member === undefined) throw notFound('Member');
      return issueLink(ctx.organizationId, member.id, actorOf(ctx));
    },

    /** The operator's sign-in link (`appmeta login-link`), for the member with this e-mail. */
    async createSignInLinkAsOperator(input: { email: string; organizationId?: string }, operator: string) {
      const member = await memberByEmail(db, input.email, input.organizationId);
      return issueLink(member.organizationId, member.id, operatorActor(operator));
    },

    /** Redeems a sign-in link: single use, 15 minutes; a used or expired one says so. */
    async redeemSignInLink(token: string, request: SignInRequest): Promise<StartedSession> {
      const hash = isSecretOf(SIGN_IN_LINK_PREFIX, token) ? hashSecret(token) : null;
      const now = clock.now().toISOString();
      return db.transaction().execute(async (trx) => {
        const claimed = hash === null ? undefined : await links.claim(trx, hash, now);
        if (claimed === undefined) {
          const link = hash === null ? undefined : await links.findByHash(trx, hash);
          if (link === undefined) throw notFound('Sign-in link');
          if (link.used_at !== null) {
            throw new AppError(
              'CONFLICT',
              `This sign-in link was already used on ${link.used_at}; ask an admin for a new one`,
            );
          }
          throw invalidField(
            'token',
            'this sign-in link has expired (links last 15 minutes); ask an admin for a new one',
          );
        }
        return start(trx, {
          organizationId: claimed.organization_id,
          memberId: claimed.member_id,
          method: 'sign-in-link',
          ...request,
        });
      });
    },

    /** Ends every session of a member; members calls it when the member is removed or their role changes. */
    endOfMember: sessions.endOfMember,
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
