/** The operations log of a project: every sync and push, who ran it, when, and its outcome. */
import type { Executor } from '../../db/database.js';
import type { Store } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { ProjectsService } from '../projects/index.js';
import { operationsRepository as ops } from './operations.repository.js';
import type { OperationRecord } from './sync.js';

export function createOperationsLog(deps: { db: Executor; projects: Pick<ProjectsService, 'require'> }) {
  const { db, projects } = deps;
  return {
    /** The recorded syncs and pushes of a project, newest first. */
    async list(ctx: RequestContext, projectId: string, page: { limit: number; offset: number }) {
      authorize(ctx, 'projects.operations');
      await projects.require(ctx, projectId);
      const { rows, total } = await ops.list(db, projectId, page);
      const operations: OperationRecord[] = rows.map((row) => ({
        id: row.id,
        kind: row.kind as OperationRecord['kind'],
        status: row.status as OperationRecord['status'],
        actor: { memberId: row.actor_member_id, operator: row.actor_operator },
        stores: JSON.parse(row.stores) as Store[],
        locales: row.locales === null ? null : (JSON.parse(row.locales) as string[]),
        outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as Record<string, unknown>),
        startedAt: row.started_at,
        finishedAt: row.finished_at,
      }));
      return { operations, total };
    },
  };
}

export type OperationsLog = ReturnType<typeof createOperationsLog>;
