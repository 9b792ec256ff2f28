/**
 * Runs syncs and pushes, one per project at a time across instances (design.md §11). The
 * project's lock is a lease: the instance running an operation renews it, and when that instance
 * dies it lapses within LEASE_MS, so the operation can be resumed or failed (see
 * background-operations.ts). Every run is recorded in the operations log with who, when, stores,
 * locales, progress and outcome, and its events are written in the transaction that records the
 * outcome.
 */
import type { Executor } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { Store } from '../../shared/stores.js';
import { storedScope, type RequestContext } from '../access/index.js';
import { actorOf, type AuditLog } from '../audit/index.js';
import type { EventType, Outbox } from '../events/index.js';
import type { Project } from '../projects/index.js';
import { operationsRepository as ops } from './operations.repository.js';
import { createProgress, type OperationControl } from './operation-progress.js';

/** A lease lapses this long after its last renewal (design.md §11: within 60 s). */
export const LEASE_MS = 60_000;
/** How often the running instance renews its lease. */
const RENEW_MS = 15_000;
/** How often a waiting synchronous operation tries the lock again. */
const LOCK_POLL_MS = 50;

export type { MediaCount, OperationControl, Progress } from './operation-progress.js';

export interface OperationEvent {
  type: EventType;
  data: Record<string, unknown>;
}

/** What the log records of an operation before it runs. */
export interface OperationShape {
  kind: 'sync' | 'push';
  stores: Store[];
  locales: string[] | undefined;
}

export interface OperationRun<P, T> extends OperationShape {
  /** Runs first under the lock and may refuse: nothing is recorded then. What it answers is what `work` acts on. */
  prepare: () => Promise<P>;
  /** The operation itself; its `status` goes to the log, the rest is its outcome. */
  work: (prepared: P, control: OperationControl) => Promise<T & { status: string }>;
  /** The events of its outcome, written with it. */
  events: (outcome: T, status: string) => OperationEvent[];
  /** The events of a run that failed with an exception. */
  failureEvents: (message: string) => OperationEvent[];
}

