/**
 * The schedules table. Every move of a schedule between states is a compare-and-set on its
 * status (and, for a claim, its lease): of several instances acting at once, one wins.
 */
import type { Executor } from '../../db/database.js';
import type { SchedulesTable } from '../../db/tables.js';

/** How many due schedules one tick takes on. */
const DUE_BATCH = 20;

export const schedulesRepository = {
  async insert(db: Executor, row: SchedulesTable): Promise<void> {
    await db.insertInto('schedules').values(row).execute();
  },

  find(db: Executor, projectId: string, id: string): Promise<SchedulesTable | undefined> {
    return db
      .selectFrom('schedules')
      .selectAll()
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .executeTakeFirst();
  },

  findById(db: Executor, id: string): Promise<SchedulesTable | undefined> {
    return db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
  },

  /** A project's schedules, upcoming first by time, then the past ones newest first. */
  async list(
    db: Executor,
    projectId: string,
    filter: { from?: string; to?: string; statuses?: string[] },
    page: { limit: number; offset: number },
  ): Promise<{ rows: SchedulesTable[]; total: number }> {
    let query = db.selectFrom('schedules').where('project_id', '=', projectId);
    if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('at', '<', filter.to);
    if (filter.statuses !== undefined) query = query.where('status', 'in', filter.statuses);
    const [rows, count] = await Promise.all([
      query
        .selectAll()
        .orderBy('at', 'asc')
        .orderBy('id', 'asc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { rows, total: Number(count.n) };
  },

  /**
   * Schedules with something to do by `now`: a push or release whose time came, a campaign whose
   * revert time came, and claims whose instance died (lease lapsed) before they started an operation.
   */
  due(db: Executor, now: string): Promise<SchedulesTable[]> {
    return db
      .selectFrom('schedules')
      .selectAll()
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'scheduled'), eb('at', '<=', now)]),
          eb.and([eb('status', '=', 'live'), eb('revert_at', '<=', now)]),
          eb.and([eb('status', 'in', ['running', 'reverting']), eb('lease_expires_at', '<', now)]),
        ]),
      )
      .orderBy('at')
      .limit(DUE_BATCH)
      .execute();
  },

  /**
   * Takes a due schedule for this instance: moves it from `from` (as read, with its lease as read)
   * to `to` with a lease. False when another instance took it first.
   */
  async claim(
    db: Executor,
    row: Pick<SchedulesTable, 'id' | 'status' | 'lease_expires_at'>,
    to: 'running' | 'reverting',
    leaseUntil: string,
    now: string,
  ): Promise<boolean> {
    let query = db
      .updateTable('schedules')
      .set({ status: to, lease_expires_at: leaseUntil, updated_at: now })
      .where('id', '=', row.id)
      .where('status', '=', row.status);
    query =
      row.lease_expires_at === null
        ? query.where('lease_expires_at', 'is', null)
        : query.where('lease_expires_at', '=', row.lease_expires_at);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Links the operation a claim started, while the claim is still this instance's. */
  async linkOperation(
    db: Executor,
    id: string,
    claim: { status: 'running' | 'reverting'; leaseUntil: string },
    operationId: string,
    extra: Partial<Pick<SchedulesTable, 'revert_plan'>>,
    now: string,
  ): Promise<boolean> {
    const column = claim.status === 'running' ? 'operation_id' : 'revert_operation_id';
    const result = await db
      .updateTable('schedules')
      .set({ [column]: operationId, lease_expires_at: null, updated_at: now, ...extra })
      .where('id', '=', id)
      .where('status', '=', claim.status)
      .where('lease_expires_at', '=', claim.leaseUntil)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Moves a schedule from one of `from` to its next state; false when it was not in `from`. */
  async transition(
    db: Executor,
    id: string,
    from: string[],
    set: Partial<Pick<SchedulesTable, 'status' | 'reason' | 'outcome' | 'lease_expires_at'>>,
    now: string,
    claim?: string,
  ): Promise<boolean> {
    let query = db
      .updateTable('schedules')
      .set({ ...set, updated_at: now })
      .where('id', '=', id)
      .where('status', 'in', from);
    if (claim !== undefined) query = query.where('lease_expires_at', '=', claim);
    const result = await query.executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  },

  /** Running or reverting schedules whose operation has finished, with how it finished. */
  settled(db: Executor) {
    return db
      .selectFrom('schedules')
      .innerJoin('operations', (join) =>
        join.on((eb) =>
          eb.or([
            eb.and([
              eb('schedules.status', '=', 'running'),
              eb('operations.id', '=', eb.ref('schedules.operation_id')),
            ]),
            eb.and([
              eb('schedules.status', '=', 'reverting'),
              eb('operations.id', '=', eb.ref('schedules.revert_operation_id')),
            ]),
          ]),
        ),
      )
      .where('operations.status', 'not in', ['queued', 'running'])
      .selectAll('schedules')
      .select(['operations.status as operation_status', 'operations.outcome as operation_outcome'])
      .limit(DUE_BATCH)
      .execute();
  },
};
