/**
 * The embedded queue claims every free slot of a kind at once, never more than the kind's
 * concurrency, and two instances sharing one database file never run a job twice.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { JOBS, type JobHandlers, type JobQueue } from '../../src/jobs/job-queue.js';
import { createSqliteJobQueue } from '../../src/jobs/sqlite-job-queue.js';
import { TEST_SECRET_KEY } from '../support/harness.js';
import { until } from '../support/until.js';

const waitFor = (what: string, done: () => boolean | Promise<boolean>) =>
  until(what, async () => ((await done()) ? true : undefined));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function openInstance(file: string): Promise<{ db: Db; queue: JobQueue }> {
  const config = loadConfig({ DATABASE_URL: `file:${file}`, APPMETA_SECRET_KEY: TEST_SECRET_KEY }).database;
  const db = createDb(config);
  await migrateToLatest(db);
  const queue = createSqliteJobQueue(db.kysely);
  cleanups.push(() => db.destroy());
  cleanups.push(() => queue.close());
  return { db, queue };
}

it('fills every free slot of a kind, no more, and runs each job once across two instances on one file', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-queue-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'appmeta.db');
  const first = await openInstance(file);
  const second = await openInstance(file);
  const JOB_COUNT = 60;
  for (let i = 0; i < JOB_COUNT; i += 1) {
    await first.queue.enqueue(first.db.kysely, 'webhook.deliver', { deliveryId: `whd_${i}` });
  }

  const runs = new Map<string, number>();
  const limit = JOBS['webhook.deliver'].concurrency;
  const handlersOf = () => {
    let running = 0;
    const peak = { value: 0 };
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handlers: JobHandlers = {
      'webhook.deliver': async (data) => {
        running += 1;
        peak.value = Math.max(peak.value, running);
        runs.set(data.deliveryId!, (runs.get(data.deliveryId!) ?? 0) + 1);
        // The first batch holds its slots until the test has seen them all taken.
        await gate;
        await new Promise((resolve) => setTimeout(resolve, 2));
        running -= 1;
      },
      'operation.run': async () => undefined,
      'drift.check': async () => undefined,
    };
    return { handlers, peak, running: () => running, release: () => release() };
  };
  const a = handlersOf();
  const b = handlersOf();
  const log = pino({ level: 'silent' });
  await first.queue.work(a.handlers, log);
  await second.queue.work(b.handlers, log);

  // Both instances take their slots, all of them, and wait there: nobody takes more.
  await waitFor('both instances to fill their slots', () => a.running() === limit && b.running() === limit);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(a.running()).toBe(limit);
  expect(b.running()).toBe(limit);
  a.release();
  b.release();

  await waitFor('every job to run', () => [...runs.values()].reduce((sum, n) => sum + n, 0) >= JOB_COUNT);
  expect(runs.size).toBe(JOB_COUNT);
  expect([...runs.values()].every((n) => n === 1)).toBe(true);
  expect(a.peak.value).toBe(limit);
  expect(b.peak.value).toBe(limit);
  // Each job is deleted once done, by whichever instance ran it.
  await waitFor(
    'the jobs to be deleted',
    async () => (await first.db.kysely.selectFrom('jobs').select('id').execute()).length === 0,
  );
});
