import type { Executor } from '../../db/database.js';
import { preparedQuery, preparedRowQuery } from '../../db/prepared.js';
import type { EventsTable } from '../../db/tables.js';
import type { AppEvent, EventType } from '../../shared/events.js';

const toEvent = (row: EventsTable): AppEvent => ({
  id: row.id,
  seq: Number(row.seq),
  organizationId: row.organization_id,
  type: row.type as EventType,
  data: JSON.parse(row.data) as Record<string, unknown>,
  createdAt: row.created_at,
});

/** The organization's events after number `afterSeq`, oldest first. */
export async function eventsAfter(db: Executor, organizationId: string, afterSeq: number, limit: number) {
  const rows = await db
    .selectFrom('events')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map(toEvent);
}

/** The organization's last event number (0 before its first event). */
export async function lastEventSeq(db: Executor, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('event_sequences')
    .select('seq')
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}

// Prepared (db/prepared.ts): every change that emits an event runs both.
export const nextEventSeq = preparedQuery((db: Executor, organizationId: string) =>
  db
    .insertInto('event_sequences')
    .values({ organization_id: organizationId, seq: 1 })
    .onConflict((oc) =>
      oc.column('organization_id').doUpdateSet((eb) => ({ seq: eb('event_sequences.seq', '+', 1) })),
    )
    .returning('seq'),
);

export const insertEvent = preparedRowQuery(
  ['id', 'organization_id', 'seq', 'type', 'data', 'created_at'],
  (db: Executor, row: EventsTable) => db.insertInto('events').values(row),
);
