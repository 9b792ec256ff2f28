import { Type } from '@sinclair/typebox';
import { Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { EVENT_TYPES } from '../events/index.js';
import { DESCRIPTION_MAX, URL_MAX } from './webhook.js';

export const WebhookParams = Type.Object({ webhookId: Type.String({ maxLength: 64 }) });
export const DeliveryParams = Type.Object({
  webhookId: Type.String({ maxLength: 64 }),
  deliveryId: Type.String({ maxLength: 64 }),
});

const Url = Type.String({ maxLength: URL_MAX, description: 'http(s) URL that receives POSTs' });
const Events = Type.Array(Type.String({ maxLength: 64 }), {
  maxItems: 50,
  description: `Event types to send; empty or omitted = all. One of: ${EVENT_TYPES.join(', ')}`,
});
const Description = Type.String({ maxLength: DESCRIPTION_MAX });

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Type.Optional(Events), description: Type.Optional(Description) },
  { additionalProperties: false },
);
export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({ description: 'true re-enables an endpoint disabled after failures' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String()),
  failingSince: Nullable(Timestamp),
  previousSecretExpiresAt: Nullable(Timestamp),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export const Attempt = Type.Object({
  at: Timestamp,
  status: Nullable(Type.Integer({ description: 'The response status; null when none came' })),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
  response: Nullable(Type.String({ description: 'The start of the response body' })),
});
export const Delivery = Type.Object({
  id: Type.String(),
  webhookId: Type.String(),
  eventId: Type.String({ description: 'The webhook-id header of every attempt' }),
  eventType: Type.String(),
  status: StringEnum(['pending', 'sending', 'succeeded', 'failed']),
  attemptCount: Type.Integer(),
  attempts: Type.Array(Attempt),
  nextAttemptAt: Nullable(Timestamp),
  createdAt: Timestamp,
});

export const WebhookResponse = Ok(Type.Object({ webhook: Webhook }));
export const WebhookWithSecretResponse = Ok(
  Type.Object({
    webhook: Webhook,
    secret: Type.String({ description: 'whsec_...: shown this once; verify signatures with it' }),
  }),
);
export const WebhooksResponse = Ok(Type.Object({ webhooks: Type.Array(Webhook) }));
export const DeliveryResponse = Ok(Type.Object({ delivery: Delivery }));
export const DeliveriesResponse = Ok(
  Type.Object({
    deliveries: Type.Array(Delivery),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  }),
);
