/** The job queue of the configured database. */
import type { DatabaseConfig } from '../config.js';
import type { Db } from '../db/database.js';
import type { JobQueue } from './job-queue.js';
import { createPgBossJobQueue } from './pg-boss-job-queue.js';
import { createSqliteJobQueue } from './sqlite-job-queue.js';

export * from './job-queue.js';

export function createJobQueue(db: Db, database: DatabaseConfig): JobQueue {
  return database.kind === 'postgres' ? createPgBossJobQueue(database.url) : createSqliteJobQueue(db.kysely);
}
