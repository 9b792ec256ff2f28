/**
 * Background syncs and pushes (design.md §11, `Prefer: respond-async`): the request records a
 * queued operation and its job in one transaction and answers at once; a worker runs it when the
 * project is free. Status, progress and the same result as a synchronous call are read from the
 * operations log; cancel stops before the next store write. An operation whose instance died is
 * found by its lapsed lease: resumed when it had not written to a store yet or is a push (which
 * resumes with the changeset it started with), failed otherwise.
 */
import type { AuditLog } from '../audit/index.js';
import type { Logger } from 'pino';
import type { Executor } from '../../db/database.js';
import { AppError, notFound } from '../../errors.js';
import type { JobQueue } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { authorize, isRole, parseScope, recordedContext, type RequestContext } from '../access/index.js';
import type { Approvals, Changeset, Diffs } from '../listings/index.js';
import type { ProjectsService } from '../projects/index.js';
import { operationsRepository as ops } from './operations.repository.js';
import type { OperationRunner, Progress } from './operation-runner.js';
import type { PushService } from './push.service.js';
import type { OperationRecord, PushInput, SyncInput } from './sync.js';
import type { SyncService } from './sync.service.js';
import type { OperationsTable } from '../../db/tables.js';

/** A busy project's queued operation looks again after this long. */
const BUSY_RETRY_MS = 1_000;

type Request = { kind: 'sync'; input: SyncInput } | { kind: 'push'; input: Omit<PushInput, 'dryRun'> };

