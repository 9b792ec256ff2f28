/**
 * One operation per project at a time: a sync and a push of one project never interleave, also
 * across instances, since the lock is a row in the shared database. Every run is recorded in the
 * operations log with who, when, stores, locales and outcome.
 */
import type { Executor } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { Store } from '../../shared/stores.js';
import type { RequestContext } from '../access/index.js';
import { actorOf } from '../audit/index.js';
import type { Project } from '../projects/index.js';
import { operationsRepository as ops } from './operations.repository.js';

/** A crashed holder's lock is taken over after this long. */
const LOCK_TTL_MS = 5 * 60_000;
/** How often a waiting operation tries the lock again. */
const LOCK_POLL_MS = 50;

export interface OperationRun<P, T> {
  kind: 'sync' | 'push';
  stores: Store[];
  locales: string[] | undefined;
  /** Runs first under the lock and may refuse: nothing is recorded then. What it answers is what `work` acts on. */
  prepare: () => Promise<P>;
  /** The operation itself; its `status` goes to the log, the rest is its outcome. */
  work: (prepared: P) => Promise<T & { status: string }>;
}

export function createOperationLock(deps: { db: Executor; clock: Clock; lockWaitMs?: number }) {
  const { db, clock } = deps;
  const lockWaitMs = deps.lockWaitMs ?? 60_000;

  /** Waits for the project's lock (409 CONFLICT after lockWaitMs), answers the operation's id. */
  async function acquire(projectId: string): Promise<string> {
    const operationId = newId('op');
    const deadline = Date.now() + lockWaitMs;
    for (;;) {
      const now = clock.now();
      const expires = new Date(now.getTime() + LOCK_TTL_MS).toISOString();
      if (await ops.tryLockProject(db, projectId, operationId, now.toISOString(), expires))
        return operationId;
      if (Date.now() > deadline) {
        throw new AppError(
          'CONFLICT',
          'Another sync or push of this project is still running; try again shortly',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
  }

  return {
    /** Runs an operation holding the project's lock, recorded in the operations log. */
    async run<P, T extends object>(
      ctx: RequestContext,
      project: Project,
      run: OperationRun<P, T>,
    ): Promise<T> {
      const operationId = await acquire(project.id);
      try {
        const prepared = await run.prepare();
        await ops.insert(db, {
          id: operationId,
          organization_id: ctx.organizationId,
          project_id: project.id,
          kind: run.kind,
          status: 'running',
          actor_member_id: actorOf(ctx).memberId,
          actor_operator: actorOf(ctx).operator,
          stores: JSON.stringify(run.stores),
          locales: run.locales === undefined ? null : JSON.stringify(run.locales),
          outcome: null,
          started_at: clock.now().toISOString(),
          finished_at: null,
        });
        ctx.log.info(
          { operationId, kind: run.kind, projectId: project.id, stores: run.stores },
          `${run.kind} started`,
        );
        let result: T & { status: string };
        try {
          result = await run.work(prepared);
        } catch (error) {
          await ops.finish(db, operationId, {
            status: 'failed',
            outcome: JSON.stringify({ error: error instanceof Error ? error.message : String(error) }),
            finished_at: clock.now().toISOString(),
          });
          throw error;
        }
        const { status, ...outcome } = result;
        await ops.finish(db, operationId, {
          status,
          outcome: JSON.stringify(outcome),
          finished_at: clock.now().toISOString(),
        });
        ctx.log.info({ operationId, kind: run.kind, status }, `${run.kind} finished`);
        return outcome as T;
      } finally {
        await ops.unlockProject(db, project.id, operationId);
      }
    },
  };
}

export type OperationLock = ReturnType<typeof createOperationLock>;
