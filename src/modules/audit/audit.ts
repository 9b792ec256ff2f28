/**
 * The audit log: who did what to which target, written in the transaction of the change it
 * records. Actions are operation ids (src/modules/access), or one of the few system actions done
 * without a request context (by the operator's CLI, or by an invitee accepting an invite).
 */
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { auditPage, insertAuditEntry } from './audit.repository.js';
import { OPERATOR_MEMBER_ID, type OperationId, type RequestContext } from '../access/index.js';

/**
 * Who did it: a member through one of its keys, or an operator (member and key null), named by
 * its label: `cli:<os user>` for the CLI, `server:first-start` for the first start's organization.
 */
export interface AuditActor {
  memberId: string | null;
  keyId: string | null;
  operator: string | null;
}

export const operatorActor = (operator: string): AuditActor => ({ memberId: null, keyId: null, operator });

export const actorOf = (ctx: RequestContext): AuditActor =>
  ctx.principal.memberId === OPERATOR_MEMBER_ID
    ? operatorActor(ctx.principal.operator ?? 'operator')
    : { memberId: ctx.principal.memberId, keyId: ctx.principal.keyId, operator: null };

/** Actions that are not a caller's operation: an invitee accepting its invite. */
export type SystemAction = 'invites.accept' | 'webhooks.disable';

export type AuditAction = OperationId | SystemAction;

export interface AuditTarget {
  type: string;
  id: string;
}

export interface AuditEntry {
  id: string;
  actor: AuditActor;
  action: string;
  target: AuditTarget;
  details: Record<string, unknown> | null;
  createdAt: string;
}

export interface AuditLog {
  /** Records what the caller of `ctx` did; call it inside the transaction of the change. */
  record(
    db: Executor,
    ctx: RequestContext,
    action: OperationId,
    target: AuditTarget,
    details?: Record<string, unknown>,
  ): Promise<void>;
  /** Records an action without a request context (operator, invitee), for `organizationId`. */
  recordAs(
    db: Executor,
    organizationId: string,
    actor: AuditActor,
    action: AuditAction,
    target: AuditTarget,
    details?: Record<string, unknown>,
  ): Promise<void>;
  list(
    db: Executor,
    organizationId: string,
    page: { limit: number; offset: number },
  ): Promise<{ entries: AuditEntry[]; total: number }>;
}

export function createAuditLog(clock: Clock): AuditLog {
  const recordAs: AuditLog['recordAs'] = async (db, organizationId, actor, action, target, details) => {
    await insertAuditEntry(db, {
      id: newId('aud'),
      organization_id: organizationId,
      actor_member_id: actor.memberId,
      actor_key_id: actor.keyId,
      actor_operator: actor.operator,
      action,
      target_type: target.type,
      target_id: target.id,
      details: details === undefined ? null : JSON.stringify(details),
      created_at: clock.now().toISOString(),
    });
  };
  return {
    recordAs,
    record: (db, ctx, action, target, details) =>
      recordAs(db, ctx.organizationId, actorOf(ctx), action, target, details),
    async list(db, organizationId, page) {
      const { rows, total } = await auditPage(db, organizationId, page);
      return {
        total,
        entries: rows.map((row) => ({
          id: row.id,
          actor: { memberId: row.actor_member_id, keyId: row.actor_key_id, operator: row.actor_operator },
          action: row.action,
          target: { type: row.target_type, id: row.target_id },
          details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
          createdAt: row.created_at,
        })),
      };
    },
  };
}
