/**
 * Every cache key of the dashboard's data, in one place: a key names a resource, and a shorter key
 * is the prefix of the longer ones, so invalidating `keys.media(projectId)` refreshes every slot of
 * the project. A page never writes a key by hand.
 */
import type { Store } from '../listing-rules';

export const keys = {
  session: () => ['session'] as const,
  organization: () => ['organization'] as const,
  usage: () => ['usage'] as const,
  members: () => ['members'] as const,
  invites: () => ['invites'] as const,
  invite: (inviteId: string) => ['invite', inviteId] as const,
  apiKeys: () => ['api-keys'] as const,
  credentials: () => ['credentials'] as const,
  audit: (filter: object, offset: number) => ['audit', filter, offset] as const,
  webhooks: () => ['webhooks'] as const,
  webhookDeliveries: (webhookId: string) => ['webhooks', webhookId, 'deliveries'] as const,
  glossaries: () => ['glossaries'] as const,
  passkeys: () => ['passkeys'] as const,
  sessions: () => ['sessions'] as const,
  locales: () => ['locales'] as const,
  projects: () => ['projects'] as const,
  projectsPage: (search: string, offset: number) => ['projects', search, offset] as const,
  project: (projectId: string) => ['project', projectId] as const,
  listings: (projectId: string) => ['listings', projectId] as const,
  listing: (projectId: string, store: Store, locale: string) =>
    ['listing', projectId, store, locale] as const,
  history: (projectId: string, store: Store, locale: string) =>
    ['history', projectId, store, locale] as const,
  diff: (projectId: string) => ['diff', projectId] as const,
  schedules: (projectId: string) => ['schedules', projectId] as const,
  approvalRequests: (projectId: string) => ['approval-requests', projectId] as const,
  operation: (projectId: string, operationId: string) => ['operation', projectId, operationId] as const,
  operations: (projectId: string, offset: number) => ['operations', projectId, offset] as const,
  media: (projectId: string) => ['media', projectId] as const,
  mediaLocale: (projectId: string, store: Store, locale: string) =>
    ['media', projectId, store, locale] as const,
  mediaSlotTypes: () => ['media-slot-types'] as const,
  releases: (projectId: string) => ['releases', projectId] as const,
  releaseNotes: (projectId: string) => ['release-notes', projectId] as const,
  storeReleaseNotes: (projectId: string, store: Store) => ['release-notes', projectId, store] as const,
  translations: (projectId: string) => ['translations', projectId] as const,
  products: (projectId: string) => ['products', projectId] as const,
  product: (projectId: string, store: Store, productId: string, locale: string) =>
    ['products', projectId, store, productId, locale] as const,
  translationLocale: (projectId: string, locale: string) => ['translations', projectId, locale] as const,
  productPages: (projectId: string) => ['product-pages', projectId] as const,
  productPage: (projectId: string, pageId: string, locale: string) =>
    ['product-pages', projectId, pageId, locale] as const,
  appEvents: (projectId: string) => ['app-events', projectId] as const,
  appEvent: (projectId: string, eventId: string, locale: string) =>
    ['app-events', projectId, eventId, locale] as const,
};
