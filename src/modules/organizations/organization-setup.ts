/**
 * What the operator does to organizations from the CLI (design.md §3), and the first start's
 * default organization: create one with its first admin and key, change a plan.
 */
import type { Executor } from '../../db/database.js';
import { AppError, invalidField, notFound } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { FULL_SCOPE } from '../access/index.js';
import { operatorActor, type AuditActor, type AuditLog } from '../audit/index.js';
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
  /** Names are not unique, but a second organization of the same name is made only when asked. */
  allowDuplicateName?: boolean;
}

/** An organization as the operator's `org list` shows it. */
export interface OrganizationSummary {
  id: string;
  name: string;
  plan: string;
  memberCount: number;
  createdAt: string;
}

/** The first start's organization is made by the server itself. */
const FIRST_START = 'server:first-start';

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
  async function create(
    executor: Executor,
    input: OrganizationInput,
    operator: string,
  ): Promise<CreatedOrganization<K>> {
    const name = normalizeName('name', input.name);
    const twins = input.allowDuplicateName === true ? [] : await organizations.findNamed(executor, name);
    if (twins.length > 0) {
      throw new AppError(
        'CONFLICT',
        `An organization named "${name}" exists already (${twins.join(', ')}); ` +
          'choose another name, or allow a second one of that name explicitly (allowDuplicateName)',
      );
    }
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
      access: FULL_SCOPE,
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
      access: null,
      joined_at: at,
    });
    await audit.recordAs(
      executor,
      orgId,
      operatorActor(operator),
      'organization.create',
      { type: 'organization', id: orgId },
      { name, plan, adminMemberId: member.id },
    );
    const issued = await issueKey(executor, {
      organizationId: orgId,
      memberId: member.id,
      name: 'Initial admin key',
      expiresAt: null,
      actor: operatorActor(operator),
    });
    return {
      organization: await readOrganization(executor, members, orgId),
      member,
      apiKey: issued.apiKey,
      key: issued.key,
    };
  }

  return {
    /** Operator (`appmeta org create`), named by `operator` in the audit log. */
    create: (input: OrganizationInput, operator: string) =>
      db.transaction().execute((trx) => create(trx, input, operator)),

    /** Operator: `appmeta org list`. */
    async list(): Promise<OrganizationSummary[]> {
      const rows = await organizations.list(db);
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        plan: row.plan,
        memberCount: Number(row.member_count ?? 0),
        createdAt: row.created_at,
      }));
    },

    /** Operator: one organization by id, or 404 (the CLI checks `--org` with it). */
    require: (organizationId: string): Promise<Organization> => readOrganization(db, members, organizationId),

    /** Operator: `appmeta org set-plan`. Takes effect on the organization's next request. */
    async setPlan(organizationId: string, plan: string, operator: string): Promise<Organization> {
      if (!isPlan(plan)) throw invalidField('plan', `must be one of ${PLAN_NAMES.join(', ')}`);
      return db.transaction().execute(async (trx) => {
        const before = await organizations.find(trx, organizationId);
        if (before === undefined) throw notFound('Organization');
        await organizations.update(trx, organizationId, { plan });
        await audit.recordAs(
          trx,
          organizationId,
          operatorActor(operator),
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
        if (!(await organizations.claimFirstStart(trx, BOOTSTRAP_MARKER, clock.now().toISOString()))) {
          return null;
        }
        if ((await organizations.count(trx)) > 0) return null;
        return create(
          trx,
          { name: 'Default', adminEmail: 'admin@appmeta.local', adminName: 'Admin', plan: 'enterprise' },
          FIRST_START,
        );
      });
    },
  };
}

export type OrganizationSetup<K = unknown> = ReturnType<typeof createOrganizationSetup<K>>;
