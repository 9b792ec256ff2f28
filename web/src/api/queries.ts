/**
 * The dashboard's reads, one hook per resource, each under its key from keys.ts. Pages call these instead of writing a query: a resource is read the same way, and
 * cached under the same key, wherever it is shown.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { Store } from '../listing-rules';
import { api, unwrap } from './client';
import type { paths } from './schema';
import { keys } from './keys';

export const useOrganization = () =>
  useQuery({ queryKey: keys.organization(), queryFn: () => unwrap(api.GET('/api/v1/organization')) });

export const useMembers = () =>
  useQuery({ queryKey: keys.members(), queryFn: () => unwrap(api.GET('/api/v1/organization/members')) });

export const useInvites = () =>
  useQuery({ queryKey: keys.invites(), queryFn: () => unwrap(api.GET('/api/v1/organization/invites')) });

export const useApiKeys = () =>
  useQuery({ queryKey: keys.apiKeys(), queryFn: () => unwrap(api.GET('/api/v1/api-keys')) });

export const useCredentials = () =>
  useQuery({
    queryKey: keys.credentials(),
    queryFn: () => unwrap(api.GET('/api/v1/organization/credentials')),
  });

export const useWebhooks = () =>
  useQuery({ queryKey: keys.webhooks(), queryFn: () => unwrap(api.GET('/api/v1/organization/webhooks')) });

export const useWebhookDeliveries = (webhookId: string) =>
  useQuery({
    queryKey: keys.webhookDeliveries(webhookId),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/organization/webhooks/{webhookId}/deliveries', {
          params: { path: { webhookId }, query: { limit: 20 } },
        }),
      ),
  });

export const useGlossaries = () =>
  useQuery({
    queryKey: keys.glossaries(),
    queryFn: () => unwrap(api.GET('/api/v1/organization/glossaries')),
  });

/** The audit log's filters, as the API takes them (every one optional). */
export type AuditFilter = Omit<
  NonNullable<paths['/api/v1/organization/audit-log']['get']['parameters']['query']>,
  'limit' | 'offset'
>;

export const useAuditLog = (filter: AuditFilter, offset: number) =>
  useQuery({
    queryKey: keys.audit(filter, offset),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/organization/audit-log', { params: { query: { ...filter, limit: 20, offset } } }),
      ),
    placeholderData: keepPreviousData,
  });

// The member's own account.

export const useSessions = () =>
  useQuery({ queryKey: keys.sessions(), queryFn: () => unwrap(api.GET('/api/dashboard/sessions')) });

export const usePasskeys = () =>
  useQuery({ queryKey: keys.passkeys(), queryFn: () => unwrap(api.GET('/api/dashboard/passkeys')) });

// Projects and what they hold.

export const useLocales = () =>
  useQuery({ queryKey: keys.locales(), queryFn: () => unwrap(api.GET('/api/v1/locales')) });

/** A page of projects, the previous page shown while the next loads. */
export const useProjectsPage = (search: string, offset: number, limit: number) =>
  useQuery({
    queryKey: keys.projectsPage(search, offset),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects', {
          params: { query: { limit, offset, ...(search.trim() !== '' && { search: search.trim() }) } },
        }),
      ),
    placeholderData: keepPreviousData,
  });

export const useProject = (projectId: string) =>
  useQuery({
    queryKey: keys.project(projectId),
    queryFn: () => unwrap(api.GET('/api/v1/projects/{projectId}', { params: { path: { projectId } } })),
  });

const loadListings = (projectId: string) =>
  unwrap(api.GET('/api/v1/projects/{projectId}/listings', { params: { path: { projectId } } }));

/** One listing of a project, as the project's listings answer it. */
export type ProjectListing = Awaited<ReturnType<typeof loadListings>>['listings'][number];

export const useListings = (projectId: string) =>
  useQuery({ queryKey: keys.listings(projectId), queryFn: () => loadListings(projectId) });

export const useMediaLocale = (projectId: string, store: Store, locale: string) =>
  useQuery({
    queryKey: keys.mediaLocale(projectId, store, locale),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/media', {
          params: { path: { projectId }, query: { store, locale } },
        }),
      ),
  });

const loadDiff = (projectId: string) =>
  unwrap(api.GET('/api/v1/projects/{projectId}/diff', { params: { path: { projectId } } }));

/** A project's pending changes, as the diff answers them. */
export type Diff = Awaited<ReturnType<typeof loadDiff>>;

