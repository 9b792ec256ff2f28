import { sql, type Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../db/tables.js';
import type { EventType } from '../events/index.js';
import type { Attempt } from './sender.js';
import type { Delivery, Webhook } from './webhook.js';

export const toWebhook = (row: WebhooksTable): Webhook => ({
  id: row.id,
  url: row.url,
  description: row.description,
  events: JSON.parse(row.events) as EventType[],
  enabled: Number(row.enabled) === 1,
  disabledReason: row.disabled_reason,
  failingSince: row.failing_since,
  previousSecretExpiresAt: row.previous_secret_expires_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const toDelivery = (row: WebhookDeliveriesTable): Delivery => ({
  id: row.id,
  webhookId: row.webhook_id,
  eventId: row.event_id,
  eventType: row.event_type,
  status: row.status as Delivery['status'],
  attemptCount: Number(row.attempt_count),
  attempts: JSON.parse(row.attempts) as Attempt[],
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
});

export const findWebhook = (db: Executor, organizationId: string, id: string) =>
  db
    .selectFrom('webhooks')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();

export const listWebhooks = (db: Executor, organizationId: string) =>
  db
    .selectFrom('webhooks')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();

/** Prepared (db/prepared.ts): every event asks. */
export const enabledWebhooks = preparedQuery((db: Executor, organizationId: string) =>
  db
    .selectFrom('webhooks')
    .select(['id', 'events'])
    .where('organization_id', '=', organizationId)
    .where('enabled', '=', 1),
);

export async function insertDelivery(db: Executor, row: WebhookDeliveriesTable): Promise<void> {
  await db.insertInto('webhook_deliveries').values(row).execute();
}

/**
 * Holds the organization's endpoints until the transaction ends, so that its deliveries are
 * counted and claimed one at a time (their limits hold across workers and instances). Its
 * endpoints, not its row: a write to `organizations` would announce an identity change to every
 * instance (src/db/database.ts) on every delivery.
 */
export async function lockEndpoints(db: Executor, organizationId: string): Promise<void> {
  await db
    .updateTable('webhooks')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('organization_id', '=', organizationId)
    .execute();
}

/**
 * Deliveries being sent now (since `since`: older claims are stale), of the organization and of
 * one of its endpoints: the scheduler keeps each under its limit.
 */
export async function sendingNow(
  db: Executor,
  organizationId: string,
  webhookId: string,
  since: string,
): Promise<{ organization: number; endpoint: number }> {
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select('d.webhook_id')
    .where('w.organization_id', '=', organizationId)
    // Word for word the condition of webhook_deliveries_sending_idx, so that the index is used.
    .where(sql<boolean>`d.status = 'sending'`)
    .where('d.updated_at', '>=', since)
    .execute();
  return { organization: rows.length, endpoint: rows.filter((r) => r.webhook_id === webhookId).length };
}

/** A delivery with its endpoint, for one attempt. */
export const deliveryForAttempt = (db: Executor, id: string) =>
  db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhook_id')
    .select([
      'd.id',
      'd.status',
      'd.payload',
      'd.event_id',
      'd.attempt_count',
      'd.attempts',
      'd.updated_at',
      'w.id as webhook_id',
      'w.organization_id',
      'w.url',
      'w.enabled',
      'w.secret',
      'w.previous_secret',
      'w.previous_secret_expires_at',
      'w.failing_since',
    ])
    .where('d.id', '=', id)
    .executeTakeFirst();

export async function listDeliveries(
  db: Executor,
  webhookId: string,
  page: { limit: number; offset: number },
) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('webhook_id', '=', webhookId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.count) };
}

export const allWebhooks = (db: Executor) => db.selectFrom('webhooks').selectAll().execute();

export async function insertWebhook(db: Executor, row: WebhooksTable): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export type WebhookChanges = Updateable<WebhooksTable>;

export async function updateWebhook(db: Executor, id: string, changes: WebhookChanges) {
  await db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
}

export async function deleteWebhook(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

export const findDelivery = (db: Executor, webhookId: string, id: string) =>
  db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('webhook_id', '=', webhookId)
    .executeTakeFirst();

export async function updateDelivery(
  db: Executor,
  id: string,
  changes: Updateable<WebhookDeliveriesTable>,
): Promise<void> {
  await db.updateTable('webhook_deliveries').set(changes).where('id', '=', id).execute();
}

/**
 * Marks a delivery as being sent, if it is as it was read (`updatedAt`) and pending, or left
 * sending before `staleBefore` by an instance that died; false when another worker has it.
 */
export async function claimDelivery(
  db: Executor,
  id: string,
  updatedAt: string,
  now: string,
  staleBefore: string,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ status: 'sending', updated_at: now })
    .where('id', '=', id)
    .where('updated_at', '=', updatedAt)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'pending'),
        eb.and([eb('status', '=', 'sending'), eb('updated_at', '<', staleBefore)]),
      ]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
