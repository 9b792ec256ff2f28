/**
 * Webhook endpoints of the organization (admins) and their deliveries (design.md §11): signed per
 * the Standard Webhooks specification, retried on WEBHOOK_RETRY_SCHEDULE with jitter, logged per
 * attempt, disabled after five days of failures (with a `webhook.disabled` event).
 */
import type { Executor } from '../../db/database.js';
import { AppError, notFound } from '../../errors.js';
import type { JobQueue } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { KeyRing, Sealed } from '../../shared/key-ring.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import type { Outbox } from '../events/index.js';
import { queueDelivery } from './fan-out.js';
import { createDeliveryAttempt } from './delivery-attempt.js';
import type { Metrics } from '../../metrics/index.js';
import { newWebhookSecret } from './signing.js';
import * as repo from './webhooks.repository.js';
import { checkDescription, checkEvents, checkWebhookUrl, type Webhook } from './webhook.js';

/** How long deliveries after a rotation also carry the previous secret's signature. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
const sealContext = (organizationId: string, webhookId: string) => `webhooks:${organizationId}:${webhookId}`;

export interface WebhooksServiceDeps {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  keyRing: KeyRing;
  queue: JobQueue;
  outbox: Outbox;
  /** Seconds between attempts (WEBHOOK_RETRY_SCHEDULE). */
  retrySchedule: readonly number[];
  allowPrivate: boolean;
  metrics: Metrics;
}

