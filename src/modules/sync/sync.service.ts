import type { RequestContext } from '../access/context.js';
import { authorize } from '../access/operations.js';
import type { ListingsService } from '../listings/listings.service.js';
import type { ProjectsService } from '../projects/projects.service.js';
import { toProject } from '../projects/projects.repository.js';
import { STORES, type Store } from '../stores/locales.js';
import {
  normalizeLocaleFilter,
  notLinked,
  selectStores,
  STORE_LABEL,
  type OutcomeError,
  type PushPreview,
  type PushResult,
  type StoreSelection,
  type SyncResult,
} from './sync.js';

/**
 * Sync and push of a project's listings. No store credentials can be set yet, so every linked
 * store answers STORE_NOT_CONFIGURED: the true outcome until credentials and connectors exist.
 */
export function createSyncService(deps: { projects: ProjectsService; listings: ListingsService }) {
  const { projects, listings } = deps;

  const notConfigured = (store: Store): OutcomeError => ({
    code: 'STORE_NOT_CONFIGURED',
    message: `No ${STORE_LABEL[store]} credentials are set for this organization`,
  });

  /** Outcome per store: an error for stores not run, or the result of running one. */
  function outcomes(project: ReturnType<typeof toProject>, selected: Store[]): Record<Store, OutcomeError> {
    const byStore = {} as Record<Store, OutcomeError>;
    for (const store of STORES) {
      byStore[store] = selected.includes(store) ? notConfigured(store) : notLinked(project, store);
    }
    return byStore;
  }

  return {
    async sync(
      ctx: RequestContext,
      projectId: string,
      input: { store?: StoreSelection },
    ): Promise<SyncResult> {
      authorize(ctx, 'projects.sync');
      const project = toProject(await projects.requireRow(ctx, projectId));
      const stores = selectStores(project, input.store ?? 'both');
      const errors = outcomes(project, stores);
      return {
        syncedLocales: [],
        appStore: { synced: false, locales: 0, error: errors.appstore },
        playStore: { synced: false, locales: 0, error: errors.playstore },
      };
    },

    /**
     * What a push with these options would change, without writing anything (dry run): the
     * pending diff narrowed to the selected stores and locales. Same checks as a push.
     */
    async previewPush(
      ctx: RequestContext,
      projectId: string,
      input: { store?: StoreSelection; locales?: string[] },
    ): Promise<PushPreview> {
      authorize(ctx, 'projects.push');
      const project = toProject(await projects.requireRow(ctx, projectId));
      const stores = selectStores(project, input.store ?? 'both');
      const locales = normalizeLocaleFilter(input.locales, stores);
      const diff = await listings.diff(ctx, projectId);
      const changes: PushPreview['changes'] = {};
      let changeCount = 0;
      for (const store of stores) {
        for (const [locale, fields] of Object.entries(diff.stores[store] ?? {})) {
          if (locales !== undefined && !locales.includes(locale)) continue;
          (changes[store] ??= {})[locale] = fields;
          changeCount += Object.keys(fields).length;
        }
      }
      return { dryRun: true, stores, changeCount, changes, approval: diff.approval };
    },

    async push(
      ctx: RequestContext,
      projectId: string,
      input: { store?: StoreSelection; locales?: string[] },
    ): Promise<PushResult> {
      authorize(ctx, 'projects.push');
      const project = toProject(await projects.requireRow(ctx, projectId));
      const stores = selectStores(project, input.store ?? 'both');
      normalizeLocaleFilter(input.locales, stores);
      await listings.assertPushAllowed(ctx, projectId);
      const errors = outcomes(project, stores);
      return {
        pushedLocales: [],
        appStore: { pushed: false, locales: 0, error: errors.appstore },
        playStore: { pushed: false, locales: 0, error: errors.playstore },
      };
    },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
