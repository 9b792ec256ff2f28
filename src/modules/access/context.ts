import type { Logger } from 'pino';
import type { Role } from './roles.js';

/** What a member may touch (design.md §16); admins are never narrowed. */
export interface AccessScope {
  projects: 'all' | string[];
  locales: 'all' | string[];
  /** Lets a member approve a changeset whose projects and locales are all in scope. */
  approve: boolean;
}

/** Who is calling: the member behind the API key or session, with that member's role. */
export interface Principal {
  readonly memberId: string;
  readonly role: Role;
  /** The API key of the request; null when a dashboard session signed it in. */
  readonly keyId: string | null;
  /** The dashboard session of the request, when its cookie signed it in. */
  readonly sessionId?: string;
  /** Who the operator is, when the CLI acts (`cli:<os user>`); recorded as the actor. */
  readonly operator?: string;
  /** The projects and locales the member is narrowed to (design.md §16); absent: everything. */
  readonly access?: AccessScope;
}

/** An authenticated caller: the key's member and role, its organization and that plan's rate. */
export interface Caller {
  organizationId: string;
  /** The organization's plan allowance (design.md §8), read with the key on every request. */
  requestsPerMinute: number;
  principal: Principal;
}

/**
 * The first argument of every service function. REST, MCP and the CLI build the same context,
 * so a rule written once in a service holds for all of them.
 */
export interface RequestContext {
  readonly organizationId: string;
  readonly principal: Principal;
  readonly requestId: string;
  readonly log: Logger;
}

/** The operator behind the CLI: acts with admin rights inside one organization, recorded as no member. */
export const OPERATOR_MEMBER_ID = 'operator';

export function operatorContext(organizationId: string, log: Logger, operator: string): RequestContext {
  return {
    organizationId,
    principal: { memberId: OPERATOR_MEMBER_ID, role: 'admin', keyId: 'operator', operator },
    requestId: 'cli',
    log,
  };
}

/** Who acted, as a background run keeps it: the member (or the operator), their role and scope. */
export interface RecordedActor {
  organizationId: string;
  memberId: string | null;
  operator: string | null;
  role: Role;
  access?: AccessScope;
}

/**
 * The context a background run acts in on behalf of whoever asked for it (a queued operation, a
 * schedule at its time): that actor's rights, no key, `requestId` naming the run.
 */
export function recordedContext(actor: RecordedActor, requestId: string, log: Logger): RequestContext {
  return {
    organizationId: actor.organizationId,
    principal: {
      memberId: actor.memberId ?? OPERATOR_MEMBER_ID,
      role: actor.role,
      keyId: null,
      ...(actor.access !== undefined && { access: actor.access }),
      ...(actor.operator !== null && { operator: actor.operator }),
    },
    requestId,
    log,
  };
}
