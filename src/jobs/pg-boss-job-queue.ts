/**
 * The queue on PostgreSQL: pg-boss (docs/decisions.md, "Job queue"). Jobs live in its schema in
 * the service's database, so a job is inserted in the transaction of its cause (pg-boss runs its
 * insert through that transaction), several instances share the work (SKIP LOCKED), and a job
 * whose instance died is picked up again once it expires.
 */
import { CompiledQuery } from 'kysely';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { JOBS, JOB_NAMES, type JobHandlers, type JobQueue } from './job-queue.js';

/** How often an idle worker of another instance looks for new jobs; this instance is woken at once. */
const POLL_SECONDS = 0.5;

export function createPgBossJobQueue(databaseUrl: string): JobQueue {
  const boss = new PgBoss({
    connectionString: databaseUrl,
    max: 4,
    application_name: 'appmeta-jobs',
    // Completed jobs are kept a day for inspection; our own tables hold the history.
    deleteAfterDays: 1,
  });
  let started: Promise<void> | null = null;
  let closing: Promise<void> | null = null;
  const workerIds: string[] = [];
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
    },
    wake() {
      for (const id of workerIds) boss.notifyWorker(id);
    },
    async work(handlers: JobHandlers, logger: Logger) {
      log = logger;
      await ready();
      for (const name of JOB_NAMES) {
        for (let i = 0; i < JOBS[name].concurrency; i += 1) {
          workerIds.push(
            await boss.work<Record<string, string>>(
              name,
              { batchSize: 1, pollingIntervalSeconds: POLL_SECONDS },
              async ([job]) => {
                try {
                  await handlers[name](job!.data);
                } catch (error) {
                  logger.error({ err: error, job: name, jobId: job!.id }, 'job failed');
                  throw error;
                }
              },
            ),
          );
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
