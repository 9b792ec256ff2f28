/**
 * The queue on PostgreSQL: pg-boss (docs/decisions.md, "Job queue"). Jobs live in its schema in
 * the service's database, so a job is inserted in the transaction of its cause (pg-boss runs its
 * insert through that transaction), several instances share the work (SKIP LOCKED), and a job
 * whose instance died is picked up again once it expires.
 */
import { CompiledQuery } from 'kysely';
import type pg from 'pg';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { isConnectionLoss } from '../db/postgres.js';
import { lazyModule } from '../shared/lazy-module.js';
import type { Metrics } from '../metrics/index.js';
import {
  createWaker,
  JOBS,
  JOB_NAMES,
  observed,
  type JobHandlers,
  type JobName,
  type JobQueue,
} from './job-queue.js';

/** How often an idle worker of another instance looks for new jobs; this instance is woken at once. */
const POLL_SECONDS = 0.5;

/** How long closing waits, after the last job, for workers' queries still under way. */
const SETTLE_MS = 10_000;

/** Tries of a job's completion or failure that meets a lost connection. */
const SETTLE_TRIES = 3;

const pgBoss = lazyModule<typeof PgBoss>('pg-boss');
const postgres = lazyModule<typeof pg>('pg');
const pgBossPlans = lazyModule<{
  completeJobs(schema: string): string;
  failJobsById(schema: string): string;
}>('pg-boss/src/plans.js');

/**
 * The statements by which pg-boss completes or fails a job after its handler: it sends them
 * without awaiting them, so their rejection would reach no one and end the process. Both are
 * idempotent (they change only jobs still active).
 */
const unawaitedStatements = (() => {
  let texts: Set<string> | null = null;
  return () =>
    (texts ??= new Set([pgBossPlans().completeJobs('pgboss'), pgBossPlans().failJobsById('pgboss')]));
})();

