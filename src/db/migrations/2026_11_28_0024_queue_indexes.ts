import { sql, type Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Two lookups that grew with history (BENCHMARKS.md, #50): the deliveries being sent now, which
 * every webhook attempt counts (the index holds only those, so the count no longer reads every
 * delivery an endpoint ever had), and the next job of a kind in the SQLite queue (which read
 * every due job of the other kinds while one kind's workers were all busy).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_sending_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'updated_at'])
    .where(sql<boolean>`status = 'sending'`)
    .execute();
  await db.schema.createIndex('jobs_name_run_at_idx').on('jobs').columns(['name', 'run_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('jobs_name_run_at_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_sending_idx').execute();
}