export const useDiff = (projectId: string) =>
  useQuery({ queryKey: keys.diff(projectId), queryFn: () => loadDiff(projectId) });

export const useApprovalRequests = (projectId: string) =>
  useQuery({
    queryKey: keys.approvalRequests(projectId),
    queryFn: () =>
      unwrap(api.GET('/api/v1/projects/{projectId}/approval-requests', { params: { path: { projectId } } })),
  });

const OPERATION_POLL_MS = 1_000;

/**
 * A background operation, read again until it has finished: the live event stream marks it stale
 * at each progress event, and a slow poll covers a stream that is down.
 */
export const useOperation = (projectId: string, operationId: string | null) =>
  useQuery({
    queryKey: keys.operation(projectId, operationId ?? ''),
    enabled: operationId !== null,
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/operations/{operationId}', {
          params: { path: { projectId, operationId: operationId! } },
        }),
      ),
    refetchInterval: (query) => {
      const status = query.state.data?.operation.status;
      return status === 'queued' || status === 'running' || status === undefined ? OPERATION_POLL_MS : false;
    },
  });

/** A page of a project's recorded syncs and pushes, newest first. */
export const useOperations = (projectId: string, offset: number) =>
  useQuery({
    queryKey: keys.operations(projectId, offset),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/operations', {
          params: { path: { projectId }, query: { limit: 20, offset } },
        }),
      ),
    placeholderData: keepPreviousData,
  });

export const useReleases = (projectId: string) =>
  useQuery({
    queryKey: keys.releases(projectId),
    queryFn: () =>
      unwrap(api.GET('/api/v1/projects/{projectId}/releases', { params: { path: { projectId } } })),
  });

export const useStoreReleaseNotes = (projectId: string, store: Store) =>
  useQuery({
    queryKey: keys.storeReleaseNotes(projectId, store),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/release-notes', {
          params: { path: { projectId }, query: { store } },
        }),
      ),
  });

export const useProducts = (projectId: string) =>
  useQuery({
    queryKey: keys.products(projectId),
    queryFn: () =>
      unwrap(api.GET('/api/v1/projects/{projectId}/products', { params: { path: { projectId } } })),
  });

export const useProduct = (projectId: string, store: Store, productId: string, locale: string) =>
  useQuery({
    queryKey: keys.product(projectId, store, productId, locale),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/products/{store}/{productId}/{locale}', {
          params: { path: { projectId, store, productId, locale } },
        }),
      ),
  });

export const useTranslations = (projectId: string) =>
  useQuery({
    queryKey: keys.translations(projectId),
    queryFn: () =>
      unwrap(api.GET('/api/v1/projects/{projectId}/translations', { params: { path: { projectId } } })),
  });

export const useTranslationLocale = (projectId: string, locale: string) =>
  useQuery({
    queryKey: keys.translationLocale(projectId, locale),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/translations/{locale}', {
          params: { path: { projectId, locale } },
        }),
      ),
  });

export const useProductPages = (projectId: string) =>
  useQuery({
    queryKey: keys.productPages(projectId),
    queryFn: () =>
      unwrap(api.GET('/api/v1/projects/{projectId}/product-pages', { params: { path: { projectId } } })),
  });

export const useProductPage = (projectId: string, pageId: string, locale: string) =>
  useQuery({
    queryKey: keys.productPage(projectId, pageId, locale),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/product-pages/{pageId}/{locale}', {
          params: { path: { projectId, pageId, locale } },
        }),
      ),
  });

/** A custom product page's media slots in one locale. */
export const usePageMedia = (projectId: string, pageId: string, locale: string) =>
  useQuery({
    queryKey: [...keys.media(projectId), 'page', pageId, locale] as const,
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/media', {
          params: { path: { projectId }, query: { store: 'appstore', locale, productPage: pageId } },
        }),
      ),
  });

export const useAppEvents = (projectId: string) =>
  useQuery({
    queryKey: keys.appEvents(projectId),
    queryFn: () =>
      unwrap(api.GET('/api/v1/projects/{projectId}/app-events', { params: { path: { projectId } } })),
  });

export const useAppEvent = (projectId: string, eventId: string, locale: string) =>
  useQuery({
    queryKey: keys.appEvent(projectId, eventId, locale),
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/projects/{projectId}/app-events/{eventId}/{locale}', {
          params: { path: { projectId, eventId, locale } },
        }),
      ),
  });