export function createPgBossJobQueue(databaseUrl: string): JobQueue {
  let log: Logger | null = null;
  // Our own pool rather than pg-boss's: its 10 workers share 4 connections, so fetches wait in the
  // pool's queue, and pg-pool's end() drops waiting requests without settling them. Workers caught
  // in such a fetch never stop and pg-boss's stop loop kept the process alive for ever. So closing
  // waits until nothing is under way (`busy`), then ends the pool, and fails what still waits.
  const pool = new (postgres().Pool)({
    connectionString: databaseUrl,
    max: 4,
    application_name: 'appmeta-jobs',
  });
  pool.on('error', (error) => log?.error({ err: error }, 'job queue connection error'));
  let busy = 0;
  const tracked = async <T>(work: () => Promise<T>): Promise<T> => {
    busy += 1;
    try {
      return await work();
    } finally {
      busy -= 1;
    }
  };
  const closed = new Error('the job queue is closed');
  let abandon: (error: Error) => void = () => undefined;
  const abandoned = new Promise<never>((_, reject) => (abandon = reject));
  abandoned.catch(() => undefined);
  const query = (text: string, values: unknown[]) =>
    tracked(() => Promise.race([pool.query(text, values), abandoned]));
  /**
   * A job's completion or failure is tried again on a fresh connection when PostgreSQL ended its
   * own (a restart, a failover, pg_terminate_backend); if the database stays away it is given up
   * with a warning, never thrown: the job stays active until it expires and then runs again,
   * which every job handler allows (a resumed operation skips what it finished).
   */
  const settle = async (text: string, values: unknown[]) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await query(text, values);
      } catch (error) {
        if (error === closed) return { rows: [{ count: 0 }], rowCount: 0 };
        if (!isConnectionLoss(error)) throw error;
        if (attempt < SETTLE_TRIES) {
          await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
          continue;
        }
        log?.warn({ err: error }, 'job queue: a job could not be marked done; it runs again once it expires');
        return { rows: [{ count: 0 }], rowCount: 0 };
      }
    }
  };
  const boss = new (pgBoss())({
    db: {
      executeSql: (text, values) =>
        unawaitedStatements().has(text) ? settle(text, values) : query(text, values),
    },
    // Completed jobs are kept a day for inspection; our own tables hold the history.
    deleteAfterDays: 1,
  });
  let started: Promise<void> | null = null;
  let closing: Promise<void> | null = null;
  const workerIds = new Map<JobName, string[]>(JOB_NAMES.map((name) => [name, []]));
  const wake = (name: JobName) => {
    for (const id of workerIds.get(name) ?? []) boss.notifyWorker(id);
  };
  const wakeSoon = createWaker(wake);
  boss.on('error', (error) => log?.error({ err: error }, 'job queue error'));

  /** Installs pg-boss's schema and our queues once, on first use. */
  const ready = () =>
    (started ??= (async () => {
      await boss.start();
      for (const name of JOB_NAMES) {
        const job = JOBS[name];
        await boss.createQueue(name, {
          name,
          expireInSeconds: job.expireSeconds,
          retryLimit: job.retries,
          retryDelay: 2,
          retryBackoff: true,
        });
      }
    })());

  /**
   * Runs one job of a fetched batch. A job that throws is failed by itself (pg-boss retries it
   * as its queue says); pg-boss then completes the batch, which changes only the jobs still active.
   */
  async function runOne(
    name: JobName,
    job: PgBoss.JobWithMetadata<Record<string, string>>,
    handlers: JobHandlers,
    logger: Logger,
    metrics: Metrics | undefined,
  ) {
    try {
      await observed(metrics, name, job.startAfter.getTime(), () => handlers[name](job.data));
    } catch (error) {
      logger.error({ err: error, job: name, jobId: job.id }, 'job failed');
      await boss.fail(name, job.id, { message: error instanceof Error ? error.message : String(error) });
    }
  }

  return {
    kind: 'pg-boss',
    storage: { table: 'pgboss.job', where: "state < 'completed'" },
    prepare: () => ready(),
    async enqueue(executor, name, data, options = {}) {
      await ready();
      const db = {
        executeSql: async (text: string, values: unknown[]) =>
          executor.executeQuery(CompiledQuery.raw(text, values)),
      };
      await boss.send(name, data, {
        db,
        ...(options.delayMs !== undefined &&
          options.delayMs > 0 && { startAfter: new Date(Date.now() + options.delayMs) }),
      });
      if (options.delayMs === undefined || options.delayMs <= 0) wakeSoon(name);
    },
    wake,
    async depth() {
      await ready();
      const sizes = await Promise.all(JOB_NAMES.map((name) => boss.getQueueSize(name)));
      return Object.fromEntries(JOB_NAMES.map((name, i) => [name, sizes[i] ?? 0])) as Record<JobName, number>;
    },
    async work(handlers: JobHandlers, logger: Logger, metrics?: Metrics) {
      log = logger;
      await ready();
      for (const name of JOB_NAMES) {
        const { concurrency, batch } = JOBS[name];
        // Each worker fetches and completes `batch` jobs at a time: two statements of the queue
        // for the lot, where a job each cost them as much as the job itself (webhook deliveries).
        for (let i = 0; i < Math.ceil(concurrency / batch); i += 1) {
          let workerId = '';
          workerId = await boss.work<Record<string, string>>(
            name,
            { batchSize: batch, pollingIntervalSeconds: POLL_SECONDS, includeMetadata: true },
            async (jobs) => {
              try {
                await tracked(() =>
                  Promise.all(jobs.map((job) => runOne(name, job, handlers, logger, metrics))),
                );
              } finally {
                // pg-boss waits a polling interval after every fetch, found or not: a worker that
                // just ran its jobs looks for the next at once instead (else 2 fetches/s per worker).
                boss.notifyWorker(workerId);
              }
            },
          );
          workerIds.get(name)!.push(workerId);
        }
      }
    },
    close: () =>
      (closing ??= (async () => {
        if (started !== null) {
          await started.catch(() => undefined);
          // Returns once no job runs; workers may still be fetching or completing.
          await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
          for (const deadline = Date.now() + SETTLE_MS; busy > 0 && Date.now() < deadline;) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
        abandon(closed);
        await pool.end();
      })()),
  };
}
