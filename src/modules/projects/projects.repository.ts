import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { ProjectsTable } from '../../db/tables.js';

/** A project's row; the drift check's own column is read by the drift module. */
type ProjectRow = Omit<ProjectsTable, 'drift_checked_at'>;
import type { Project } from './project.js';

export async function insertProject(db: Executor, row: ProjectRow): Promise<void> {
  await db.insertInto('projects').values(row).execute();
}

/** The columns a Project is made of. */
const PROJECT_COLUMNS = [
  'id',
  'name',
  'app_store_app_id',
  'play_store_package_name',
  'source_locale',
  'created_at',
  'updated_at',
] as const;

/**
 * One page, each row carrying the organization's project count, so that a page and its total
 * take one query (one round trip on PostgreSQL). The page walks projects_organization_created_idx;
 * the count is the counter kept on the organization row, never count(*). Only the columns a
 * Project has are read: turning values into strings is most of what a page costs SQLite.
 * Prepared once per page size, which is written into the SQL (db/dialects.ts), and the first page
 * without an OFFSET, so that PostgreSQL plans it once (a bound OFFSET has it plan every run);
 * sizes are 1..100, as the routes and MCP tools validate them.
 */
const page = (db: Executor, organizationId: string, limit: number) =>
  db
    .selectFrom('projects')
    .select((eb) => [
      ...PROJECT_COLUMNS,
      eb
        .selectFrom('organizations')
        .select('project_count')
        .where('id', '=', organizationId)
        .$asScalar()
        .as('total'),
    ])
    .where('organization_id', '=', organizationId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit);
const firstPageOfSize = (limit: number) =>
  preparedQuery((db: Executor, organizationId: string) => page(db, organizationId, limit));
const laterPageOfSize = (limit: number) =>
  preparedQuery((db: Executor, organizationId: string, offset: number) =>
    page(db, organizationId, limit).offset(offset),
  );
const firstPages = new Map<number, ReturnType<typeof firstPageOfSize>>();
const laterPages = new Map<number, ReturnType<typeof laterPageOfSize>>();

function projectPage(db: Executor, organizationId: string, limit: number, offset: number) {
  if (offset === 0) {
    let first = firstPages.get(limit);
    if (first === undefined) firstPages.set(limit, (first = firstPageOfSize(limit)));
    return first(db, organizationId);
  }
  let later = laterPages.get(limit);
  if (later === undefined) laterPages.set(limit, (later = laterPageOfSize(limit)));
  return later(db, organizationId, offset);
}

const projectCount = preparedQuery((db: Executor, organizationId: string) =>
  db.selectFrom('organizations').select('project_count').where('id', '=', organizationId),
);

/** One page of the organization's projects, newest first then id, and how many it has in all. */
export async function listProjects(
  db: Executor,
  organizationId: string,
  page: { limit: number; offset: number },
): Promise<{ projects: Project[]; total: number }> {
  const rows = await projectPage(db, organizationId, page.limit, page.offset);
  // An empty page (past the end, or no projects) has no row to carry the count.
  const total = rows[0]?.total ?? (await projectCount(db, organizationId))[0]?.project_count ?? 0;
  return { projects: rows.map(toProject), total };
}

/**
 * One page of the projects whose name contains `search` (case-insensitive) and, with `ids`, that
 * are among them (a member narrowed to some projects), and how many match. It reads the
 * organization's projects (its index bounds it), unlike the plain page.
 */
export async function searchProjects(
  db: Executor,
  organizationId: string,
  filter: { search?: string; ids?: string[] },
  page: { limit: number; offset: number },
): Promise<{ projects: Project[]; total: number }> {
  let matching = db.selectFrom('projects').where('organization_id', '=', organizationId);
  if (filter.search !== undefined) {
    const pattern = `%${filter.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    matching = matching.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
  }
  if (filter.ids !== undefined) {
    if (filter.ids.length === 0) return { projects: [], total: 0 };
    matching = matching.where('id', 'in', filter.ids);
  }
  const [rows, count] = await Promise.all([
    matching
      .select(PROJECT_COLUMNS)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    matching.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
  ]);
  return { projects: rows.map(toProject), total: Number(count.count) };
}

/** Which of `ids` are projects of the organization. */
export async function existingProjectIds(
  db: Executor,
  organizationId: string,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('projects')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((row) => row.id));
}

const projectById = preparedQuery((db: Executor, organizationId: string, id: string) =>
  db.selectFrom('projects').selectAll().where('organization_id', '=', organizationId).where('id', '=', id),
);

export async function findProjectRow(db: Executor, organizationId: string, id: string) {
  const [row] = await projectById(db, organizationId, id);
  return row;
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
    Pick<ProjectRow, 'name' | 'app_store_app_id' | 'play_store_package_name' | 'source_locale' | 'updated_at'>
  >,
): Promise<ProjectRow | undefined> {
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

type ProjectColumns = Pick<
  ProjectRow,
  'id' | 'name' | 'app_store_app_id' | 'play_store_package_name' | 'created_at' | 'updated_at'
> & { source_locale?: string | null };

export function toProject(row: ProjectColumns): Project {
  return {
    id: row.id,
    name: row.name,
    appStoreAppId: row.app_store_app_id,
    playStorePackageName: row.play_store_package_name,
    sourceLocale: row.source_locale ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const lockRow = preparedQuery((db: Executor, projectId: string) =>
  db
    .updateTable('projects')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', projectId),
);

/**
 * Takes the project's row lock for the rest of the transaction. Every transaction that writes a
 * project's listings or media takes it first (edits, imports, copies, reverts, approvals, sync
 * merges, push bookkeeping, media slots), so each reads the fields as the one before left them:
 * on PostgreSQL's READ COMMITTED two edits of one field would otherwise both record the same
 * "old" value. One lock per project, always taken first, cannot deadlock. A no-op update works on
 * both dialects; it sets a column no foreign key refers to, since SQLite checks every referring
 * table when the key is set, even to itself (34 µs per edit).
 */
async function lockProject(db: Executor, projectId: string): Promise<void> {
  await lockRow(db, projectId);
}

/** The projects table, for the services that the composition root gives it to. */
export const projectsRepository = {
  insert: insertProject,
  lock: lockProject,
  listPage: listProjects,
  search: searchProjects,
  existingIds: existingProjectIds,
  findRow: findProjectRow,
  findAnywhere: findProjectAnywhere,
  update: updateProject,
  delete: deleteProject,
};

export type ProjectsRepository = typeof projectsRepository;
