/**
 * The audit log: who did what to which target, written in the transaction of the change it
 * records. Actions are operation ids (src/modules/access), or one of the few system actions done
 * without a request context (by the operator's CLI, or by an invitee accepting an invite).
 */
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { auditBatch, auditPage, insertAuditEntry, namesAt, type AuditFilter } from './audit.repository.js';
import type { AuditLogTable } from '../../db/tables.js';
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

/**
 * Actions that are not a caller's operation: an invitee accepting its invite, an endpoint
 * disabled, a schedule run at its time (recorded as its author's).
 */
export type SystemAction = 'invites.accept' | 'webhooks.disable' | 'schedules.run';

export type AuditAction = OperationId | SystemAction;

/** What the action was done to; `projectId` names the project it belongs to (implied for a project). */
export interface AuditTarget {
  type: string;
  id: string;
  projectId?: string;
}

export interface AuditEntry {
  id: string;
  /** `name`: the member's name or the operator's label, as it was at the time. */
  actor: AuditActor & { name: string | null };
  action: string;
  target: { type: string; id: string };
  /** The project the change was made in, by its name then; null for organization-wide changes. */
  project: { id: string; name: string | null } | null;
  details: Record<string, unknown> | null;
  createdAt: string;
}

export type { AuditFilter };

/** Entries the CSV export reads at once. */
const EXPORT_BATCH = 500;

const entryOf = (row: AuditLogTable): AuditEntry => ({
  id: row.id,
  actor: {
    memberId: row.actor_member_id,
    keyId: row.actor_key_id,
    operator: row.actor_operator,
    name: row.actor_name,
  },
  action: row.action,
  target: { type: row.target_type, id: row.target_id },
  project: row.project_id === null ? null : { id: row.project_id, name: row.project_name },
  details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
  createdAt: row.created_at,
});

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
    filter: AuditFilter,
    page: { limit: number; offset: number },
  ): Promise<{ entries: AuditEntry[]; total: number }>;
  /** Every matching entry, newest first, read in batches so that a long log never sits in memory. */
  all(db: Executor, organizationId: string, filter: AuditFilter): AsyncGenerator<AuditEntry>;
}

export function createAuditLog(clock: Clock): AuditLog {
  const recordAs: AuditLog['recordAs'] = async (db, organizationId, actor, action, target, details) => {
    const projectId = target.projectId ?? (target.type === 'project' ? target.id : null);
    const names = await namesAt(db, actor.memberId, projectId);
    await insertAuditEntry(db, {
      id: newId('aud'),
      organization_id: organizationId,
      actor_member_id: actor.memberId,
      actor_key_id: actor.keyId,
      actor_operator: actor.operator,
      actor_name: names.memberName ?? actor.operator,
      action,
      target_type: target.type,
      target_id: target.id,
      project_id: projectId,
      project_name: names.projectName,
      details: details === undefined ? null : JSON.stringify(details),
      created_at: clock.now().toISOString(),
    });
  };
  return {
    recordAs,
    record: (db, ctx, action, target, details) =>
      recordAs(db, ctx.organizationId, actorOf(ctx), action, target, details),
    async list(db, organizationId, filter, page) {
      const { rows, total } = await auditPage(db, organizationId, filter, page);
      return { total, entries: rows.map(entryOf) };
    },
    async *all(db, organizationId, filter) {
      let after: { createdAt: string; id: string } | null = null;
      for (;;) {
        const rows = await auditBatch(db, organizationId, filter, after, EXPORT_BATCH);
        for (const row of rows) yield entryOf(row);
        const last = rows.at(-1);
        if (last === undefined || rows.length < EXPORT_BATCH) return;
        after = { createdAt: last.created_at, id: last.id };
      }
    },
  };
}
