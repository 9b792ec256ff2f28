import type { Executor } from '../../db/database.js';
import { invalidField, notFound } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { RequestContext } from '../access/context.js';
import { authorize } from '../access/operations.js';
import { issueApiKey, type IssuedKey } from '../api-keys/api-keys.service.js';
import { actorOf, OPERATOR, recordAudit, listAudit } from '../audit/audit.js';
import { normalizeEmail, type Member } from '../members/member.js';
import { countMembers, insertMember } from '../members/members.repository.js';
import {
  DEFAULT_SETTINGS,
  mergeSettings,
  normalizeName,
  parseSettings,
  type Organization,
  type OrganizationSettings,
} from './organization.js';
import * as organizations from './organizations.repository.js';
import { isPlan, PLAN_NAMES, type Plan } from './plans.js';

export interface CreatedOrganization {
  organization: Organization;
  member: Member;
  apiKey: string;
  key: IssuedKey['key'];
}

const BOOTSTRAP_MARKER = 'default_organization_created';

export function createOrganizationsService(deps: { db: Executor; clock: Clock }) {
  const { db, clock } = deps;

  async function read(executor: Executor, id: string): Promise<Organization> {
    const row = await organizations.findOrganization(executor, id);
    if (row === undefined) throw notFound('Organization');
    return {
      id: row.id,
      name: row.name,
      plan: row.plan as Plan,
      memberCount: await countMembers(executor, id),
      settings: parseSettings(row.settings),
      createdAt: row.created_at,
    };
  }

  /** Creates an organization with its first admin and that admin's key (operator and first start). */
  async function create(
    executor: Executor,
    input: { name: string; adminEmail: string; adminName?: string; plan?: string },
  ): Promise<CreatedOrganization> {
    const name = normalizeName('name', input.name);
    const email = normalizeEmail(input.adminEmail);
    if (email === null) throw invalidField('adminEmail', 'must be an e-mail address');
    const plan = input.plan ?? 'free';
    if (!isPlan(plan)) throw invalidField('plan', `must be one of ${PLAN_NAMES.join(', ')}`);
    const adminName = normalizeName('adminName', input.adminName ?? email.split('@')[0]!);
    const now = clock.now();
    const at = now.toISOString();
    const orgId = newId('org');
    const memberId = newId('mem');
    await organizations.insertOrganization(executor, {
      id: orgId,
      name,
      plan,
      settings: JSON.stringify(DEFAULT_SETTINGS),
      created_at: at,
    });
    await insertMember(executor, {
      id: memberId,
      organization_id: orgId,
      email,
      name: adminName,
      role: 'admin',
      status: 'active',
      last_active_at: null,
      joined_at: at,
    });
    await recordAudit(executor, {
      organizationId: orgId,
      actor: OPERATOR,
      action: 'organization.create',
      target: { type: 'organization', id: orgId },
      details: { name, plan, adminMemberId: memberId },
      at: now,
    });
    const issued = await issueApiKey(
      executor,
      { organizationId: orgId, memberId, name: 'Initial admin key', expiresAt: null, actor: OPERATOR },
      now,
    );
    return {
      organization: await read(executor, orgId),
      member: {
        id: memberId,
        email,
        name: adminName,
        role: 'admin',
        status: 'active',
        lastActive: null,
        joinedAt: at,
      },
      apiKey: issued.apiKey,
      key: issued.key,
    };
  }

  return {
    async get(ctx: RequestContext): Promise<Organization> {
      authorize(ctx, 'organization.get');
      return read(db, ctx.organizationId);
    },

    /** Renames and/or merges settings (design.md §7); records the change in the audit log. */
    async update(
      ctx: RequestContext,
      patch: { name?: string; settings?: Record<string, unknown> },
    ): Promise<{ id: string; name: string; settings: OrganizationSettings }> {
      authorize(ctx, 'organization.update');
      const name = patch.name === undefined ? undefined : normalizeName('name', patch.name);
      return db.transaction().execute(async (trx) => {
        await organizations.lockOrganization(trx, ctx.organizationId);
        const current = await read(trx, ctx.organizationId);
        const settings =
          patch.settings === undefined ? current.settings : mergeSettings(current.settings, patch.settings);
        await organizations.updateOrganization(trx, ctx.organizationId, {
          ...(name !== undefined && { name }),
          settings: JSON.stringify(settings),
        });
        await recordAudit(trx, {
          organizationId: ctx.organizationId,
          actor: actorOf(ctx),
          action: 'organization.update',
          target: { type: 'organization', id: ctx.organizationId },
          details: {
            ...(name !== undefined && { name }),
            ...(patch.settings !== undefined && { settings: patch.settings }),
          },
          at: clock.now(),
        });
        return { id: ctx.organizationId, name: name ?? current.name, settings };
      });
    },

    async auditLog(ctx: RequestContext, page: { limit: number; offset: number }) {
      authorize(ctx, 'auditLog.list');
      return listAudit(db, ctx.organizationId, page);
    },

    /** Operator: `appmeta org create`. */
    create: (input: { name: string; adminEmail: string; adminName?: string; plan?: string }) =>
      db.transaction().execute((trx) => create(trx, input)),

    /** Operator: `appmeta org set-plan`. Takes effect on the organization's next request. */
    async setPlan(organizationId: string, plan: string): Promise<Organization> {
      if (!isPlan(plan)) throw invalidField('plan', `must be one of ${PLAN_NAMES.join(', ')}`);
      return db.transaction().execute(async (trx) => {
        const before = await organizations.findOrganization(trx, organizationId);
        if (before === undefined) throw notFound('Organization');
        await organizations.updateOrganization(trx, organizationId, { plan });
        await recordAudit(trx, {
          organizationId,
          actor: OPERATOR,
          action: 'organization.setPlan',
          target: { type: 'organization', id: organizationId },
          details: { from: before.plan, to: plan },
          at: clock.now(),
        });
        return read(trx, organizationId);
      });
    },

    /**
     * On the first start against an empty database, creates the "Default" organization (enterprise)
     * and returns it with its admin key; returns null on every later start. A marker row makes this
     * happen once even when several instances start together.
     */
    async ensureDefaultOrganization(): Promise<CreatedOrganization | null> {
      return db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('system_state')
          .values({ key: BOOTSTRAP_MARKER, value: clock.now().toISOString() })
          .onConflict((oc) => oc.column('key').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return null;
        if ((await organizations.countOrganizations(trx)) > 0) return null;
        return create(trx, {
          name: 'Default',
          adminEmail: 'admin@appmeta.local',
          adminName: 'Admin',
          plan: 'enterprise',
        });
      });
    },
  };
}

export type OrganizationsService = ReturnType<typeof createOrganizationsService>;
