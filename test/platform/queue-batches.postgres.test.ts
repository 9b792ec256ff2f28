/**
 * pg-boss workers fetch webhook deliveries a batch at a time (JOBS['webhook.deliver'].batch): a
 * job of a batch that throws is retried by itself, its neighbours are completed once, and no more
 * run at once than the kind's concurrency.
 */
import pino from 'pino';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { JOBS, type JobHandlers } from '../../src/jobs/job-queue.js';
import { createPgBossJobQueue } from '../../src/jobs/pg-boss-job-queue.js';
import { openMigratedDb } from '../support/migrated-db.js';
import { until } from '../support/until.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('retries the one job of a batch that threw, completes the others once, and keeps to the concurrency', async () => {
  const migrated = await openMigratedDb();
  cleanups.push(() => migrated.close());
  if (migrated.config.kind !== 'postgres') throw new Error('this test needs PostgreSQL');
  const queue = createPgBossJobQueue(migrated.config.url);
  cleanups.push(() => queue.close());
  const { concurrency, batch } = JOBS['webhook.deliver'];
  expect(batch).toBeGreaterThan(1);
  const JOB_COUNT = concurrency * 3;
  for (let i = 0; i < JOB_COUNT; i += 1) {
    await queue.enqueue(migrated.db.kysely, 'webhook.deliver', { deliveryId: `whd_${i}` });
  }

  const runs = new Map<string, number>();
  let running = 0;
  let peak = 0;
  const handlers: JobHandlers = {
    'webhook.deliver': async ({ deliveryId }) => {
      running += 1;
      peak = Math.max(peak, running);
      const run = (runs.get(deliveryId!) ?? 0) + 1;
      runs.set(deliveryId!, run);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running -= 1;
      if (deliveryId === 'whd_5' && run === 1) throw new Error('the first attempt of whd_5 fails');
    },
    'operation.run': async () => undefined,
    'drift.check': async () => undefined,
  };
  await queue.work(handlers, pino({ level: 'silent' }));

  const states = async () =>
    (
      await sql<{ state: string; n: number }>`
        select state, count(*)::int as n from pgboss.job where name = 'webhook.deliver' group by state
      `.execute(migrated.db.kysely)
    ).rows;
  // The failed one comes back after pg-boss's retry delay (2 s).
  await until(
    'every job to complete',
    async () => {
      const now = await states();
      return now.length === 1 && now[0]!.state === 'completed' && now[0]!.n === JOB_COUNT ? now : undefined;
    },
    20_000,
  );
  expect(runs.size).toBe(JOB_COUNT);
  expect(runs.get('whd_5')).toBe(2);
  expect([...runs].filter(([id]) => id !== 'whd_5').every(([, n]) => n === 1)).toBe(true);
  expect(peak).toBeLessThanOrEqual(concurrency);
  expect(peak).toBeGreaterThan(batch);
});
