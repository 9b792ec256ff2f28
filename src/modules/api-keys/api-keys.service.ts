/** API keys: authenticate a request's key; list, create and revoke keys of oneself or (admins) others. */
import type { Executor, IdentityVersion } from '../../db/database.js';
import { invalidField, notFound, unauthorized } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { textProblem } from '../../shared/text.js';
import { authorize, type Caller, type RequestContext } from '../access/index.js';
import { actorOf, operatorActor, type AuditActor, type AuditLog } from '../audit/index.js';
import { memberByEmail, type MembersRepository } from '../members/index.js';
import { activeCaller } from '../organizations/index.js';
import { generateSecret, hashSecret, isWellFormedSecret, sameHash, type ApiKey } from './api-key.js';
import { apiKeysRepository as keys } from './api-keys.repository.js';
import { createKeyCache } from './key-cache.js';

export interface IssuedKey {
  /** The secret, shown once. */
  apiKey: string;
  key: ApiKey;
}

export interface KeyToIssue {
  organizationId: string;
  memberId: string;
  name: string;
  expiresAt: string | null;
  actor: AuditActor;
}

/** Creates a key inside the caller's transaction and records it; the secret is returned once. */
export type IssueKey = (db: Executor, args: KeyToIssue) => Promise<IssuedKey>;

export const KEY_NAME_MAX = 100;
/** A key's display name, trimmed, 1..100 characters of visible text; `fallback` when none is given. */
function keyName(raw: string | undefined, fallback: string): string {
  const name = (raw ?? fallback).trim();
  if (name.length === 0) throw invalidField('name', 'must not be empty');
  if ([...name].length > KEY_NAME_MAX)
    throw invalidField('name', `must be at most ${KEY_NAME_MAX} characters`);
  const problem = textProblem(name, { singleLine: true, visible: true });
  if (problem !== null) throw invalidField('name', problem);
  return name;
}

const MAX_KEY_LIFETIME_MS = 5 * 365 * 24 * 3600 * 1000;
/** lastActive is written at most this often (design.md §7), so reads do not turn into writes. */
const TOUCH_INTERVAL_MS = 60_000;

/** The one way keys are made: by members, by the operator, for a new organization or invitee. */
export function createKeyIssuer(deps: { clock: Clock; audit: AuditLog }): IssueKey {
  return async (db, args) => {
    const now = deps.clock.now().toISOString();
    const { secret, hash, prefix } = generateSecret();
    const row = {
      id: newId('key'),
      organization_id: args.organizationId,
      member_id: args.memberId,
      name: args.name,
      token_hash: hash,
      token_prefix: prefix,
      created_at: now,
      last_used_at: null,
      expires_at: args.expiresAt,
      revoked_at: null,
    };
    await keys.insert(db, row);
    await deps.audit.recordAs(
      db,
      args.organizationId,
      args.actor,
      // Keys the operator's CLI makes (first admin, `appmeta key create`) are its apiKeys.issue.
      args.actor.memberId === null ? 'apiKeys.issue' : 'apiKeys.create',
      { type: 'apiKey', id: row.id },
      { memberId: args.memberId, name: args.name },
    );
    return {
      apiKey: secret,
      key: {
        id: row.id,
        name: row.name,
        memberId: row.member_id,
        prefix,
        createdAt: row.created_at,
        lastUsedAt: null,
        expiresAt: row.expires_at,
      },
    };
  };
}

export interface ApiKeysServiceDeps {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  members: Pick<MembersRepository, 'find' | 'findAnywhere'>;
  issueKey: IssueKey;
  /** Db.identityVersion: keys found are kept while it holds (key-cache.ts); null keeps none. */
  identityVersion: IdentityVersion | null;
}

/** Whose key the operator makes: a member id, or an organization and the member's e-mail. */
export type OperatorKeyInput = { name?: string } & (
  { memberId: string } | { organizationId: string; email: string }
);

type FoundKey = NonNullable<Awaited<ReturnType<typeof keys.findActiveByHash>>>;

