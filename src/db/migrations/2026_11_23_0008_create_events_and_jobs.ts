import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Background operations, the event outbox, webhooks and drift (design.md §11).
 *
 * - operations: queued background runs, their request, progress, cancel request and lease.
 * - event_sequences: the organization's event counter, bumped in the transaction that
 *   writes an event (a row of its own: the organization row, read by every request, stays untouched), so that event order per organization is commit order (SSE resumes by it).
 * - events: the outbox, written in the transaction of the change that causes each event.
 * - webhooks and webhook_deliveries: endpoints (secret sealed like store credentials) and the
 *   delivery log, one row per event and endpoint, attempts kept on the row.
 * - jobs: the in-process queue of the embedded SQLite default (PostgreSQL uses pg-boss's schema).
 * - store_drift: what a drift check found in a store that differs from the base.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('operations').addColumn('actor_role', 'text').execute();
  await db.schema.alterTable('operations').addColumn('request', 'text').execute();
  await db.schema.alterTable('operations').addColumn('progress', 'text').execute();
  await db.schema.alterTable('operations').addColumn('cancel_requested_at', 'text').execute();
  await db.schema.alterTable('operations').addColumn('lease_expires_at', 'text').execute();
  await db.schema.alterTable('operations').addColumn('writes_started', 'integer').execute();
  await db.schema.alterTable('operations').addColumn('queued_at', 'text').execute();
  await db.schema
    .createIndex('operations_running_lease_idx')
    .on('operations')
    .columns(['status', 'lease_expires_at'])
    .execute();

  await db.schema
    .createTable('event_sequences')
    .addColumn('organization_id', 'text', (c) =>
      c.primaryKey().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('seq', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('events_organization_seq_idx')
    .on('events')
    .columns(['organization_id', 'seq'])
    .unique()
    .execute();

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhooks_organization_idx')
    .on('webhooks')
    .columns(['organization_id', 'created_at'])
    .execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt_count', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'text', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_webhook_idx')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_run_at_idx').on('jobs').columns(['run_at']).execute();

  await db.schema.alterTable('projects').addColumn('drift_checked_at', 'text').execute();
  await db.schema
    .createTable('store_drift')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('base_value', 'text')
    .addColumn('store_value', 'text')
    .addColumn('detected_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('store_drift_pk', ['project_id', 'store', 'locale', 'field'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('store_drift').execute();
  await db.schema.alterTable('projects').dropColumn('drift_checked_at').execute();
  await db.schema.dropTable('jobs').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhooks').execute();
  await db.schema.dropTable('events').execute();
  await db.schema.dropTable('event_sequences').execute();
  await db.schema.dropIndex('operations_running_lease_idx').execute();
  for (const column of [
    'queued_at',
    'writes_started',
    'lease_expires_at',
    'cancel_requested_at',
    'progress',
    'request',
    'actor_role',
  ]) {
    await db.schema.alterTable('operations').dropColumn(column).execute();
  }
}
