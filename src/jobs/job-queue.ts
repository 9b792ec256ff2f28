/**
 * The job queue: one port, two adapters (pg-boss on PostgreSQL, a table worked in process on the
 * embedded SQLite default). A job is enqueued in the transaction of the change that causes it, so
 * it exists exactly when that change commits; workers run it at least once.
 */
import type { Logger } from 'pino';
import type { Executor } from '../db/database.js';
import type { Metrics } from '../metrics/index.js';

/**
 * Every kind of job, with how many run at once on one instance, how many a pg-boss worker fetches
 * at a time (the SQLite queue claims every free slot at once anyway), and how long one may run.
 */
export const JOBS = {
  /** A background sync or push; its own lease (design.md §11) recovers it, never a retry. */
  'operation.run': { concurrency: 4, batch: 1, expireSeconds: 6 * 3600, retries: 0 },
  /**
   * One attempt of a webhook delivery; the retry schedule is the delivery's own. 16 at once: an
   * attempt mostly waits for its endpoint, and with 8 the deliveries fell further behind 50
   * editors who never pause (BENCHMARKS.md, #50).
   */
  'webhook.deliver': { concurrency: 16, batch: 4, expireSeconds: 60, retries: 2 },
  /** A drift check of one project (read-only). */
  'drift.check': { concurrency: 2, batch: 1, expireSeconds: 600, retries: 0 },
} as const;

export type JobName = keyof typeof JOBS;
export const JOB_NAMES = Object.keys(JOBS) as JobName[];

export type JobData = Record<string, string>;
export type JobHandler = (data: JobData) => Promise<void>;
export type JobHandlers = Record<JobName, JobHandler>;

/** Runs a job's handler and reports how long it waited (since it became due) and ran. */
export async function observed(
  metrics: Metrics | undefined,
  name: JobName,
  dueAt: number,
  run: () => Promise<void>,
): Promise<void> {
  if (metrics === undefined || !metrics.enabled) return run();
  const started = Date.now();
  metrics.jobStarted(name, (started - dueAt) / 1000);
  let outcome: 'completed' | 'failed' = 'failed';
  try {
    await run();
    outcome = 'completed';
  } finally {
    metrics.jobFinished(name, outcome, (Date.now() - started) / 1000);
  }
}

export interface EnqueueOptions {
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number;
}

/** How long after an enqueue its workers are woken: time for the enqueuing transaction to commit. */
export const WAKE_AFTER_MS = 20;

/** Wakes per job kind, at most one pending per kind: a burst of enqueues wakes the workers once. */
export function createWaker(wake: (name: JobName) => void) {
  const pending = new Set<JobName>();
  return (name: JobName) => {
    if (pending.has(name)) return;
    pending.add(name);
    setTimeout(() => {
      pending.delete(name);
      wake(name);
    }, WAKE_AFTER_MS).unref();
  };
}

export interface JobQueue {
  readonly kind: 'sqlite' | 'pg-boss';
  /**
   * Adds a job through `db`, a transaction or the database: it exists only if that commits. This
   * instance's workers of that kind are woken shortly after (the commit is then most likely done);
   * other instances find it at their next poll.
   */
  enqueue(db: Executor, name: JobName, data: JobData, options?: EnqueueOptions): Promise<void>;
  /** Tells this instance's workers of a kind that a job was committed, so they need not wait for a poll. */
  wake(name: JobName): void;
  /** Starts this instance's workers; each job's wait and run time go to `metrics`. */
  work(handlers: JobHandlers, log: Logger, metrics?: Metrics): Promise<void>;
  /**
   * Where the queue keeps jobs outside the service's own tables (pg-boss's schema), with the rows
   * a backup takes (those not yet done); null when they are in the service's tables.
   */
  readonly storage: { table: string; where: string } | null;
  /** Makes the queue's storage if missing, without starting workers (a restore fills it). */
  prepare(): Promise<void>;
  /** Jobs waiting to run (due or delayed, not running), by kind: for the metrics. */
  depth(): Promise<Record<JobName, number>>;
  /** Stops the workers (waiting for running jobs) and releases the queue's connections. */
  close(): Promise<void>;
}
