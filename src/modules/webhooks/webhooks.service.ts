/**
 * Webhook endpoints of the organization (admins) and their deliveries (design.md §11): signed per
 * the Standard Webhooks specification, retried on WEBHOOK_RETRY_SCHEDULE with jitter, logged per
 * attempt, disabled after five days of failures (with a `webhook.disabled` event).
 */
import type { Updateable } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { WebhooksTable } from '../../db/tables.js';
import { AppError, notFound } from '../../errors.js';
import type { JobQueue } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { KeyRing, Sealed } from '../../shared/key-ring.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import type { Outbox } from '../events/index.js';
import { queueDelivery } from './fan-out.js';
import { postWebhook } from './sender.js';
import { newWebhookSecret, signatureHeaders } from './signing.js';
import * as repo from './webhooks.repository.js';
import { checkDescription, checkEvents, checkWebhookUrl, type Webhook } from './webhook.js';

/** Deliveries that keep failing for this long disable their endpoint. */
export const DISABLE_AFTER_MS = 5 * 24 * 3600_000;
/** How long deliveries after a rotation also carry the previous secret's signature. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
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
}

export interface WebhookInput {
  url: string;
  events?: string[];
  description?: string;
}

export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { db, clock, audit, keyRing, queue, outbox } = deps;
  const seal = (organizationId: string, webhookId: string, secret: string) =>
    JSON.stringify(keyRing.seal(secret, sealContext(organizationId, webhookId)));
  const unseal = (organizationId: string, webhookId: string, sealed: string) =>
    keyRing.open(JSON.parse(sealed) as Sealed, sealContext(organizationId, webhookId));

  async function requireWebhook(ctx: RequestContext, id: string) {
    const row = await repo.findWebhook(db, ctx.organizationId, id);
    if (row === undefined) throw notFound('Webhook');
    return row;
  }

  /** Marks the delivery as being sent; false when another worker has it or it is done. */
  async function claim(executor: Executor, id: string, updatedAt: string): Promise<boolean> {
    const stale = new Date(clock.now().getTime() - STALE_SENDING_MS).toISOString();
    const result = await executor
      .updateTable('webhook_deliveries')
      .set({ status: 'sending', updated_at: clock.now().toISOString() })
      .where('id', '=', id)
      .where('updated_at', '=', updatedAt)
      .where((eb) =>
        eb.or([
          eb('status', '=', 'pending'),
          eb.and([eb('status', '=', 'sending'), eb('updated_at', '<', stale)]),
        ]),
      )
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Disables an endpoint that failed for too long, telling the organization in the same transaction. */
  async function disable(
    trx: Executor,
    organizationId: string,
    webhookId: string,
    url: string,
    since: string,
  ) {
    const reason = `Deliveries failed continuously since ${since}`;
    await trx
      .updateTable('webhooks')
      .set({ enabled: 0, disabled_reason: reason, updated_at: clock.now().toISOString() })
      .where('id', '=', webhookId)
      .execute();
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
        await trx.insertInto('webhooks').values(row).execute();
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
      const changes: Updateable<WebhooksTable> = { updated_at: clock.now().toISOString() };
      if (patch.url !== undefined) changes.url = checkWebhookUrl(patch.url, deps.allowPrivate);
      if (patch.events !== undefined) changes.events = JSON.stringify(checkEvents(patch.events));
      if (patch.description !== undefined) changes.description = checkDescription(patch.description);
      if (patch.enabled !== undefined) {
        changes.enabled = patch.enabled ? 1 : 0;
        changes.disabled_reason = null;
        changes.failing_since = null;
      }
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('webhooks').set(changes).where('id', '=', id).execute();
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
        await trx.deleteFrom('webhooks').where('id', '=', id).execute();
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
        await trx
          .updateTable('webhooks')
          .set({
            secret: seal(ctx.organizationId, id, secret),
            previous_secret: row.secret,
            previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
            updated_at: now.toISOString(),
          })
          .where('id', '=', id)
          .execute();
        await audit.record(trx, ctx, 'webhooks.rotateSecret', { type: 'webhook', id });
      });
      return { webhook: repo.toWebhook(await requireWebhook(ctx, id)), secret };
    },

    /** Sends a `webhook.test` message to the endpoint (also when it is disabled). */
    async test(ctx: RequestContext, id: string) {
      authorize(ctx, 'webhooks.test');
      await requireWebhook(ctx, id);
      const deliveryId = await db.transaction().execute((trx) =>
        queueDelivery(trx, { clock, queue }, id, {
          id: newId('evt'),
          type: 'webhook.test',
          data: { webhookId: id, message: 'A test delivery from appmeta' },
          createdAt: clock.now().toISOString(),
        }),
      );
      queue.wake('webhook.deliver');
      return this.delivery(ctx, id, deliveryId);
    },

    async delivery(ctx: RequestContext, webhookId: string, deliveryId: string) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('id', '=', deliveryId)
        .where('webhook_id', '=', (await requireWebhook(ctx, webhookId)).id)
        .executeTakeFirst();
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
        await trx
          .updateTable('webhook_deliveries')
          .set({ status: 'pending', attempt_count: 0, next_attempt_at: clock.now().toISOString() })
          .where('id', '=', deliveryId)
          .execute();
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
      const rows = await db.selectFrom('webhooks').selectAll().execute();
      let rotated = 0;
      for (const row of rows) {
        const current = (sealed: string | null) =>
          sealed === null || (JSON.parse(sealed) as Sealed).keyId === keyRing.currentKeyId;
        if (current(row.secret) && current(row.previous_secret)) continue;
        const reseal = (sealed: string) =>
          seal(row.organization_id, row.id, unseal(row.organization_id, row.id, sealed));
        await db
          .updateTable('webhooks')
          .set({
            secret: reseal(row.secret),
            previous_secret: row.previous_secret === null ? null : reseal(row.previous_secret),
          })
          .where('id', '=', row.id)
          .execute();
        rotated += 1;
      }
      return { rotated, total: rows.length };
    },

    /** One attempt of a delivery (the `webhook.deliver` job). */
    async attempt(deliveryId: string): Promise<void> {
      const row = await repo.deliveryForAttempt(db, deliveryId);
      if (row === undefined || row.status === 'succeeded' || row.status === 'failed') return;
      // Fair shares of the workers: over its organization's or endpoint's limit, the delivery
      // frees its worker for another organization's and comes back shortly (with jitter).
      const since = new Date(clock.now().getTime() - STALE_SENDING_MS).toISOString();
      const claimed = await db.transaction().execute(async (trx) => {
        await repo.lockEndpoints(trx, row.organization_id);
        const sending = await repo.sendingNow(trx, row.organization_id, row.webhook_id, since);
        if (sending.organization >= ORGANIZATION_SENDING_MAX || sending.endpoint >= ENDPOINT_SENDING_MAX) {
          const delayMs = Math.round(DEFERRED_MS * (0.75 + Math.random() * 0.5));
          await queue.enqueue(trx, 'webhook.deliver', { deliveryId: row.id }, { delayMs });
          return false;
        }
        return claim(trx, row.id, row.updated_at);
      });
      if (!claimed) return;
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
        const headers = signatureHeaders(
          secrets,
          row.event_id,
          Math.floor(now.getTime() / 1000),
          row.payload,
        );
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
      await db.transaction().execute(async (trx) => {
        await trx
          .updateTable('webhook_deliveries')
          .set({
            status: succeeded ? 'succeeded' : retry ? 'pending' : 'failed',
            attempt_count: count,
            attempts: JSON.stringify([...attempts, attempt].slice(-50)),
            next_attempt_at: retry ? new Date(at.getTime() + delayMs).toISOString() : null,
            updated_at: at.toISOString(),
          })
          .where('id', '=', row.id)
          .execute();
        if (retry) await queue.enqueue(trx, 'webhook.deliver', { deliveryId: row.id }, { delayMs });
        if (Number(row.enabled) !== 1) return;
        if (succeeded) {
          if (row.failing_since !== null) {
            await trx
              .updateTable('webhooks')
              .set({ failing_since: null })
              .where('id', '=', row.webhook_id)
              .execute();
          }
          return;
        }
        const since = row.failing_since ?? at.toISOString();
        if (row.failing_since === null) {
          await trx
            .updateTable('webhooks')
            .set({ failing_since: since })
            .where('id', '=', row.webhook_id)
            .execute();
        } else if (at.getTime() - Date.parse(since) >= DISABLE_AFTER_MS) {
          await disable(trx, row.organization_id, row.webhook_id, row.url, since);
        }
      });
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
