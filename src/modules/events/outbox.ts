/**
 * The transactional outbox: an event is written by the transaction of the change that causes it,
 * so it exists exactly when that change commits. What reads events later (webhook deliveries, the
 * live stream) starts from the rows, so nothing is lost when the process dies after the commit.
 */
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { AppEvent, EventType } from '../../shared/events.js';
import { insertEvent, nextEventSeq } from './events.repository.js';

/** What else an event brings about in its transaction: the webhook deliveries it owes. */
export type EventFanOut = (db: Executor, event: AppEvent) => Promise<void>;

export interface Outbox {
  /** Records an event in `db`, which must be the transaction of its cause. */
  emit(
    db: Executor,
    organizationId: string,
    type: EventType,
    data: Record<string, unknown>,
  ): Promise<AppEvent>;
}

export function createOutbox(deps: { clock: Clock; fanOut: EventFanOut; afterEmit?: () => void }): Outbox {
  const { clock, fanOut } = deps;
  return {
    async emit(db, organizationId, type, data) {
      // The counter row stays locked until commit: events of one organization are numbered in
      // commit order, so a reader resuming after number n misses none committed later.
      const [{ seq }] = (await nextEventSeq(db, organizationId)) as [{ seq: number }];
      const event: AppEvent = {
        id: newId('evt'),
        seq,
        organizationId,
        type,
        data,
        createdAt: clock.now().toISOString(),
      };
      await insertEvent(db, {
        id: event.id,
        organization_id: organizationId,
        seq,
        type,
        data: JSON.stringify(data),
        created_at: event.createdAt,
      });
      await fanOut(db, event);
      deps.afterEmit?.();
      return event;
    },
  };
}
