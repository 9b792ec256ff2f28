/** The caller's organization: read it, rename it or change its settings, read its audit log. */
import type { Executor } from '../../db/database.js';
import { notFound } from '../../errors.js';
import { authorize, type RequestContext } from '../access/index.js';
import { auditCsv, type AuditFilter, type AuditLog } from '../audit/index.js';
import type { MembersRepository } from '../members/index.js';
import {
  mergeSettings,
  normalizeName,
  parseSettings,
  type Organization,
  type OrganizationSettings,
} from './organization.js';
import { organizationsRepository as organizations } from './organizations.repository.js';
import { PLANS, type Plan } from './plans.js';
import type { Clock } from '../../shared/clock.js';

export interface OrganizationsServiceDeps {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  members: Pick<MembersRepository, 'count'>;
  /** Pending invites that hold a seat (the invites repository). */
  invites: { countSeatHolding(db: Executor, organizationId: string, now: string): Promise<number> };
}

/** What the organization uses of its plan; a null limit is unlimited. */
export interface Usage {
  plan: Plan;
  projects: { used: number; limit: number | null };
  seats: { used: number; limit: number | null };
  mediaBytes: { used: number; limit: number | null };
  requestsPerMinute: number;
}

/** The organization as the API shows it, or 404. */
export async function readOrganization(
  executor: Executor,
  members: Pick<MembersRepository, 'count'>,
  id: string,
): Promise<Organization> {
  const row = await organizations.find(executor, id);
  if (row === undefined) throw notFound('Organization');
  return {
    id: row.id,
    name: row.name,
    plan: row.plan as Plan,
    memberCount: await members.count(executor, id),
    settings: parseSettings(row.settings),
    usage: { mediaBytes: Number(row.media_bytes), mediaBytesLimit: PLANS[row.plan as Plan].mediaBytes },
    createdAt: row.created_at,
  };
}

export function createOrganizationsService({ db, clock, audit, members, invites }: OrganizationsServiceDeps) {
  return {
    async get(ctx: RequestContext): Promise<Organization> {
      authorize(ctx, 'organization.get');
      return readOrganization(db, members, ctx.organizationId);
    },

    /** Projects and seats (members and pending invites) used, against the plan's limits. */
    async usage(ctx: RequestContext): Promise<Usage> {
      authorize(ctx, 'organization.usage');
      const row = await organizations.find(db, ctx.organizationId);
      if (row === undefined) throw notFound('Organization');
      const plan = PLANS[row.plan as Plan];
      const seats =
        (await members.count(db, ctx.organizationId)) +
        (await invites.countSeatHolding(db, ctx.organizationId, clock.now().toISOString()));
      return {
        plan: row.plan as Plan,
        projects: { used: row.project_count, limit: plan.projects },
        seats: { used: seats, limit: plan.seats },
        mediaBytes: { used: Number(row.media_bytes), limit: plan.mediaBytes },
        requestsPerMinute: plan.requestsPerMinute,
      };
    },

    /** Renames and/or merges settings (design.md §7); records the change in the audit log. */
    async update(
      ctx: RequestContext,
      patch: { name?: string; settings?: Record<string, unknown> },
    ): Promise<{ id: string; name: string; settings: OrganizationSettings }> {
      authorize(ctx, 'organization.update');
      const name = patch.name === undefined ? undefined : normalizeName('name', patch.name);
      return db.transaction().execute(async (trx) => {
        await organizations.lock(trx, ctx.organizationId);
        const current = await readOrganization(trx, members, ctx.organizationId);
        const settings =
          patch.settings === undefined ? current.settings : mergeSettings(current.settings, patch.settings);
        await organizations.update(trx, ctx.organizationId, {
          ...(name !== undefined && { name }),
          settings: JSON.stringify(settings),
        });
        await audit.record(
          trx,
          ctx,
          'organization.update',
          { type: 'organization', id: ctx.organizationId },
          {
            ...(name !== undefined && { name }),
            ...(patch.settings !== undefined && { settings: patch.settings }),
          },
        );
        return { id: ctx.organizationId, name: name ?? current.name, settings };
      });
    },

    async auditLog(ctx: RequestContext, filter: AuditFilter, page: { limit: number; offset: number }) {
      authorize(ctx, 'auditLog.list');
      return audit.list(db, ctx.organizationId, filter, page);
    },

    /** The same entries as CSV text, produced as they are read; refused before any is read. */
    auditLogCsv(ctx: RequestContext, filter: AuditFilter): AsyncGenerator<string> {
      authorize(ctx, 'auditLog.export');
      return auditCsv(audit.all(db, ctx.organizationId, filter));
    },
  };
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
