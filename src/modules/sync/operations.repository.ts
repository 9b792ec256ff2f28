import type { Executor } from '../../db/database.js';
import type { OperationsTable } from '../../db/tables.js';

/**
 * Takes the project's operation lock: one conditional UPDATE, so of two instances trying at the
 * same moment exactly one succeeds. An expired lock (its holder died) can be taken over.
 */
export async function tryLockProject(
  db: Executor,
  projectId: string,
  operationId: string,
  now: string,
  expiresAt: string,
) {
  const result = await db
    .updateTable('projects')
    .set({ operation_id: operationId, operation_expires_at: expiresAt })
    .where('id', '=', projectId)
    .where((eb) => eb.or([eb('operation_id', 'is', null), eb('operation_expires_at', '<', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function unlockProject(db: Executor, projectId: string, operationId: string): Promise<void> {
  await db
    .updateTable('projects')
    .set({ operation_id: null, operation_expires_at: null })
    .where('id', '=', projectId)
    .where('operation_id', '=', operationId)
    .execute();
}

export async function insertOperation(db: Executor, row: OperationsTable): Promise<void> {
  await db.insertInto('operations').values(row).execute();
}

/** Records an operation's end; with `onlyIf`, only while it is in that status (and lease). */
export async function finishOperation(
  db: Executor,
  id: string,
  changes: { status: string; outcome: string; finished_at: string },
  onlyIf?: { status: string; leaseExpiresAt?: string | null },
): Promise<boolean> {
  let update = db.updateTable('operations').set(changes).where('id', '=', id);
  if (onlyIf !== undefined) {
    update = update.where('status', '=', onlyIf.status);
    if (onlyIf.leaseExpiresAt !== undefined) {
      update = update.where(
        'lease_expires_at',
        onlyIf.leaseExpiresAt === null ? 'is' : '=',
        onlyIf.leaseExpiresAt,
      );
    }
  }
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listOperations(
  db: Executor,
  projectId: string,
  page: { limit: number; offset: number },
) {
  const [rows, count] = await Promise.all([
    db
      .selectFrom('operations')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('started_at', 'desc')
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom('operations')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('project_id', '=', projectId)
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.count) };
}

export async function setLastSynced(db: Executor, projectId: string, at: string): Promise<void> {
  await db.updateTable('projects').set({ last_synced_at: at }).where('id', '=', projectId).execute();
}

/** Extends the project's lock and the operation's lease (the running instance is alive). */
export async function renewLease(db: Executor, projectId: string, operationId: string, until: string) {
  await db
    .updateTable('projects')
    .set({ operation_expires_at: until })
    .where('id', '=', projectId)
    .where('operation_id', '=', operationId)
    .execute();
  await db.updateTable('operations').set({ lease_expires_at: until }).where('id', '=', operationId).execute();
}

/** A queued operation starts: false when it is no longer queued (cancelled, or another instance has it). */
export async function markRunning(
  db: Executor,
  id: string,
  now: string,
  leaseUntil: string,
  prepared: string | null,
) {
  const result = await db
    .updateTable('operations')
    .set({ status: 'running', started_at: now, lease_expires_at: leaseUntil, prepared })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function setProgress(db: Executor, id: string, progress: string) {
  await db.updateTable('operations').set({ progress }).where('id', '=', id).execute();
}

/** Records that a push wrote a locale to a store (once; a repeat changes nothing). */
export async function recordItemDone(
  db: Executor,
  item: { operation_id: string; store: string; locale: string; done_at: string },
) {
  await db
    .insertInto('operation_items')
    .values(item)
    .onConflict((oc) => oc.columns(['operation_id', 'store', 'locale']).doNothing())
    .execute();
}

/** The locales an operation has written to a store so far. */
export async function itemsDone(db: Executor, operationId: string, store: string): Promise<string[]> {
  const rows = await db
    .selectFrom('operation_items')
    .select('locale')
    .where('operation_id', '=', operationId)
    .where('store', '=', store)
    .execute();
  return rows.map((row) => row.locale);
}

export async function markWritesStarted(db: Executor, id: string) {
  await db.updateTable('operations').set({ writes_started: 1 }).where('id', '=', id).execute();
}

export async function cancelRequested(db: Executor, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('operations')
    .select('cancel_requested_at')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.cancel_requested_at != null;
}

/**
 * Asks a running operation to stop before its next store write; one still queued ends now
 * (markRunning only takes queued operations).
 */
export async function requestCancel(db: Executor, id: string, now: string, outcome: string): Promise<void> {
  await db.updateTable('operations').set({ cancel_requested_at: now }).where('id', '=', id).execute();
  await db
    .updateTable('operations')
    .set({ status: 'cancelled', finished_at: now, outcome })
    .where('id', '=', id)
    .where('status', '=', 'queued')
    .execute();
}

/**
 * Queues again an operation whose lease lapsed, with a conditional update on that lease: of
 * several instances recovering at once, one gets true.
 */
export async function requeueExpired(
  db: Executor,
  id: string,
  leaseExpiresAt: string | null,
): Promise<boolean> {
  const claimed = await db
    .updateTable('operations')
    .set({ status: 'queued', lease_expires_at: null })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('lease_expires_at', leaseExpiresAt === null ? 'is' : '=', leaseExpiresAt)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

export const findOperation = (db: Executor, projectId: string, id: string) =>
  db
    .selectFrom('operations')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();

export const findOperationById = (db: Executor, id: string) =>
  db.selectFrom('operations').selectAll().where('id', '=', id).executeTakeFirst();

/** Running operations whose lease lapsed: their instance died. */
export const expiredOperations = (db: Executor, now: string) =>
  db
    .selectFrom('operations')
    .selectAll()
    .where('status', '=', 'running')
    .where('lease_expires_at', '<', now)
    .limit(100)
    .execute();

/** The operations log and the projects' operation lock, for the services that the composition root gives it to. */
export const operationsRepository = {
  tryLockProject,
  unlockProject,
  insert: insertOperation,
  finish: finishOperation,
  list: listOperations,
  setLastSynced,
  renewLease,
  markRunning,
  setProgress,
  markWritesStarted,
  recordItemDone,
  itemsDone,
  cancelRequested,
  requestCancel,
  requeueExpired,
  find: findOperation,
  findById: findOperationById,
  expired: expiredOperations,
};

export type OperationsRepository = typeof operationsRepository;
