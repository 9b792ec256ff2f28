/**
 * The deliveries an event owes, made in the event's own transaction: one row per endpoint that
 * wants the event, and the job that sends it. A rolled-back change leaves neither.
 */
import type { Executor } from '../../db/database.js';
import type { JobQueue } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { webhookPayload, type AppEvent, type EventFanOut } from '../events/index.js';
import { enabledWebhooks, insertDelivery } from './webhooks.repository.js';
import { wants } from './webhook.js';

export function createWebhookFanOut(deps: { clock: Clock; queue: JobQueue }): EventFanOut {
  return async (db: Executor, event: AppEvent) => {
    const endpoints = await enabledWebhooks(db, event.organizationId);
    for (const endpoint of endpoints) {
      if (!wants(JSON.parse(endpoint.events) as AppEvent['type'][], event.type)) continue;
      await queueDelivery(db, deps, endpoint.id, event);
    }
  };
}

/** A new delivery of an event (or a test message) to one endpoint, sent by a job. */
export async function queueDelivery(
  db: Executor,
  deps: { clock: Clock; queue: JobQueue },
  webhookId: string,
  /** An event, or the test message (`webhook.test`), which is no event of the outbox. */
  event: Pick<AppEvent, 'id' | 'data' | 'createdAt'> & { type: string },
): Promise<string> {
  const at = deps.clock.now().toISOString();
  const id = newId('whd');
  await insertDelivery(db, {
    id,
    webhook_id: webhookId,
    event_id: event.id,
    event_type: event.type,
    payload: webhookPayload(event),
    status: 'pending',
    attempt_count: 0,
    attempts: '[]',
    next_attempt_at: at,
    created_at: at,
    updated_at: at,
  });
  await deps.queue.enqueue(db, 'webhook.deliver', { deliveryId: id });
  return id;
}
