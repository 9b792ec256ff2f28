/**
 * The queue of the embedded SQLite default: jobs are rows of `jobs` in the service's own database,
 * so they survive a restart and commit with the change that enqueues them. One instance works
 * them in process: a job is claimed by setting `locked_until`, deleted when done, run again when
 * its holder died (the lock lapses) or it failed (with backoff, up to the job's retries).
 */
import type { Logger } from 'pino';
import type { Executor } from '../db/database.js';
import { newId } from '../shared/ids.js';
import type { Metrics } from '../metrics/index.js';
import { createWaker, JOBS, observed, type JobHandlers, type JobName, type JobQueue } from './job-queue.js';

/** How often an idle worker looks for jobs that became due (delayed jobs, lapsed locks). */
const POLL_MS = 200;
const RETRY_DELAY_MS = 2_000;

const isoIn = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

export function createSqliteJobQueue(db: Executor): JobQueue {
  let stopped = true;
  let wakeUp: (() => void) | null = null;
  const running = new Set<Promise<void>>();
  const runningOf: Record<string, number> = {};
  let loop: Promise<void> | null = null;
  // One loop serves every kind: any wake wakes it.
  const wakeSoon = createWaker(() => wakeUp?.());

  /**
   * Claims the next due job whose kind has a free slot, or answers undefined. Each kind is looked
   * up by itself (jobs_name_run_at_idx): one query for all would read every due job of a kind
   * whose workers are busy before reaching another kind's.
   */
  async function claim() {
    const now = isoIn();
    let job;
    for (const name of Object.keys(JOBS) as JobName[]) {
      if ((runningOf[name] ?? 0) >= JOBS[name].concurrency) continue;
      const candidate = await db
        .selectFrom('jobs')
        .selectAll()
        .where('name', '=', name)
        .where('run_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('run_at')
        .orderBy('id')
        .limit(1)
        .executeTakeFirst();
      if (candidate !== undefined && (job === undefined || candidate.run_at < job.run_at)) job = candidate;
    }
    if (job === undefined) return undefined;
    const name = job.name as JobName;
    // One loop claims: between this read and this write nothing else takes the job. The lock
    // lasts as long as the job may run.
    await db
      .updateTable('jobs')
      .set({ attempts: job.attempts + 1, locked_until: isoIn(JOBS[name].expireSeconds * 1000) })
      .where('id', '=', job.id)
      .execute();
    return { ...job, name, attempts: job.attempts + 1 };
  }

  async function runJob(
    job: { id: string; name: JobName; data: string; attempts: number; run_at: string },
    handlers: JobHandlers,
    log: Logger,
    metrics: Metrics | undefined,
  ) {
    try {
      await observed(metrics, job.name, Date.parse(job.run_at), () =>
        handlers[job.name](JSON.parse(job.data) as Record<string, string>),
      );
      await db.deleteFrom('jobs').where('id', '=', job.id).execute();
    } catch (error) {
      const retry = job.attempts <= JOBS[job.name].retries;
      log.error({ err: error, job: job.name, jobId: job.id, retry }, 'job failed');
      if (retry) {
        await db
          .updateTable('jobs')
          .set({ locked_until: null, run_at: isoIn(RETRY_DELAY_MS * 2 ** (job.attempts - 1)) })
          .where('id', '=', job.id)
          .execute();
      } else {
        await db.deleteFrom('jobs').where('id', '=', job.id).execute();
      }
    }
  }

  async function workLoop(handlers: JobHandlers, log: Logger, metrics: Metrics | undefined) {
    while (!stopped) {
      let job;
      try {
        job = await claim();
      } catch (error) {
        log.error({ err: error }, 'job queue: claiming a job failed');
      }
      if (job === undefined) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, POLL_MS);
          wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wakeUp = null;
        continue;
      }
      const name = job.name;
      runningOf[name] = (runningOf[name] ?? 0) + 1;
      const run = runJob(job, handlers, log, metrics).finally(() => {
        runningOf[name] = (runningOf[name] ?? 1) - 1;
        running.delete(run);
        wakeUp?.();
      });
      running.add(run);
    }
  }

  return {
    kind: 'sqlite',
    storage: null,
    prepare: async () => undefined,
    async enqueue(executor, name, data, options = {}) {
      await executor
        .insertInto('jobs')
        .values({
          id: newId('job'),
          name,
          data: JSON.stringify(data),
          run_at: isoIn(options.delayMs ?? 0),
          attempts: 0,
          locked_until: null,
          created_at: isoIn(),
        })
        .execute();
      wakeSoon(name);
    },
    wake: () => wakeUp?.(),
    async work(handlers, log, metrics) {
      if (!stopped) return;
      stopped = false;
      loop = workLoop(handlers, log, metrics);
    },
    async depth() {
      const now = isoIn();
      const rows = await db
        .selectFrom('jobs')
        .select(['name', (eb) => eb.fn.countAll<number>().as('count')])
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .groupBy('name')
        .execute();
      const depth = Object.fromEntries(Object.keys(JOBS).map((name) => [name, 0])) as Record<JobName, number>;
      for (const row of rows) if (row.name in depth) depth[row.name as JobName] = Number(row.count);
      return depth;
    },
    async close() {
      stopped = true;
      wakeUp?.();
      await loop;
      await Promise.allSettled([...running]);
    },
  };
}
