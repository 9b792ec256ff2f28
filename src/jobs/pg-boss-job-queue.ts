/**
 * The queue on PostgreSQL: pg-boss (docs/decisions.md, "Job queue"). Jobs live in its schema in
 * the service's database, so a job is inserted in the transaction of its cause (pg-boss runs its
 * insert through that transaction), several instances share the work (SKIP LOCKED), and a job
 * whose instance died is picked up again once it expires.
 */
import { CompiledQuery } from 'kysely';
import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { lazyModule } from '../shared/lazy-module.js';
import { createWaker, JOBS, JOB_NAMES, type JobHandlers, type JobName, type JobQueue } from './job-queue.js';

/** How often an idle worker of another instance looks for new jobs; this instance is woken at once. */
const POLL_SECONDS = 0.5;

const pgBoss = lazyModule<typeof PgBoss>('pg-boss');

export function createPgBossJobQueue(databaseUrl: string): JobQueue {
  const boss = new (pgBoss())({
    connectionString: databaseUrl,
    max: 4,
    application_name: 'appmeta-jobs',
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
  let log: Logger | null = null;
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

  return {
    kind: 'pg-boss',
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
    async work(handlers: JobHandlers, logger: Logger) {
      log = logger;
      await ready();
      for (const name of JOB_NAMES) {
        for (let i = 0; i < JOBS[name].concurrency; i += 1) {
          let workerId = '';
          workerId = await boss.work<Record<string, string>>(
            name,
            { batchSize: 1, pollingIntervalSeconds: POLL_SECONDS },
            async ([job]) => {
              try {
                await handlers[name](job!.data);
              } catch (error) {
                logger.error({ err: error, job: name, jobId: job!.id }, 'job failed');
                throw error;
              } finally {
                // pg-boss waits a polling interval after every fetch, found or not: a worker that
                // just ran a job looks for the next at once instead (else 2 jobs/s per worker).
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
        if (started === null) return;
        await started.catch(() => undefined);
        await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      })()),
  };
}