export function createOperationRunner(deps: {
  db: Executor;
  clock: Clock;
  outbox: Outbox;
  audit: Pick<AuditLog, 'record'>;
  lockWaitMs?: number;
}) {
  const { db, clock, outbox, audit } = deps;
  const lockWaitMs = deps.lockWaitMs ?? 60_000;
  const leaseEnd = () => new Date(clock.now().getTime() + LEASE_MS).toISOString();

  const tryLock = (projectId: string, operationId: string) =>
    ops.tryLockProject(db, projectId, operationId, clock.now().toISOString(), leaseEnd());

  /** Waits for the project's lock (409 CONFLICT after lockWaitMs). */
  async function acquire(projectId: string, operationId: string): Promise<void> {
    const deadline = Date.now() + lockWaitMs;
    while (!(await tryLock(projectId, operationId))) {
      if (Date.now() > deadline) {
        throw new AppError(
          'CONFLICT',
          'Another sync or push of this project is still running; try again shortly (or send Prefer: respond-async to queue it)',
        );
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
    }
  }

  /** The operation under its lock, which the caller has taken; the lock is released at the end. */
  async function execute<P, T extends object>(
    ctx: RequestContext,
    project: Project,
    operationId: string,
    run: OperationRun<P, T>,
    record: (prepared: P) => Promise<void>,
  ): Promise<T> {
    const renewal = setInterval(() => {
      ops
        .renewLease(db, project.id, operationId, leaseEnd())
        .catch((error: unknown) =>
          ctx.log.warn({ err: error, operationId }, 'renewing the operation lease failed'),
        );
    }, RENEW_MS);
    renewal.unref();
    try {
      const prepared = await run.prepare();
      await record(prepared);
      ctx.log.info(
        { operationId, kind: run.kind, projectId: project.id, stores: run.stores },
        `${run.kind} started`,
      );
      const progress = createProgress(deps, ctx, project, operationId, run.kind);
      let result: T & { status: string };
      try {
        result = await run.work(prepared, progress.control);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await progress.flush();
        await finish(
          ctx.organizationId,
          operationId,
          'failed',
          { error: message },
          run.failureEvents(message),
          undefined,
          { ctx, projectId: project.id, kind: run.kind },
        );
        throw error;
      }
      await progress.flush();
      const { status: reported, ...outcome } = result;
      const status = progress.cancelled() ? 'cancelled' : reported;
      await finish(
        ctx.organizationId,
        operationId,
        status,
        outcome,
        run.events(outcome as T, status),
        undefined,
        {
          ctx,
          projectId: project.id,
          kind: run.kind,
        },
      );
      ctx.log.info({ operationId, kind: run.kind, status }, `${run.kind} finished`);
      return outcome as T;
    } finally {
      clearInterval(renewal);
      await ops.unlockProject(db, project.id, operationId);
    }
  }

  /**
   * Records an operation's end and its events in one transaction; with `onlyIf`, only when the
   * operation is still in that status (answers whether it was recorded). With `audited`, the
   * requester's audit entry of the sync or push, with its outcome, goes in the same transaction.
   */
  async function finish(
    organizationId: string,
    operationId: string,
    status: string,
    outcome: object,
    events: OperationEvent[],
    onlyIf?: { status: string; leaseExpiresAt?: string | null },
    audited?: { ctx: RequestContext; projectId: string; kind: OperationShape['kind'] },
  ): Promise<boolean> {
    return db.transaction().execute(async (trx) => {
      const finished = await ops.finish(
        trx,
        operationId,
        { status, outcome: JSON.stringify(outcome), finished_at: clock.now().toISOString() },
        onlyIf,
      );
      if (!finished) return false;
      for (const event of events) {
        await outbox.emit(trx, organizationId, event.type, { operationId, ...event.data });
      }
      if (audited !== undefined) {
        await audit.record(
          trx,
          audited.ctx,
          audited.kind === 'sync' ? 'projects.sync' : 'projects.push',
          { type: 'operation', id: operationId, projectId: audited.projectId },
          { status, ...outcome },
        );
      }
      return true;
    });
  }

  /**
   * Fails a queued operation that cannot start, unless it has left the queue meanwhile (a
   * cancel). A refusal says why; anything else says only that it failed (the log has it).
   */
  async function failQueued(
    organizationId: string,
    operationId: string,
    error: unknown,
    events: (message: string) => OperationEvent[] = () => [],
  ): Promise<void> {
    const outcome =
      error instanceof AppError
        ? { error: error.message, code: error.code }
        : {
            error: 'An internal error stopped it before it started; see the service log',
            code: 'INTERNAL_ERROR',
          };
    await finish(organizationId, operationId, 'failed', outcome, events(outcome.error), {
      status: 'queued',
    });
  }

  const operationRow = (ctx: RequestContext, project: Project, run: OperationShape) => ({
    organization_id: ctx.organizationId,
    project_id: project.id,
    kind: run.kind,
    actor_member_id: actorOf(ctx).memberId,
    actor_operator: actorOf(ctx).operator,
    actor_role: ctx.principal.role,
    actor_access: ctx.principal.access === undefined ? null : storedScope(ctx.principal.access),
    stores: JSON.stringify(run.stores),
    locales: run.locales === undefined ? null : JSON.stringify(run.locales),
  });

  return {
    /** Runs an operation now, waiting for the project's lock (409 after lockWaitMs). */
    async run<P, T extends object>(
      ctx: RequestContext,
      project: Project,
      run: OperationRun<P, T>,
    ): Promise<T> {
      const operationId = newId('op');
      await acquire(project.id, operationId);
      return execute(ctx, project, operationId, run, async () => {
        const now = clock.now().toISOString();
        await ops.insert(db, {
          id: operationId,
          ...operationRow(ctx, project, run),
          status: 'running',
          outcome: null,
          started_at: now,
          finished_at: null,
          request: null,
          progress: null,
          cancel_requested_at: null,
          lease_expires_at: leaseEnd(),
          writes_started: 0,
          queued_at: null,
          prepared: null,
        });
      });
    },

    /**
     * Runs a queued operation if its project is free: 'busy' when another operation holds the
     * project (the operation stays queued), 'gone' when it is no longer queued. Refused before it
     * started (the approval no longer matches; an error), it is failed — never left queued.
     */
    async runQueued<P, T extends object>(
      ctx: RequestContext,
      project: Project,
      operationId: string,
      run: OperationRun<P, T>,
    ): Promise<'busy' | 'gone' | 'done'> {
      if (!(await tryLock(project.id, operationId))) return 'busy';
      let started = false;
      try {
        await execute(ctx, project, operationId, run, async (prepared) => {
          // What it acts on is kept, so that a run resumed after a restart acts on the same.
          started = await ops.markRunning(
            db,
            operationId,
            clock.now().toISOString(),
            leaseEnd(),
            prepared === undefined ? null : JSON.stringify(prepared),
          );
          if (!started) throw new QueuedOperationGone();
        });
      } catch (error) {
        if (error instanceof QueuedOperationGone) return 'gone';
        // The work failed: execute recorded it.
        if (started) return 'done';
        await failQueued(ctx.organizationId, operationId, error, run.failureEvents);
        if (!(error instanceof AppError)) throw error;
      }
      return 'done';
    },

    /** Records a queued background operation and its job, in the caller's transaction. */
    queuedRow(ctx: RequestContext, project: Project, run: OperationShape, request: object) {
      const now = clock.now().toISOString();
      return {
        id: newId('op'),
        ...operationRow(ctx, project, run),
        status: 'queued',
        outcome: null,
        started_at: now,
        finished_at: null,
        request: JSON.stringify(request),
        progress: null,
        cancel_requested_at: null,
        lease_expires_at: null,
        writes_started: 0,
        queued_at: now,
        prepared: null,
      };
    },
    finish,
    failQueued,
  };
}

/** The queued operation was cancelled or taken by another instance before it started. */
class QueuedOperationGone extends Error {}

export type OperationRunner = ReturnType<typeof createOperationRunner>;
