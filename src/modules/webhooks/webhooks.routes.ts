import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { optionalBody } from '../../http/hooks.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, MessageResponse, PageQuery, pageOf } from '../../http/schemas.js';
import * as S from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const tags = ['webhooks'];
const base = '/organization/webhooks';

/** Webhook endpoints and their delivery log (admins; design.md §11). */
export function webhookRoutes(app: Api, services: { webhooks: WebhooksService }): void {
  const { webhooks } = services;

  app.get(base, {
    schema: {
      operationId: 'webhooks.list',
      tags,
      summary: 'Webhook endpoints',
      description:
        'The organization’s endpoints with their events and state (enabled, or disabled after failing too long, with the reason and since when); never their secrets. Admins.',
      security: BEARER,
      response: { 200: S.WebhooksResponse, ...ERRORS },
    },
    handler: async (request) => ok({ webhooks: await webhooks.list(contextOf(request)) }),
  });

  app.post(base, {
    schema: {
      operationId: 'webhooks.create',
      tags,
      summary: 'Add a webhook endpoint',
      description:
        'Answers the endpoint and its signing secret (`whsec_...`), shown this once. Deliveries follow the Standard ' +
        'Webhooks specification: headers `webhook-id`, `webhook-timestamp`, `webhook-signature`.',
      security: BEARER,
      body: S.CreateWebhookBody,
      response: { 201: S.WebhookWithSecretResponse, ...ERRORS },
    },
    handler: async (request, reply) =>
      reply.code(201).send(ok(await webhooks.create(contextOf(request), request.body))),
  });

  app.get(`${base}/:webhookId`, {
    schema: {
      operationId: 'webhooks.get',
      tags,
      summary: 'A webhook endpoint',
      description:
        'One endpoint: its URL, events and state (enabled, or why and since when it is disabled); never its secret. Admins.',
      security: BEARER,
      params: S.WebhookParams,
      response: { 200: S.WebhookResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok({ webhook: await webhooks.get(contextOf(request), request.params.webhookId) }),
  });

  app.patch(`${base}/:webhookId`, {
    schema: {
      operationId: 'webhooks.update',
      tags,
      summary: 'Change or re-enable a webhook endpoint',
      description:
        'Changes the URL, the events or the description; `enabled: true` re-enables an endpoint that was disabled after failing for too long. Admins.',
      security: BEARER,
      params: S.WebhookParams,
      body: S.UpdateWebhookBody,
      response: { 200: S.WebhookResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok({ webhook: await webhooks.update(contextOf(request), request.params.webhookId, request.body) }),
  });

  app.delete(`${base}/:webhookId`, {
    schema: {
      operationId: 'webhooks.delete',
      tags,
      summary: 'Remove a webhook endpoint and its delivery log',
      description: 'Removes the endpoint and its delivery log; deliveries not yet made are dropped. Admins.',
      security: BEARER,
      params: S.WebhookParams,
      response: { 200: MessageResponse, ...ERRORS },
    },
    handler: async (request) => {
      await webhooks.remove(contextOf(request), request.params.webhookId);
      return { success: true as const, message: 'Webhook removed' };
    },
  });

  app.post(`${base}/:webhookId/rotate-secret`, {
    preValidation: optionalBody,
    schema: {
      operationId: 'webhooks.rotateSecret',
      tags,
      summary: 'Replace the signing secret',
      description:
        'Answers the new secret once. For 24 h deliveries carry signatures by the old and the new secret.',
      security: BEARER,
      params: S.WebhookParams,
      response: { 200: S.WebhookWithSecretResponse, ...ERRORS },
    },
    handler: async (request) => ok(await webhooks.rotateSecret(contextOf(request), request.params.webhookId)),
  });

  app.post(`${base}/:webhookId/test`, {
    preValidation: optionalBody,
    schema: {
      operationId: 'webhooks.test',
      tags,
      summary: 'Send a test delivery (`webhook.test`)',
      description:
        'Queues a `webhook.test` delivery to the endpoint (also when it is disabled), signed like any delivery, and answers that delivery; read its outcome in the delivery log. Admins.',
      security: BEARER,
      params: S.WebhookParams,
      response: { 202: S.DeliveryResponse, ...ERRORS },
    },
    handler: async (request, reply) =>
      reply
        .code(202)
        .send(ok({ delivery: await webhooks.test(contextOf(request), request.params.webhookId) })),
  });

  app.get(`${base}/:webhookId/deliveries`, {
    schema: {
      operationId: 'webhooks.deliveries',
      tags,
      summary: 'The delivery log of an endpoint',
      description: 'Newest first; each delivery lists its attempts with response status, timing and error.',
      security: BEARER,
      params: S.WebhookParams,
      querystring: PageQuery(),
      response: { 200: S.DeliveriesResponse, ...ERRORS },
    },
    handler: async (request) => {
      const page = pageOf(request.query);
      return ok({
        ...(await webhooks.deliveries(contextOf(request), request.params.webhookId, page)),
        ...page,
      });
    },
  });

  app.post(`${base}/:webhookId/deliveries/:deliveryId/redeliver`, {
    preValidation: optionalBody,
    schema: {
      operationId: 'webhooks.redeliver',
      tags,
      summary: 'Send a delivery again (same webhook-id)',
      description:
        'Sends a delivery again now with the same webhook-id (receivers deduplicate by it); its retry schedule starts over. 409 while it is being sent. Admins.',
      security: BEARER,
      params: S.DeliveryParams,
      response: { 202: S.DeliveryResponse, ...ERRORS },
    },
    handler: async (request, reply) =>
      reply.code(202).send(
        ok({
          delivery: await webhooks.redeliver(
            contextOf(request),
            request.params.webhookId,
            request.params.deliveryId,
          ),
        }),
      ),
  });
}
