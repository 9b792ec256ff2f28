/**
 * One attempt of a webhook delivery (the `webhook.deliver` job): claimed fairly among the
 * organization's and the endpoint's deliveries under way, signed, sent, recorded with its retry,
 * and the endpoint disabled after failing for five days.
 */
import type { Executor } from '../../db/database.js';
import type { JobQueue } from '../../jobs/index.js';
import type { Metrics } from '../../metrics/index.js';
import type { Clock } from '../../shared/clock.js';
import type { AuditLog } from '../audit/index.js';
import type { Outbox } from '../events/index.js';
import { postWebhook } from './sender.js';
import { signatureHeaders } from './signing.js';
import * as repo from './webhooks.repository.js';

/** Deliveries that keep failing for this long disable their endpoint. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;
/**
 * A delivery left `sending` this long was being sent by an instance that died: it may be sent
 * again. Longer than an attempt can take (10 s), shorter than the job's expiry (60 s), so that
 * the job that the queue runs again finds it sendable.
 */
const STALE_SENDING_MS = 30_000;
/**
 * Deliveries one organization, and one of its endpoints, may have under way at once: every
 * organization shares the instance's delivery workers, and endpoints that hang (10 s each) must
 * not hold them all. A delivery over a limit waits DEFERRED_MS and tries again.
 */
export const ORGANIZATION_SENDING_MAX = 3;
export const ENDPOINT_SENDING_MAX = 2;
const DEFERRED_MS = 1_000;

export interface DeliveryAttemptDeps {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  queue: JobQueue;
  outbox: Outbox;
  retrySchedule: readonly number[];
  allowPrivate: boolean;
  metrics: Metrics;
  unseal: (organizationId: string, webhookId: string, sealed: string) => string;
}

export function createDeliveryAttempt(deps: DeliveryAttemptDeps) {
  const { db, clock, audit, queue, outbox, unseal, metrics } = deps;

  /** Marks the delivery as being sent; false when another worker has it or it is done. */
  const claim = (executor: Executor, id: string, updatedAt: string) =>
    repo.claimDelivery(
      executor,
      id,
      updatedAt,
      clock.now().toISOString(),
      new Date(clock.now().getTime() - STALE_SENDING_MS).toISOString(),
    );

  /** Disables an endpoint that failed for too long, telling the organization in the same transaction. */
  async function disable(
    trx: Executor,
    organizationId: string,
    webhookId: string,
    url: string,
    since: string,
  ) {
    const reason = `Deliveries failed continuously since ${since}`;
    await repo.updateWebhook(trx, webhookId, {
      enabled: 0,
      disabled_reason: reason,
      updated_at: clock.now().toISOString(),
    });
    await audit.recordAs(
      trx,
      organizationId,
      { memberId: null, keyId: null, operator: 'system:webhooks' },
      'webhooks.disable',
      { type: 'webhook', id: webhookId },
      { reason },
    );
    await outbox.emit(trx, organizationId, 'webhook.disabled', { webhookId, url, reason });
  }

  return async function attempt(deliveryId: string): Promise<void> {
    // Read, counted and claimed in one transaction: under load every transaction waits its turn
    // for the connection behind the requests', and a delivery should cost less than its edit.
    const since = new Date(clock.now().getTime() - STALE_SENDING_MS).toISOString();
    const claimed = await db.transaction().execute(async (trx) => {
      const row = await repo.deliveryForAttempt(trx, deliveryId);
      if (row === undefined || row.status === 'succeeded' || row.status === 'failed') return null;
      // Fair shares of the workers: over its organization's or endpoint's limit, the delivery
      // frees its worker for another organization's and comes back shortly (with jitter).
      await repo.lockEndpoints(trx, row.organization_id);
      const sending = await repo.sendingNow(trx, row.organization_id, row.webhook_id, since);
      if (sending.organization >= ORGANIZATION_SENDING_MAX || sending.endpoint >= ENDPOINT_SENDING_MAX) {
        const delayMs = Math.round(DEFERRED_MS * (0.75 + Math.random() * 0.5));
        await queue.enqueue(trx, 'webhook.deliver', { deliveryId: row.id }, { delayMs });
        return 'deferred';
      }
      return (await claim(trx, row.id, row.updated_at)) ? row : null;
    });
    if (claimed === 'deferred') metrics.webhookAttempt('deferred', 0);
    if (claimed === null || claimed === 'deferred') return;
    const row = claimed;
    const now = clock.now();
    const attempts = JSON.parse(row.attempts) as unknown[];
    let attempt;
    if (Number(row.enabled) !== 1) {
      attempt = {
        at: now.toISOString(),
        status: null,
        durationMs: 0,
        error: 'The endpoint is disabled',
        response: null,
      };
    } else {
      const secrets = [unseal(row.organization_id, row.webhook_id, row.secret)];
      if (
        row.previous_secret !== null &&
        row.previous_secret_expires_at !== null &&
        row.previous_secret_expires_at > now.toISOString()
      ) {
        secrets.push(unseal(row.organization_id, row.webhook_id, row.previous_secret));
      }
      const headers = signatureHeaders(secrets, row.event_id, Math.floor(now.getTime() / 1000), row.payload);
      attempt = await postWebhook(row.url, headers, row.payload, {
        allowPrivate: deps.allowPrivate,
        now: () => clock.now(),
      });
    }
    const succeeded = attempt.error === null;
    const count = Number(row.attempt_count) + 1;
    const delaySeconds = Number(row.enabled) === 1 ? deps.retrySchedule[count - 1] : undefined;
    const retry = !succeeded && delaySeconds !== undefined;
    // Jitter (±20 %) keeps the retries of many deliveries from arriving at once.
    const delayMs = retry ? Math.round(delaySeconds * 1000 * (0.8 + Math.random() * 0.4)) : 0;
    const at = clock.now();
    metrics.webhookAttempt(
      succeeded ? 'delivered' : retry ? 'retrying' : 'failed',
      attempt.durationMs / 1000,
    );
    const recorded = {
      status: succeeded ? 'succeeded' : retry ? 'pending' : 'failed',
      attempt_count: count,
      attempts: JSON.stringify([...attempts, attempt].slice(-50)),
      next_attempt_at: retry ? new Date(at.getTime() + delayMs).toISOString() : null,
      updated_at: at.toISOString(),
    } as const;
    // The common case, a delivery that succeeded to an endpoint that was not failing, is one
    // statement; a transaction only where more must change with it. (A disabled endpoint's
    // attempt never succeeds.)
    if (succeeded && row.failing_since === null) {
      await repo.updateDelivery(db, row.id, recorded);
      return;
    }
    await db.transaction().execute(async (trx) => {
      await repo.updateDelivery(trx, row.id, recorded);
      if (retry) await queue.enqueue(trx, 'webhook.deliver', { deliveryId: row.id }, { delayMs });
      if (Number(row.enabled) !== 1) return;
      if (succeeded) {
        await repo.updateWebhook(trx, row.webhook_id, { failing_since: null });
        return;
      }
      const since = row.failing_since ?? at.toISOString();
      if (row.failing_since === null) {
        await repo.updateWebhook(trx, row.webhook_id, { failing_since: since });
      } else if (at.getTime() - Date.parse(since) >= DISABLE_AFTER_MS) {
        await disable(trx, row.organization_id, row.webhook_id, row.url, since);
      }
    });
  };
}