export function recordOf(row: OperationsTable): OperationRecord {
  return {
    id: row.id,
    kind: row.kind as OperationRecord['kind'],
    status: row.status as OperationRecord['status'],
    actor: { memberId: row.actor_member_id, operator: row.actor_operator },
    stores: JSON.parse(row.stores) as string[],
    locales: row.locales === null ? null : (JSON.parse(row.locales) as string[]),
    progress: row.progress === null ? null : (JSON.parse(row.progress) as Progress),
    cancelRequested: row.cancel_requested_at !== null,
    outcome: row.outcome === null ? null : (JSON.parse(row.outcome) as Record<string, unknown>),
    queuedAt: row.queued_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

export interface BackgroundOperationsDeps {
  db: Executor;
  clock: Clock;
  queue: JobQueue;
  runner: OperationRunner;
  projects: Pick<ProjectsService, 'require'>;
  sync: Pick<SyncService, 'plan'>;
  push: Pick<PushService, 'plan'>;
  diffs: Pick<Diffs, 'pending'>;
  approvals: Pick<Approvals, 'assertPushAllowed'>;
  audit: Pick<AuditLog, 'record'>;
}

export function createBackgroundOperations(deps: BackgroundOperationsDeps) {
  const { db, clock, queue, runner, projects } = deps;

  const planOf = (ctx: RequestContext, projectId: string, request: Request) =>
    request.kind === 'sync'
      ? deps.sync.plan(ctx, projectId, request.input)
      : deps.push.plan(ctx, projectId, request.input);

  /** The context a worker acts in: the requester's, as recorded with the operation. */
  const contextOf = (row: OperationsTable, log: Logger): RequestContext =>
    recordedContext(
      {
        organizationId: row.organization_id,
        memberId: row.actor_member_id,
        operator: row.actor_operator,
        role: row.actor_role !== null && isRole(row.actor_role) ? row.actor_role : 'viewer',
        ...(row.actor_access !== null && { access: parseScope(row.actor_access) }),
      },
      row.id,
      log.child({ operationId: row.id }),
    );

  async function requireOperation(ctx: RequestContext, projectId: string, operationId: string) {
    authorize(ctx, 'operations.get');
    await projects.require(ctx, projectId);
    const row = await ops.find(db, projectId, operationId);
    if (row === undefined) throw notFound('Operation');
    return row;
  }

  return {
    /**
     * Queues a sync or push: checks it as the synchronous call would (roles, stores, locales, and
     * for a push the approval, so that a refusal is said now), then records it with its job.
     */
    async start(ctx: RequestContext, projectId: string, request: Request): Promise<OperationRecord> {
      const { project, run } = await planOf(ctx, projectId, request);
      if (request.kind === 'push') {
        await deps.approvals.assertPushAllowed(ctx, projectId, await deps.diffs.pending(ctx, projectId));
      }
      const row = runner.queuedRow(ctx, project, run, request);
      await db.transaction().execute(async (trx) => {
        await ops.insert(trx, row);
        await queue.enqueue(trx, 'operation.run', { operationId: row.id });
      });
      queue.wake('operation.run');
      ctx.log.info({ operationId: row.id, kind: request.kind, projectId }, `${request.kind} queued`);
      return recordOf(row);
    },

    /**
     * A background push of exactly `changeset` (a schedule's, checked by it), to be queued in the
     * caller's transaction with `insert`, then `wake`. It runs as a resumed push does: with the
     * changeset it was given, without reading the pending changes again.
     */
    async queuedPush(ctx: RequestContext, projectId: string, changeset: Changeset) {
      const request: Request = { kind: 'push', input: { store: 'both' } };
      const { project, run } = await deps.push.plan(ctx, projectId, request.input, changeset);
      const row = { ...runner.queuedRow(ctx, project, run, request), prepared: JSON.stringify(changeset) };
      return {
        operationId: row.id,
        async insert(trx: Executor) {
          await ops.insert(trx, row);
          await queue.enqueue(trx, 'operation.run', { operationId: row.id });
        },
        wake: () => queue.wake('operation.run'),
      };
    },

    async get(ctx: RequestContext, projectId: string, operationId: string): Promise<OperationRecord> {
      return recordOf(await requireOperation(ctx, projectId, operationId));
    },

    /**
     * Cancels: a queued operation ends now; a running one stops before its next store write
     * (what was written stays written and is reported). 409 once it has finished.
     */
    async cancel(ctx: RequestContext, projectId: string, operationId: string): Promise<OperationRecord> {
      const row = await requireOperation(ctx, projectId, operationId);
      authorize(ctx, 'operations.cancel');
      if (row.status !== 'queued' && row.status !== 'running') {
        throw new AppError('CONFLICT', `The operation has already finished (${row.status})`);
      }
      const now = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        await ops.requestCancel(trx, operationId, now, JSON.stringify({ cancelled: 'before it started' }));
        await deps.audit.record(
          trx,
          ctx,
          'operations.cancel',
          { type: 'operation', id: operationId, projectId },
          { kind: row.kind, was: row.status },
        );
      });
      ctx.log.info({ operationId }, 'cancel requested');
      return recordOf((await ops.findById(db, operationId))!);
    },

    /** The `operation.run` job: runs the queued operation when its project is free. */
    async runJob(operationId: string, log: Logger): Promise<void> {
      const row = await ops.findById(db, operationId);
      if (row === undefined || row.status !== 'queued' || row.request === null) return;
      const ctx = contextOf(row, log);
      const request = JSON.parse(row.request) as Request;
      let outcome: 'busy' | 'gone' | 'done';
      try {
        if (request.kind === 'sync') {
          const { project, run } = await deps.sync.plan(ctx, row.project_id, request.input);
          outcome = await runner.runQueued(ctx, project, operationId, run);
        } else {
          // Resumed after a restart: the changeset it started with (and was approved for).
          const resumeFrom = row.prepared === null ? undefined : (JSON.parse(row.prepared) as Changeset);
          const { project, run } = await deps.push.plan(ctx, row.project_id, request.input, resumeFrom);
          outcome = await runner.runQueued(ctx, project, operationId, run);
        }
      } catch (error) {
        // The request is no longer valid (the project lost its store link, the role changed).
        await runner.failQueued(row.organization_id, operationId, error);
        if (!(error instanceof AppError)) throw error;
        return;
      }
      if (outcome === 'busy') {
        await queue.enqueue(db, 'operation.run', { operationId }, { delayMs: BUSY_RETRY_MS });
      }
    },

    /**
     * Operations whose instance died (lease lapsed): a background one is queued again when it had
     * not written to a store yet, and a background push also when it had — it pushes the changeset
     * it started with, and pushing is idempotent (texts are written as they are; media are
     * reconciled with what the store holds, so a file the store settled is not uploaded again).
     * A synchronous one is failed, saying what it had done: its caller has gone.
     */
    async recoverExpired(log: Logger): Promise<number> {
      const expired = await ops.expired(db, clock.now().toISOString());
      for (const row of expired) {
        const resumable =
          row.request !== null &&
          (Number(row.writes_started ?? 0) === 0 || (row.kind === 'push' && row.prepared !== null));
        // Each is claimed by a conditional update on its lapsed lease: of several instances
        // recovering at once, one acts.
        if (resumable) {
          await db.transaction().execute(async (trx) => {
            const claimed = await ops.requeueExpired(trx, row.id, row.lease_expires_at);
            if (claimed) {
              await queue.enqueue(trx, 'operation.run', { operationId: row.id });
            }
          });
        } else {
          const progress = row.progress === null ? null : (JSON.parse(row.progress) as Progress);
          await runner.finish(
            row.organization_id,
            row.id,
            'failed',
            {
              error:
                'The instance running this operation stopped after it had begun writing to the stores; ' +
                'what was written is listed in progress. Sync to see the stores as they are, then push again.',
              progress,
            },
            [
              {
                type: row.kind === 'push' ? 'push.failed' : 'sync.completed',
                data: {
                  projectId: row.project_id,
                  status: 'failed',
                  error: 'the instance running it stopped',
                },
              },
            ],
            { status: 'running', leaseExpiresAt: row.lease_expires_at },
          );
        }
        log.warn({ operationId: row.id, resumed: resumable }, 'operation lease lapsed');
      }
      if (expired.length > 0) queue.wake('operation.run');
      return expired.length;
    },
  };
}

export type BackgroundOperations = ReturnType<typeof createBackgroundOperations>;
