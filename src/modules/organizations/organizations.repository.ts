import type { Executor } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { OrganizationsTable } from '../../db/tables.js';

export type OrganizationRow = Omit<OrganizationsTable, 'project_count' | 'media_bytes'> & {
  project_count: number;
  media_bytes: number;
};

export async function insertOrganization(
  db: Executor,
  row: Omit<OrganizationRow, 'project_count' | 'media_bytes'>,
) {
  await db.insertInto('organizations').values(row).execute();
}

const organizationById = preparedQuery((db: Executor, id: string) =>
  db.selectFrom('organizations').selectAll().where('id', '=', id),
);

export async function findOrganization(db: Executor, id: string): Promise<OrganizationRow | undefined> {
  const [row] = await organizationById(db, id);
  return row;
}

/** Every organization with its member count, oldest first (the operator's `org list`). */
export async function listOrganizations(db: Executor) {
  return db
    .selectFrom('organizations')
    .select(['id', 'name', 'plan', 'created_at'])
    .select((eb) =>
      eb
        .selectFrom('members')
        .select((m) => m.fn.countAll<number>().as('n'))
        .whereRef('members.organization_id', '=', 'organizations.id')
        .as('member_count'),
    )
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
}

/** The ids of organizations with this exact name (names are not unique; `org create` asks first). */
export async function findOrganizationsNamed(db: Executor, name: string): Promise<string[]> {
  const rows = await db.selectFrom('organizations').select('id').where('name', '=', name).execute();
  return rows.map((row) => row.id);
}

export async function countOrganizations(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function updateOrganization(
  db: Executor,
  id: string,
  changes: Partial<Pick<OrganizationRow, 'name' | 'settings' | 'plan'>>,
): Promise<boolean> {
  const result = await db.updateTable('organizations').set(changes).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Takes the organization's row lock for the rest of the transaction (a no-op update works on both
 * dialects; SQLite transactions are serialized anyway). Used where a rule reads then writes
 * several rows: seats, the last admin.
 */
export async function lockOrganization(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('organizations')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('id', '=', id)
    .execute();
}

/**
 * Adds one project to the organization's count unless that would pass `limit`. A single
 * conditional UPDATE, so concurrent creates cannot overshoot the quota.
 */
export async function reserveProjectSlot(db: Executor, id: string, limit: number | null): Promise<boolean> {
  let query = db
    .updateTable('organizations')
    .set((eb) => ({ project_count: eb('project_count', '+', 1) }))
    .where('id', '=', id);
  if (limit !== null) query = query.where('project_count', '<', limit);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function releaseProjectSlot(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('organizations')
    .set((eb) => ({ project_count: eb('project_count', '-', 1) }))
    .where('id', '=', id)
    .execute();
}

/**
 * Claims the first start: inserts the marker row once, whoever asks first. True for that caller
 * only, also when several instances start together.
 */
export async function claimFirstStart(db: Executor, marker: string, at: string): Promise<boolean> {
  const inserted = await db
    .insertInto('system_state')
    .values({ key: marker, value: at })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The organizations table, for the services that the composition root gives it to. */
export const organizationsRepository = {
  claimFirstStart,
  insert: insertOrganization,
  find: findOrganization,
  count: countOrganizations,
  list: listOrganizations,
  findNamed: findOrganizationsNamed,
  update: updateOrganization,
  lock: lockOrganization,
  reserveProjectSlot,
  releaseProjectSlot,
};

export type OrganizationsRepository = typeof organizationsRepository;
