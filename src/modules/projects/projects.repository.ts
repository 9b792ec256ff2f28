import type { Executor } from '../../db/database.js';
import type { ProjectsTable } from '../../db/tables.js';
import type { Project } from './project.js';

export async function insertProject(db: Executor, row: ProjectsTable): Promise<void> {
  await db.insertInto('projects').values(row).execute();
}

/** One page, newest first then id; served by projects_organization_created_idx. */
export async function listProjects(
  db: Executor,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<Project[]> {
  const rows = await db
    .selectFrom('projects')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map(toProject);
}

export async function findProjectRow(db: Executor, organizationId: string, id: string) {
  return db
    .selectFrom('projects')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Operator lookup across organizations (CLI only). */
export async function findProjectAnywhere(db: Executor, id: string) {
  return db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateProject(
  db: Executor,
  organizationId: string,
  id: string,
  changes: Partial<
    Pick<ProjectsTable, 'name' | 'app_store_app_id' | 'play_store_package_name' | 'updated_at'>
  >,
): Promise<ProjectsTable | undefined> {
  await db
    .updateTable('projects')
    .set(changes)
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .execute();
  return findProjectRow(db, organizationId, id);
}

export async function deleteProject(db: Executor, organizationId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('projects')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export function toProject(row: ProjectsTable): Project {
  return {
    id: row.id,
    name: row.name,
    appStoreAppId: row.app_store_app_id,
    playStorePackageName: row.play_store_package_name,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