export function createApiKeysService(deps: ApiKeysServiceDeps) {
  const { db, clock, audit, members, issueKey } = deps;
  const version = deps.identityVersion;
  const found = createKeyCache<FoundKey>(
    () => version?.current() ?? null,
    () => clock.now().getTime(),
  );
  /**
   * Callers answered from the cache on PostgreSQL, and the version they were kept under: the
   * request's rate-limit count must read back the same version from Redis (confirm).
   */
  const unconfirmed = new WeakMap<Caller, number>();

  /**
   * The key with this hash and its member and organization, from the cache (with the version it
   * holds under) unless `fresh`, else read (and kept).
   */
  async function findKey(hash: string, fresh: boolean): Promise<{ key?: FoundKey; keptUnder?: number }> {
    const cached = fresh ? undefined : found.get(hash);
    if (cached !== undefined) return { key: cached.row, keptUnder: cached.version };
    const ticket = found.ticket();
    const row = await keys.findActiveByHash(db, hash);
    if (row !== undefined) found.set(hash, row, ticket);
    return { key: row };
  }

  /** The member whose keys an operation targets: oneself, or (admins only) another member. */
  async function targetMember(ctx: RequestContext, memberId: string | undefined): Promise<string> {
    if (memberId === undefined || memberId === ctx.principal.memberId) return ctx.principal.memberId;
    authorize(ctx, 'apiKeys.ofOtherMembers');
    const member = await members.find(db, ctx.organizationId, memberId);
    if (member === undefined) throw notFound('Member');
    return member.id;
  }

  return {
    /**
     * Resolves an `Authorization` header value to its caller. Every failure — missing, malformed,
     * unknown, revoked, expired — is the same 401 so that nothing is learnt by probing.
     */
    async authenticate(
      authorization: string | undefined,
      options: { fresh?: boolean } = {},
    ): Promise<Caller> {
      const match = /^Bearer (\S+)$/i.exec(authorization?.trim() ?? '');
      const secret = match?.[1];
      if (secret === undefined || !isWellFormedSecret(secret)) throw unauthorized();
      const hash = hashSecret(secret);
      const { key, keptUnder } = await findKey(hash, options.fresh === true);
      const now = clock.now();
      const caller =
        key === undefined ||
        !sameHash(key.tokenHash, hash) ||
        (key.expiresAt !== null && key.expiresAt <= now.toISOString())
          ? null
          : activeCaller(key, { keyId: key.keyId });
      if (key === undefined || caller === null)
        throw unauthorized('The API key is unknown, revoked or expired');
      if (key.lastUsedAt === null || now.getTime() - Date.parse(key.lastUsedAt) >= TOUCH_INTERVAL_MS) {
        // The touch is a write to api_keys: it moves the identity version, so the next request
        // reads the key again and sees the new lastUsedAt.
        await keys.touch(db, key.keyId, key.memberId, now.toISOString());
      }
      if (keptUnder !== undefined && version?.report) unconfirmed.set(caller, keptUnder);
      return caller;
    },

    /**
     * PostgreSQL: takes the identity version a request's rate-limit count read back from Redis
     * (null when it could not), and answers whether the request's caller (null: none) still
     * stands. It does unless it came from the cache under another version: then the key must be
     * read again (authenticate with fresh), as it may have been revoked on another instance.
     */
    confirm(caller: Caller | null, reportedVersion: number | null): boolean {
      version?.report?.(reportedVersion);
      const keptUnder = caller === null ? undefined : unconfirmed.get(caller);
      return keptUnder === undefined || keptUnder === reportedVersion;
    },

    async list(ctx: RequestContext, query: { memberId?: string }): Promise<ApiKey[]> {
      authorize(ctx, 'apiKeys.list');
      const memberId = await targetMember(ctx, query.memberId);
      return keys.listActive(db, ctx.organizationId, memberId);
    },

    async create(
      ctx: RequestContext,
      input: { name?: string; memberId?: string; expiresAt?: string | null },
    ): Promise<IssuedKey> {
      authorize(ctx, 'apiKeys.create');
      const name = keyName(input.name, 'API key');
      const now = clock.now();
      const expiresAt = input.expiresAt ?? null;
      if (expiresAt !== null) {
        const at = Date.parse(expiresAt);
        if (Number.isNaN(at) || at <= now.getTime())
          throw invalidField('expiresAt', 'must be a time in the future');
        if (at - now.getTime() > MAX_KEY_LIFETIME_MS)
          throw invalidField('expiresAt', 'must be within 5 years');
      }
      const memberId = await targetMember(ctx, input.memberId);
      return db.transaction().execute((trx) =>
        issueKey(trx, {
          organizationId: ctx.organizationId,
          memberId,
          name,
          expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
          actor: actorOf(ctx),
        }),
      );
    },

    /** Revokes a key at once: its next request is 401. Another member's key needs the admin role. */
    async revoke(ctx: RequestContext, keyId: string): Promise<void> {
      authorize(ctx, 'apiKeys.revoke');
      const key = await keys.findActive(db, ctx.organizationId, keyId);
      if (key === undefined) throw notFound('API key');
      if (key.memberId !== ctx.principal.memberId) authorize(ctx, 'apiKeys.ofOtherMembers');
      await db.transaction().execute(async (trx) => {
        if (!(await keys.revoke(trx, ctx.organizationId, keyId, clock.now().toISOString())))
          throw notFound('API key');
        await audit.record(
          trx,
          ctx,
          'apiKeys.revoke',
          { type: 'apiKey', id: keyId },
          { memberId: key.memberId },
        );
      });
    },

    /**
     * Operator (`appmeta key create`): a new key for a member named by id, or by organization and
     * e-mail (the way back in for an admin who lost every key); recorded as done by `operator`.
     */
    async issueByOperator(input: OperatorKeyInput, operator: string): Promise<IssuedKey> {
      const name = keyName(input.name, 'CLI key');
      return db.transaction().execute(async (trx) => {
        const memberId =
          'memberId' in input
            ? input.memberId
            : (await memberByEmail(trx, input.email, input.organizationId)).id;
        const member = await members.findAnywhere(trx, memberId);
        if (member === undefined) throw notFound('Member');
        return issueKey(trx, {
          organizationId: member.organization_id,
          memberId: member.id,
          name,
          expiresAt: null,
          actor: operatorActor(operator),
        });
      });
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
