import type { Executor } from '../../db/database.js';
import { newId } from '../../shared/ids.js';
import { OPERATOR_MEMBER_ID, type RequestContext } from '../access/context.js';
import type { OperationId } from '../access/operations.js';

/** Who did it: a member through one of its keys, or the operator through the CLI (both null). */
export interface AuditActor {
  memberId: string | null;
  keyId: string | null;
}

export const OPERATOR: AuditActor = { memberId: null, keyId: null };

export const actorOf = (ctx: RequestContext): AuditActor =>
  ctx.principal.memberId === OPERATOR_MEMBER_ID
    ? OPERATOR
    : { memberId: ctx.principal.memberId, keyId: ctx.principal.keyId };

/** Actions that are not API operations of a caller: done by the operator or by an invitee. */
export type SystemAction =
  'organization.create' | 'organization.setPlan' | 'invites.accept' | 'apiKeys.issue';

export interface AuditEntry {
  id: string;
  actor: AuditActor;
  action: string;
  target: { type: string; id: string };
  details: Record<string, unknown> | null;
  createdAt: string;
}

/** Appends one entry; call it inside the transaction of the change it records. */
export async function recordAudit(
  db: Executor,
  entry: {
    organizationId: string;
    actor: AuditActor;
    action: OperationId | SystemAction;
    target: { type: string; id: string };
    details?: Record<string, unknown>;
    at: Date;
  },
): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newId('aud'),
      organization_id: entry.organizationId,
      actor_member_id: entry.actor.memberId,
      actor_key_id: entry.actor.keyId,
      action: entry.action,
      target_type: entry.target.type,
      target_id: entry.target.id,
      details: entry.details === undefined ? null : JSON.stringify(entry.details),
      created_at: entry.at.toISOString(),
    })
    .execute();
}

export async function listAudit(
  db: Executor,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ entries: AuditEntry[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('audit_log')
      .selectAll()
      .where('organization_id', '=', organizationId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('audit_log')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('organization_id', '=', organizationId)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(count.count),
    entries: rows.map((row) => ({
      id: row.id,
      actor: { memberId: row.actor_member_id, keyId: row.actor_key_id },
      action: row.action,
      target: { type: row.target_type, id: row.target_id },
      details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
      createdAt: row.created_at,
    })),
  };
}
