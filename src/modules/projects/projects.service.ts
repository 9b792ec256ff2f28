/** Projects of the caller's organization: the apps whose listings appmeta manages. */
import type { Executor } from '../../db/database.js';
import { notFound, usageLimitExceeded } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import {
  authorize,
  requireAllProjects,
  requireProjectInScope,
  visibleProjects,
  type RequestContext,
} from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import { PLANS, type OrganizationsRepository, type Plan } from '../organizations/index.js';
import {
  normalizeProjectInput,
  type Project,
  type ProjectInput,
  type ProjectWithMetadata,
} from './project.js';
import { projectsRepository as projects, toProject } from './projects.repository.js';

export interface ProjectPage {
  projects: Project[];
  total: number;
  limit: number;
  offset: number;
}

export interface ProjectsServiceDeps {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  organizations: Pick<OrganizationsRepository, 'find' | 'reserveProjectSlot' | 'releaseProjectSlot'>;
  /** The sorted locales that have a listing in either store (the listings module's). */
  listings: { activeLocales(db: Executor, projectId: string): Promise<string[]> };
  /**
   * Called in the transaction that changes a project's source locale: what translations were
   * made from belongs to the old source (the translations module forgets it).
   */
  sourceLocaleChanged?: (db: Executor, projectId: string) => Promise<void>;
}

export function createProjectsService({
  db,
  clock,
  audit,
  organizations,
  listings,
  sourceLocaleChanged,
}: ProjectsServiceDeps) {
  /** The project, or 404 when it does not exist in the caller's organization. */
  /** The project's row; 404 when the organization has none, or the caller's scope leaves it out. */
  async function requireRow(executor: Executor, ctx: RequestContext, projectId: string) {
    requireProjectInScope(ctx, projectId);
    const row = await projects.findRow(executor, ctx.organizationId, projectId);
    if (row === undefined) throw notFound('Project');
    return row;
  }

  return {
    /**
     * A page of projects, newest first; with `search`, only those whose name contains it. Without
     * it, `total` is the organization's project counter, kept in step with inserts and deletes, so
     * a page costs the same whatever the organization's size.
     */
    async list(
      ctx: RequestContext,
      page: { limit: number; offset: number },
      search?: string,
    ): Promise<ProjectPage> {
      authorize(ctx, 'projects.list');
      const term = search?.trim() ?? '';
      const only = visibleProjects(ctx);
      const { projects: rows, total } =
        term === '' && only === null
          ? await projects.listPage(db, ctx.organizationId, page)
          : await projects.search(
              db,
              ctx.organizationId,
              { ...(term !== '' && { search: term }), ...(only !== null && { ids: only }) },
              page,
            );
      return { projects: rows, total, limit: page.limit, offset: page.offset };
    },

    /** Creates a project; 403 USAGE_LIMIT_EXCEEDED when the plan's project quota is reached. */
    async create(ctx: RequestContext, input: ProjectInput & { name: string }): Promise<Project> {
      authorize(ctx, 'projects.create');
      requireAllProjects(ctx);
      const fields = normalizeProjectInput(input);
      const now = clock.now().toISOString();
      return db.transaction().execute(async (trx) => {
        const org = await organizations.find(trx, ctx.organizationId);
        if (org === undefined) throw notFound('Organization');
        const limit = PLANS[org.plan as Plan].projects;
        if (!(await organizations.reserveProjectSlot(trx, ctx.organizationId, limit))) {
          throw usageLimitExceeded(
            `The ${org.plan} plan allows ${limit} projects; delete one or upgrade the plan`,
          );
        }
        const row = {
          id: newId('proj'),
          organization_id: ctx.organizationId,
          name: fields.name!,
          app_store_app_id: fields.appStoreAppId ?? null,
          play_store_package_name: fields.playStorePackageName ?? null,
          source_locale: fields.sourceLocale ?? null,
          created_at: now,
          updated_at: now,
          last_synced_at: null,
          operation_id: null,
          operation_expires_at: null,
        };
        await projects.insert(trx, row);
        await audit.record(trx, ctx, 'projects.create', { type: 'project', id: row.id }, { name: row.name });
        return toProject(row);
      });
    },

    async get(ctx: RequestContext, projectId: string): Promise<ProjectWithMetadata> {
      authorize(ctx, 'projects.get');
      const row = await requireRow(db, ctx, projectId);
      const locales = await listings.activeLocales(db, projectId);
      return { ...toProject(row), metadata: { locales, lastSyncedAt: row.last_synced_at } };
    },

    /** Partial update; `null` clears a store identifier. */
    async update(ctx: RequestContext, projectId: string, patch: ProjectInput): Promise<Project> {
      authorize(ctx, 'projects.update');
      const fields = normalizeProjectInput(patch);
      return db.transaction().execute(async (trx) => {
        const before = await requireRow(trx, ctx, projectId);
        const updated = await projects.update(trx, ctx.organizationId, projectId, {
          ...(fields.name !== undefined && { name: fields.name }),
          ...(fields.appStoreAppId !== undefined && { app_store_app_id: fields.appStoreAppId }),
          ...(fields.playStorePackageName !== undefined && {
            play_store_package_name: fields.playStorePackageName,
          }),
          ...(fields.sourceLocale !== undefined && { source_locale: fields.sourceLocale }),
          updated_at: clock.now().toISOString(),
        });
        if (updated === undefined) throw notFound('Project');
        if (fields.sourceLocale !== undefined && fields.sourceLocale !== before.source_locale) {
          await sourceLocaleChanged?.(trx, projectId);
        }
        await audit.record(trx, ctx, 'projects.update', { type: 'project', id: projectId }, { ...fields });
        return toProject(updated);
      });
    },

    /** Deletes the project and everything under it; cannot be undone. */
    async remove(ctx: RequestContext, projectId: string): Promise<void> {
      authorize(ctx, 'projects.delete');
      await db.transaction().execute(async (trx) => {
        const row = await requireRow(trx, ctx, projectId);
        // Recorded first, while the project still has its name; rolled back with the delete if it fails.
        await audit.record(
          trx,
          ctx,
          'projects.delete',
          { type: 'project', id: projectId },
          { name: row.name },
        );
        if (!(await projects.delete(trx, ctx.organizationId, projectId))) throw notFound('Project');
        await organizations.releaseProjectSlot(trx, ctx.organizationId);
      });
    },

    /** Operator (CLI): the organization a project belongs to, or 404. */
    async organizationOf(projectId: string): Promise<string> {
      const row = await projects.findAnywhere(db, projectId);
      if (row === undefined) throw notFound('Project');
      return row.organization_id;
    },

    /** The project of the caller's organization, or 404 (for the services that act on one). */
    async require(ctx: RequestContext, projectId: string): Promise<Project> {
      return toProject(await requireRow(db, ctx, projectId));
    },
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
