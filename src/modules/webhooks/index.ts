/** Webhook endpoints, their signed deliveries and the delivery log (design.md §11). */
export { createWebhookFanOut } from './fan-out.js';
export { signatureHeaders } from './signing.js';
export { webhookRoutes } from './webhooks.routes.js';
export { createWebhooksService, type WebhooksService } from './webhooks.service.js';
