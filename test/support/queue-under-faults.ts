/**
 * A process whose pg-boss workers run jobs while every connection of the queue's pool is ended,
 * again and again, by PostgreSQL (pg_terminate_backend). It must outlive that: prints how many jobs
 * ran and how many backends were ended, then closes (test/platform/queue-faults.postgres.test.ts).
 */
import pg from 'pg';
import pino from 'pino';
import { JOB_NAMES, type JobHandlers } from '../../src/jobs/job-queue.js';
import { createPgBossJobQueue } from '../../src/jobs/pg-boss-job-queue.js';
import { adminUrl } from './databases.js';
import { openMigratedDb } from './migrated-db.js';

const JOBS = 3_000;
const FAULT_ROUNDS = 40;

const migrated = await openMigratedDb();
if (migrated.config.kind !== 'postgres') throw new Error('the queue under faults needs PostgreSQL');
const name = new URL(migrated.config.url).pathname.slice(1);
const queue = createPgBossJobQueue(migrated.config.url);
for (let i = 0; i < JOBS; i += 1)
  await queue.enqueue(migrated.db.kysely, JOB_NAMES[i % JOB_NAMES.length]!, {});
let ran = 0;
const handler = async () => {
  ran += 1;
  await new Promise((resolve) => setTimeout(resolve, 2));
};
const handlers: JobHandlers = {
  'operation.run': handler,
  'webhook.deliver': handler,
  'drift.check': handler,
};
await queue.work(handlers, pino({ level: 'silent' }));

const admin = new pg.Client({ connectionString: adminUrl() });
await admin.connect();
let ended = 0;
for (let round = 0; round < FAULT_ROUNDS; round += 1) {
  await new Promise((resolve) => setTimeout(resolve, 40 + (round % 5) * 10));
  const { rowCount } = await admin.query(
    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'appmeta-jobs'",
    [name],
  );
  ended += rowCount ?? 0;
}
await admin.end();
// Work goes on after the faults.
const before = ran;
for (let waited = 0; ran === before && waited < 10_000; waited += 10) {
  await new Promise((resolve) => setTimeout(resolve, 10));
}
const ranAfter = ran - before;
await queue.close();
await migrated.close();
process.stdout.write(JSON.stringify({ ran, ended, ranAfter }));
