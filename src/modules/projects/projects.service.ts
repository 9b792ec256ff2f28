import type { Executor } from '../../db/database.js';
import { notFound, usageLimitExceeded } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { RequestContext } from '../access/context.js';
import { authorize } from '../access/operations.js';
import { actorOf, recordAudit } from '../audit/audit.js';
import { activeLocales } from '../listings/listings.repository.js';
import {
  findOrganization,
  releaseProjectSlot,
  reserveProjectSlot,
} from '../organizations/organizations.repository.js';
import { PLANS, type Plan } from '../organizations/plans.js';
import {
  normalizeProjectInput,
  type Project,
  type ProjectInput,
  type ProjectWithMetadata,
} from './project.js';
import * as projects from './projects.repository.js';

export interface ProjectPage {
  projects: Project[];
  total: number;
  limit: number;
  offset: number;
}

export function createProjectsService(deps: { db: Executor; clock: Clock }) {
  const { db, clock } = deps;

  /** The project, or 404 when it does not exist in the caller's organization. */
  async function requireRow(executor: Executor, ctx: RequestContext, projectId: string) {
    const row = await projects.findProjectRow(executor, ctx.organizationId, projectId);
    if (row === undefined) throw notFound('Project');
    return row;
  }

  return {
    /**
     * A page of projects, newest first. `total` is the organization's project counter, kept in
     * step with inserts and deletes, so a page costs the same whatever the organization's size.
     */
    async list(ctx: RequestContext, page: { limit: number; offset: number }): Promise<ProjectPage> {
      authorize(ctx, 'projects.list');
      const { projects: rows, total } = await projects.listProjects(db, ctx.organizationId, page);
      return { projects: rows, total, limit: page.limit, offset: page.offset };
    },

    /** Creates a project; 403 USAGE_LIMIT_EXCEEDED when the plan's project quota is reached. */
    async create(ctx: RequestContext, input: ProjectInput & { name: string }): Promise<Project> {
      authorize(ctx, 'projects.create');
      const fields = normalizeProjectInput(input);
      const now = clock.now().toISOString();
      return db.transaction().execute(async (trx) => {
        const org = await findOrganization(trx, ctx.organizationId);
        if (org === undefined) throw notFound('Organization');
        const limit = PLANS[org.plan as Plan].projects;
        if (!(await reserveProjectSlot(trx, ctx.organizationId, limit))) {
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
          created_at: now,
          updated_at: now,
          last_synced_at: null,
          operation_id: null,
          operation_expires_at: null,
        };
        await projects.insertProject(trx, row);
        await recordAudit(trx, {
          organizationId: ctx.organizationId,
          actor: actorOf(ctx),
          action: 'projects.create',
          target: { type: 'project', id: row.id },
          details: { name: row.name },
          at: clock.now(),
        });
        return projects.toProject(row);
      });
    },

    async get(ctx: RequestContext, projectId: string): Promise<ProjectWithMetadata> {
      authorize(ctx, 'projects.get');
      const row = await requireRow(db, ctx, projectId);
      const locales = await activeLocales(db, projectId);
      return { ...projects.toProject(row), metadata: { locales, lastSyncedAt: row.last_synced_at } };
    },

    /** Partial update; `null` clears a store identifier. */
    async update(ctx: RequestContext, projectId: string, patch: ProjectInput): Promise<Project> {
      authorize(ctx, 'projects.update');
      const fields = normalizeProjectInput(patch);
      return db.transaction().execute(async (trx) => {
        await requireRow(trx, ctx, projectId);
        const updated = await projects.updateProject(trx, ctx.organizationId, projectId, {
          ...(fields.name !== undefined && { name: fields.name }),
          ...(fields.appStoreAppId !== undefined && { app_store_app_id: fields.appStoreAppId }),
          ...(fields.playStorePackageName !== undefined && {
            play_store_package_name: fields.playStorePackageName,
          }),
          updated_at: clock.now().toISOString(),
        });
        if (updated === undefined) throw notFound('Project');
        await recordAudit(trx, {
          organizationId: ctx.organizationId,
          actor: actorOf(ctx),
          action: 'projects.update',
          target: { type: 'project', id: projectId },
          details: { ...fields },
          at: clock.now(),
        });
        return projects.toProject(updated);
      });
    },

    /** Deletes the project and everything under it; cannot be undone. */
    async remove(ctx: RequestContext, projectId: string): Promise<void> {
      authorize(ctx, 'projects.delete');
      await db.transaction().execute(async (trx) => {
        const row = await requireRow(trx, ctx, projectId);
        if (!(await projects.deleteProject(trx, ctx.organizationId, projectId))) throw notFound('Project');
        await releaseProjectSlot(trx, ctx.organizationId);
        await recordAudit(trx, {
          organizationId: ctx.organizationId,
          actor: actorOf(ctx),
          action: 'projects.delete',
          target: { type: 'project', id: projectId },
          details: { name: row.name },
          at: clock.now(),
        });
      });
    },

    requireRow: (ctx: RequestContext, projectId: string) => requireRow(db, ctx, projectId),
  };
}

export type ProjectsService = ReturnType<typeof createProjectsService>;
