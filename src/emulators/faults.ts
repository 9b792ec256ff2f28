/**
 * Fault injection for the emulators: per route (method and path pattern), answer with an error
 * status (in the store's error shape), add latency, or drop the connection — on every call, or a
 * number of times, or from the N-th call on.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';

export interface Fault {
  /** e.g. "PATCH /v1/appStoreVersionLocalizations/*" or "* /androidpublisher/*"; `*` matches any text. */
  route: string;
  status?: number;
  /** Seconds, sent as Retry-After with the status. */
  retryAfter?: number;
  latencyMs?: number;
  /** Close the connection without answering. */
  drop?: boolean;
  /** How many matching calls the fault applies to (default: all). */
  times?: number;
  /** Skip this many matching calls first (fail from the (after+1)-th call on). */
  after?: number;
}

interface ActiveFault extends Fault {
  pattern: RegExp;
  seen: number;
  applied: number;
}

const toPattern = (route: string) => {
  const [method = '*', pathPattern = '*'] = route.trim().split(/\s+/);
  const escape = (text: string) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escape(method)} ${escape(pathPattern)}$`);
};

export function createFaults() {
  let faults: ActiveFault[] = [];
  return {
    set(list: Fault[]) {
      faults = list.map((fault) => ({ ...fault, pattern: toPattern(fault.route), seen: 0, applied: 0 }));
    },
    clear() {
      faults = [];
    },
    list: () =>
      faults.map(({ route, status, retryAfter, latencyMs, drop, times, after, applied }) => ({
        route,
        status,
        retryAfter,
        latencyMs,
        drop,
        times,
        after,
        applied,
      })),
    /**
     * Applies the first matching fault. Returns the status to answer with (the caller renders the
     * store's error body), 'dropped' when the connection was closed, or null to proceed.
     */
    async apply(request: FastifyRequest, reply: FastifyReply): Promise<number | 'dropped' | null> {
      const key = `${request.method} ${request.url.split('?')[0]}`;
      for (const fault of faults) {
        if (!fault.pattern.test(key)) continue;
        fault.seen += 1;
        if (fault.seen <= (fault.after ?? 0)) return null;
        if (fault.times !== undefined && fault.applied >= fault.times) return null;
        fault.applied += 1;
        if (fault.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
        if (fault.drop) {
          reply.hijack();
          request.raw.socket.destroy();
          return 'dropped';
        }
        if (fault.retryAfter !== undefined) void reply.header('Retry-After', String(fault.retryAfter));
        return fault.status ?? null;
      }
      return null;
    },
  };
}

export type Faults = ReturnType<typeof createFaults>;
