/** The locale codes each store accepts (stores.md §4), and which of them a project has. */
import type { Executor } from '../../db/database.js';
import { isCommonLocale, localeName, STORE_LOCALES, STORES, type Store } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { ProjectsService } from '../projects/index.js';
import type { LocaleList } from './locales.schemas.js';

export interface LocalesServiceDeps {
  db: Executor;
  projects: Pick<ProjectsService, 'require'>;
  /** The locales with a listing, per store (the listings module's). */
  listings: { activeLocalesByStore(db: Executor, projectId: string): Promise<Record<Store, string[]>> };
}

const describe = (codes: Iterable<string>) =>
  [...codes].sort().map((code) => ({ code, name: localeName(code) }));

export function createLocalesService({ db, projects, listings }: LocalesServiceDeps) {
  return {
    /**
     * Each store's codes with their English names, the codes both stores accept as written, and,
     * given a project, the locales it has in each store.
     */
    async list(ctx: RequestContext, projectId?: string): Promise<LocaleList> {
      authorize(ctx, 'locales.list');
      if (projectId !== undefined) await projects.require(ctx, projectId);
      return {
        stores: Object.fromEntries(
          STORES.map((store) => [store, describe(STORE_LOCALES[store])]),
        ) as LocaleList['stores'],
        common: [...STORE_LOCALES.appstore].filter(isCommonLocale).sort(),
        project: projectId === undefined ? null : await listings.activeLocalesByStore(db, projectId),
      };
    },
  };
}

export type LocalesService = ReturnType<typeof createLocalesService>;
