/** The operations log of a project: every sync and push, who ran it, when, and its outcome. */
import type { Executor } from '../../db/database.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { ProjectsService } from '../projects/index.js';
import { recordOf } from './background-operations.js';
import { operationsRepository as ops } from './operations.repository.js';

export function createOperationsLog(deps: { db: Executor; projects: Pick<ProjectsService, 'require'> }) {
  const { db, projects } = deps;
  return {
    /** The recorded syncs and pushes of a project, newest first. */
    async list(ctx: RequestContext, projectId: string, page: { limit: number; offset: number }) {
      authorize(ctx, 'projects.operations');
      await projects.require(ctx, projectId);
      const { rows, total } = await ops.list(db, projectId, page);
      return { operations: rows.map(recordOf), total };
    },
  };
}

export type OperationsLog = ReturnType<typeof createOperationsLog>;