export interface WebhookInput {
  url: string;
  events?: string[];
  description?: string;
}

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { db, clock, audit, keyRing, queue } = deps;
  const seal = (organizationId: string, webhookId: string, secret: string) =>
    JSON.stringify(keyRing.seal(secret, sealContext(organizationId, webhookId)));
  const unseal = (organizationId: string, webhookId: string, sealed: string) =>
    keyRing.open(JSON.parse(sealed) as Sealed, sealContext(organizationId, webhookId));

  async function requireWebhook(ctx: RequestContext, id: string) {
    const row = await repo.findWebhook(db, ctx.organizationId, id);
    if (row === undefined) throw notFound('Webhook');
    return row;
  }

  return {
    async list(ctx: RequestContext): Promise<Webhook[]> {
      authorize(ctx, 'webhooks.list');
      return (await repo.listWebhooks(db, ctx.organizationId)).map(repo.toWebhook);
    },

    async get(ctx: RequestContext, id: string): Promise<Webhook> {
      authorize(ctx, 'webhooks.get');
      return repo.toWebhook(await requireWebhook(ctx, id));
    },

    /** Adds an endpoint; its secret is answered this once. */
    async create(ctx: RequestContext, input: WebhookInput): Promise<{ webhook: Webhook; secret: string }> {
      authorize(ctx, 'webhooks.create');
      const url = checkWebhookUrl(input.url, deps.allowPrivate);
      const events = checkEvents(input.events ?? []);
      const description = checkDescription(input.description ?? '');
      const id = newId('wh');
      const secret = newWebhookSecret();
      const at = clock.now().toISOString();
      const row = {
        id,
        organization_id: ctx.organizationId,
        url,
        description,
        events: JSON.stringify(events),
        secret: seal(ctx.organizationId, id, secret),
        previous_secret: null,
        previous_secret_expires_at: null,
        enabled: 1,
        disabled_reason: null,
        failing_since: null,
        created_at: at,
        updated_at: at,
      };
      await db.transaction().execute(async (trx) => {
        await repo.insertWebhook(trx, row);
        await audit.record(trx, ctx, 'webhooks.create', { type: 'webhook', id }, { url, events });
      });
      return { webhook: repo.toWebhook(row), secret };
    },

    /** Changes url, events, description; `enabled: true` re-enables a disabled endpoint. */
    async update(
      ctx: RequestContext,
      id: string,
      patch: Partial<WebhookInput> & { enabled?: boolean },
    ): Promise<Webhook> {
      authorize(ctx, 'webhooks.update');
      await requireWebhook(ctx, id);
      const changes: repo.WebhookChanges = { updated_at: clock.now().toISOString() };
      if (patch.url !== undefined) changes.url = checkWebhookUrl(patch.url, deps.allowPrivate);
      if (patch.events !== undefined) changes.events = JSON.stringify(checkEvents(patch.events));
      if (patch.description !== undefined) changes.description = checkDescription(patch.description);
      if (patch.enabled !== undefined) {
        changes.enabled = patch.enabled ? 1 : 0;
        changes.disabled_reason = null;
        changes.failing_since = null;
      }
      await db.transaction().execute(async (trx) => {
        await repo.updateWebhook(trx, id, changes);
        await audit.record(
          trx,
          ctx,
          'webhooks.update',
          { type: 'webhook', id },
          {
            fields: Object.keys(patch),
          },
        );
      });
      return repo.toWebhook(await requireWebhook(ctx, id));
    },

    async remove(ctx: RequestContext, id: string): Promise<void> {
      authorize(ctx, 'webhooks.delete');
      await requireWebhook(ctx, id);
      await db.transaction().execute(async (trx) => {
        await repo.deleteWebhook(trx, id);
        await audit.record(trx, ctx, 'webhooks.delete', { type: 'webhook', id });
      });
    },

    /** A new secret; for 24 h deliveries carry signatures by the old and the new one. */
    async rotateSecret(ctx: RequestContext, id: string): Promise<{ webhook: Webhook; secret: string }> {
      authorize(ctx, 'webhooks.rotateSecret');
      const row = await requireWebhook(ctx, id);
      const secret = newWebhookSecret();
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        await repo.updateWebhook(trx, id, {
          secret: seal(ctx.organizationId, id, secret),
          previous_secret: row.secret,
          previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
          updated_at: now.toISOString(),
        });
        await audit.record(trx, ctx, 'webhooks.rotateSecret', { type: 'webhook', id });
      });
      return { webhook: repo.toWebhook(await requireWebhook(ctx, id)), secret };
    },

    /** Sends a `webhook.test` message to the endpoint (also when it is disabled). */
    async test(ctx: RequestContext, id: string) {
      authorize(ctx, 'webhooks.test');
      await requireWebhook(ctx, id);
      const deliveryId = await db.transaction().execute(async (trx) => {
        const queued = await queueDelivery(trx, { clock, queue }, id, {
          id: newId('evt'),
          type: 'webhook.test',
          data: { webhookId: id, message: 'A test delivery from appmeta' },
          createdAt: clock.now().toISOString(),
        });
        await audit.record(trx, ctx, 'webhooks.test', { type: 'webhook', id }, { deliveryId: queued });
        return queued;
      });
      queue.wake('webhook.deliver');
      return this.delivery(ctx, id, deliveryId);
    },

    async delivery(ctx: RequestContext, webhookId: string, deliveryId: string) {
      const row = await repo.findDelivery(db, (await requireWebhook(ctx, webhookId)).id, deliveryId);
      if (row === undefined) throw notFound('Delivery');
      return repo.toDelivery(row);
    },

    async deliveries(ctx: RequestContext, webhookId: string, page: { limit: number; offset: number }) {
      authorize(ctx, 'webhooks.deliveries');
      await requireWebhook(ctx, webhookId);
      const { rows, total } = await repo.listDeliveries(db, webhookId, page);
      return { deliveries: rows.map(repo.toDelivery), total };
    },

    /**
     * Sends a delivery again now, with the same webhook-id; its retry schedule starts over. A
     * delivery waiting for its next retry is attempted at once; one being sent is 409.
     */
    async redeliver(ctx: RequestContext, webhookId: string, deliveryId: string) {
      authorize(ctx, 'webhooks.redeliver');
      const delivery = await this.delivery(ctx, webhookId, deliveryId);
      if (delivery.status === 'sending') {
        throw new AppError('CONFLICT', 'This delivery is being sent right now; try again in a moment');
      }
      await db.transaction().execute(async (trx) => {
        await repo.updateDelivery(trx, deliveryId, {
          status: 'pending',
          attempt_count: 0,
          next_attempt_at: clock.now().toISOString(),
        });
        await queue.enqueue(trx, 'webhook.deliver', { deliveryId });
        await audit.record(
          trx,
          ctx,
          'webhooks.redeliver',
          { type: 'webhook', id: webhookId },
          { deliveryId },
        );
      });
      queue.wake('webhook.deliver');
      return this.delivery(ctx, webhookId, deliveryId);
    },

    /**
     * Operator: `appmeta secrets rotate`. Re-seals every endpoint's secrets under the current key;
     * answers how many endpoints changed.
     */
    async rotateKeys(): Promise<{ rotated: number; total: number }> {
      const rows = await repo.allWebhooks(db);
      let rotated = 0;
      for (const row of rows) {
        const current = (sealed: string | null) =>
          sealed === null || (JSON.parse(sealed) as Sealed).keyId === keyRing.currentKeyId;
        if (current(row.secret) && current(row.previous_secret)) continue;
        const reseal = (sealed: string) =>
          seal(row.organization_id, row.id, unseal(row.organization_id, row.id, sealed));
        await repo.updateWebhook(db, row.id, {
          secret: reseal(row.secret),
          previous_secret: row.previous_secret === null ? null : reseal(row.previous_secret),
        });
        rotated += 1;
      }
      return { rotated, total: rows.length };
    },

    /** One attempt of a delivery (the `webhook.deliver` job). */
    attempt: createDeliveryAttempt({ ...deps, unseal }),
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
