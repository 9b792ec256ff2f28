/**
 * The live stream behind GET /api/v1/events: per instance, one reader of the outbox that serves
 * every open stream. It reads only while someone listens, per organization listened to, from the
 * outbox rows — so what another instance committed arrives too, and a resumed stream
 * (Last-Event-ID) gets exactly what it missed.
 */
import type { Logger } from 'pino';
import type { Executor } from '../../db/database.js';
import { authorize, seesProject, type RequestContext } from '../access/index.js';
import type { AppEvent } from '../../shared/events.js';
import { eventsAfter, lastEventSeq } from './events.repository.js';

/** How often the outbox is read while streams are open; a local event is read at once. */
const POLL_MS = 250;
const BATCH = 200;

export interface Subscription {
  /** Stops the subscription. */
  close(): void;
}

interface Listener {
  organizationId: string;
  after: number;
  send: (event: AppEvent) => void;
}

export function createEventStream(deps: { db: Executor; log: Logger }) {
  const { db } = deps;
  const listeners = new Set<Listener>();
  let timer: NodeJS.Timeout | null = null;
  let reading: Promise<void> | null = null;

  async function readOnce() {
    const byOrganization = new Map<string, Listener[]>();
    for (const listener of listeners) {
      const list = byOrganization.get(listener.organizationId) ?? [];
      list.push(listener);
      byOrganization.set(listener.organizationId, list);
    }
    for (const [organizationId, group] of byOrganization) {
      const from = Math.min(...group.map((l) => l.after));
      const events = await eventsAfter(db, organizationId, from, BATCH);
      for (const event of events) {
        for (const listener of group) {
          if (event.seq > listener.after && listeners.has(listener)) {
            listener.after = event.seq;
            listener.send(event);
          }
        }
      }
    }
  }

  const read = () => {
    reading ??= readOnce()
      .catch((error: unknown) => deps.log.warn({ err: error }, 'event stream: reading the outbox failed'))
      .finally(() => {
        reading = null;
      });
    return reading;
  };

  const schedule = () => {
    if (timer !== null || listeners.size === 0) return;
    timer = setInterval(() => void read(), POLL_MS);
    timer.unref();
  };

  return {
    /**
     * Streams the organization's events to `send`, starting after `lastEventId` (a resumed
     * stream) or with the next event. Anyone in the organization may listen.
     */
    async subscribe(
      ctx: RequestContext,
      lastEventId: number | null,
      send: (event: AppEvent) => void,
    ): Promise<Subscription> {
      authorize(ctx, 'events.stream');
      const after = lastEventId ?? (await lastEventSeq(db, ctx.organizationId));
      // A member narrowed to some projects hears nothing of the others (design.md §16).
      const visible = (event: AppEvent) =>
        typeof event.data.projectId !== 'string' || seesProject(ctx, event.data.projectId);
      const listener: Listener = {
        organizationId: ctx.organizationId,
        after,
        send: (event) => {
          if (visible(event)) send(event);
        },
      };
      listeners.add(listener);
      schedule();
      if (lastEventId !== null) void read();
      return {
        close() {
          listeners.delete(listener);
          if (listeners.size === 0 && timer !== null) {
            clearInterval(timer);
            timer = null;
          }
        },
      };
    },
    /** Reads the outbox now (an event was just committed here). */
    nudge: () => {
      if (listeners.size > 0) void read();
    },
    /** Ends every stream (shutdown). */
    close() {
      listeners.clear();
      if (timer !== null) clearInterval(timer);
      timer = null;
    },
  };
}

export type EventStream = ReturnType<typeof createEventStream>;
