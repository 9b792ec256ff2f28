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
import {
  createWaker,
  JOBS,
  JOB_NAMES,
  observed,
  type JobHandlers,
  type JobName,
  type JobQueue,
} from './job-queue.js';

/** How often an idle worker looks for jobs that became due (delayed jobs, lapsed locks). */
const POLL_MS = 200;
const RETRY_DELAY_MS = 2_000;

const isoIn = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();

export function createSqliteJobQueue(db: Executor): JobQueue {
  let stopped = true;
  let wakeUp: (() => void) | null = null;
  const running = new Set<Promise<void>>();
  const runningOf: Record<string, number> = {};
  /**
   * Jobs done and not yet deleted: the loop deletes them in its next turn, all in one statement,
   * rather than each in a write of its own. They stay locked until then, so nothing runs them
   * again unless the process dies first (then they run again, as after any crash).
   */
  const done: string[] = [];
  const deleteDone = async () => {
    if (done.length === 0) return;
    const ids = done.splice(0);
    try {
      await db.deleteFrom('jobs').where('id', 'in', ids).execute();
    } catch (error) {
      done.push(...ids);
      throw error;
    }
  };
  let loop: Promise<void> | null = null;
  /** A wake that came during a turn: the loop takes another turn instead of waiting for a poll. */
  let wokenInTurn = false;
  const nudge = () => {
    if (wakeUp === null) wokenInTurn = true;
    else wakeUp();
  };
  /**
   * Kinds that may have due jobs. A read that found fewer than it could take clears its kind,
   * unless a wake for it came meanwhile; a wake for it sets it again, and every kind is looked at
   * every POLL_MS (delayed jobs, lapsed locks, other processes). Under load a turn then reads only
   * the kinds that have work, rather than every kind with a free slot.
   */
  const mayBeDue = new Set<JobName>(JOB_NAMES);
  const wakesOf = Object.fromEntries(JOB_NAMES.map((name) => [name, 0])) as Record<JobName, number>;
  let lookedAtAll = 0;
  const markDue = (names: readonly JobName[]) => {
    for (const name of names) {
      mayBeDue.add(name);
      wakesOf[name] += 1;
    }
  };
  const wake = (name: JobName) => {
    markDue([name]);
    nudge();
  };
  const wakeSoon = createWaker(wake);

  /**
   * Claims the due jobs that fill the free slots of every kind, oldest first, by one read and one
   * write per kind (jobs_name_run_at_idx): under load the loop waits its turn on the connection
   * for every statement, so claiming one job per turn starved the workers.
   */
  async function claim() {
    const now = isoIn();
    if (Date.now() - lookedAtAll >= POLL_MS) {
      lookedAtAll = Date.now();
      markDue(JOB_NAMES);
    }
    const jobs = [];
    for (const name of JOB_NAMES) {
      const free = JOBS[name].concurrency - (runningOf[name] ?? 0);
      if (free <= 0 || !mayBeDue.has(name)) continue;
      const wakes = wakesOf[name];
      const due = await db
        .selectFrom('jobs')
        .selectAll()
        .where('name', '=', name)
        .where('run_at', '<=', now)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .orderBy('run_at')
        .orderBy('id')
        .limit(free)
        .execute();
      if (due.length < free && wakesOf[name] === wakes) mayBeDue.delete(name);
      for (const job of due) jobs.push({ ...job, name, attempts: job.attempts + 1 });
    }
    if (jobs.length === 0) return jobs;
    // The lock repeats the read's condition, so that a job another process sharing the file took
    // in between is left to it; a lock lasts as long as its job may run.
    const claimed = new Set<string>();
    for (const name of new Set(jobs.map((job) => job.name))) {
      const rows = await db
        .updateTable('jobs')
        .set((eb) => ({
          attempts: eb('attempts', '+', 1),
          locked_until: isoIn(JOBS[name].expireSeconds * 1000),
        }))
        .where(
          'id',
          'in',
          jobs.filter((job) => job.name === name).map((job) => job.id),
        )
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
        .returning('id')
        .execute();
      for (const row of rows) claimed.add(row.id);
    }
    return jobs.filter((job) => claimed.has(job.id));
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
      done.push(job.id);
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
        done.push(job.id);
      }
    }
  }

  async function workLoop(handlers: JobHandlers, log: Logger, metrics: Metrics | undefined) {
    while (!stopped) {
      let jobs: Awaited<ReturnType<typeof claim>> = [];
      wokenInTurn = false;
      try {
        await deleteDone();
        jobs = await claim();
      } catch (error) {
        log.error({ err: error }, 'job queue: deleting done jobs or claiming new ones failed');
      }
      if (jobs.length === 0) {
        if (wokenInTurn) continue;
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
      for (const job of jobs) {
        const name = job.name;
        runningOf[name] = (runningOf[name] ?? 0) + 1;
        const run = runJob(job, handlers, log, metrics).finally(() => {
          runningOf[name] = (runningOf[name] ?? 1) - 1;
          running.delete(run);
          nudge();
        });
        running.add(run);
      }
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
    wake,
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
      // What cannot be deleted now runs again once its lock lapses, which every handler allows.
      await deleteDone().catch(() => undefined);
    },
  };
}
