/**
 * A process that closes its pg-boss queue while the workers are busy, then lets its event loop
 * run dry: it exits on its own only if closing left nothing behind (test/platform/queue-close.postgres.test.ts).
 * Prints how many jobs ran before closing began, of how many.
 */
import pino from 'pino';
import { JOB_NAMES, type JobHandlers } from '../../src/jobs/job-queue.js';
import { createPgBossJobQueue } from '../../src/jobs/pg-boss-job-queue.js';
import { openMigratedDb } from './migrated-db.js';

const JOBS = 600;
const CLOSE_AFTER = 150;

const migrated = await openMigratedDb();
if (migrated.config.kind !== 'postgres') throw new Error('the queue closer needs PostgreSQL');
const queue = createPgBossJobQueue(migrated.config.url);
// Every kind gets jobs, so all workers (more than the queue's connections) fetch at once.
for (let i = 0; i < JOBS; i += 1)
  await queue.enqueue(migrated.db.kysely, JOB_NAMES[i % JOB_NAMES.length]!, {});
let ran = 0;
const handler = async () => {
  ran += 1;
};
const handlers: JobHandlers = {
  'operation.run': handler,
  'webhook.deliver': handler,
  'drift.check': handler,
};
await queue.work(handlers, pino({ level: 'silent' }));
while (ran < CLOSE_AFTER) await new Promise((resolve) => setTimeout(resolve, 2));
const ranBeforeClose = ran;
await queue.close();
await migrated.close();
process.stdout.write(JSON.stringify({ ranBeforeClose, jobs: JOBS }));
