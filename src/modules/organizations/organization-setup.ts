/**
 * What the operator does to organizations from the CLI (design.md §3), and the first start's
 * default organization: create one with its first admin and key, change a plan.
 */
import type { Executor } from '../../db/database.js';
import { invalidField, notFound } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { OPERATOR, type AuditActor, type AuditLog } from '../audit/index.js';
import { normalizeEmail, type Member, type MembersRepository } from '../members/index.js';
import { DEFAULT_SETTINGS, normalizeName, type Organization } from './organization.js';
import { organizationsRepository as organizations } from './organizations.repository.js';
import { readOrganization } from './organizations.service.js';
import { isPlan, PLAN_NAMES } from './plans.js';

/** The organization, its first admin, and that admin's key (`K`: the key as the API shows it). */
export interface CreatedOrganization<K = unknown> {
  organization: Organization;
  member: Member;
  /** The secret, shown once. */
  apiKey: string;
  key: K;
}

export interface OrganizationInput {
  name: string;
  adminEmail: string;
  adminName?: string;
  plan?: string;
}

export interface OrganizationSetupDeps<K> {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  members: Pick<MembersRepository, 'insert' | 'count'>;
  /** Issues the first admin's key in the caller's transaction (the api-keys module's issuer). */
  issueKey: (
    db: Executor,
    args: { organizationId: string; memberId: string; name: string; expiresAt: null; actor: AuditActor },
  ) => Promise<{ apiKey: string; key: K }>;
}

const BOOTSTRAP_MARKER = 'default_organization_created';

export function createOrganizationSetup<K>({
  db,
  clock,
  audit,
  members,
  issueKey,
}: OrganizationSetupDeps<K>) {
  /** An organization with its first admin and that admin's key, in the caller's transaction. */
  async function create(executor: Executor, input: OrganizationInput): Promise<CreatedOrganization<K>> {
    const name = normalizeName('name', input.name);
    const email = normalizeEmail(input.adminEmail);
    if (email === null) throw invalidField('adminEmail', 'must be an e-mail address');
    const plan = input.plan ?? 'free';
    if (!isPlan(plan)) throw invalidField('plan', `must be one of ${PLAN_NAMES.join(', ')}`);
    const adminName = normalizeName('adminName', input.adminName ?? email.split('@')[0]!);
    const at = clock.now().toISOString();
    const orgId = newId('org');
    const member: Member = {
      id: newId('mem'),
      email,
      name: adminName,
      role: 'admin',
      status: 'active',
      lastActive: null,
      joinedAt: at,
    };
    await organizations.insert(executor, {
      id: orgId,
      name,
      plan,
      settings: JSON.stringify(DEFAULT_SETTINGS),
      created_at: at,
    });
    await members.insert(executor, {
      id: member.id,
      organization_id: orgId,
      email,
      name: adminName,
      role: 'admin',
      status: 'active',
      last_active_at: null,
      joined_at: at,
    });
    await audit.recordAs(
      executor,
      orgId,
      OPERATOR,
      'organization.create',
      { type: 'organization', id: orgId },
      { name, plan, adminMemberId: member.id },
    );
    const issued = await issueKey(executor, {
      organizationId: orgId,
      memberId: member.id,
      name: 'Initial admin key',
      expiresAt: null,
      actor: OPERATOR,
    });
    return {
      organization: await readOrganization(executor, members, orgId),
      member,
      apiKey: issued.apiKey,
      key: issued.key,
    };
  }

  return {
    /** Operator: `appmeta org create`. */
    create: (input: OrganizationInput) => db.transaction().execute((trx) => create(trx, input)),

    /** Operator: `appmeta org set-plan`. Takes effect on the organization's next request. */
    async setPlan(organizationId: string, plan: string): Promise<Organization> {
      if (!isPlan(plan)) throw invalidField('plan', `must be one of ${PLAN_NAMES.join(', ')}`);
      return db.transaction().execute(async (trx) => {
        const before = await organizations.find(trx, organizationId);
        if (before === undefined) throw notFound('Organization');
        await organizations.update(trx, organizationId, { plan });
        await audit.recordAs(
          trx,
          organizationId,
          OPERATOR,
          'organization.setPlan',
          { type: 'organization', id: organizationId },
          { from: before.plan, to: plan },
        );
        return readOrganization(trx, members, organizationId);
      });
    },

    /**
     * On the first start against an empty database, creates the "Default" organization (enterprise)
     * and returns it with its admin key; returns null on every later start. A marker row makes this
     * happen once even when several instances start together.
     */
    async ensureDefaultOrganization(): Promise<CreatedOrganization<K> | null> {
      return db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto('system_state')
          .values({ key: BOOTSTRAP_MARKER, value: clock.now().toISOString() })
          .onConflict((oc) => oc.column('key').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return null;
        if ((await organizations.count(trx)) > 0) return null;
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

export type OrganizationSetup<K = unknown> = ReturnType<typeof createOrganizationSetup<K>>;
