/**
 * What the service tells an operator's Prometheus (design.md §21), as a port: the HTTP adapter,
 * the job queue, webhook deliveries and the store clients report through it, and know nothing of
 * the exposition format. Without METRICS_TOKEN nothing is recorded (NO_METRICS): an instance that
 * is not scraped pays nothing for it.
 */

/** How a webhook delivery's attempt ended. */
export type WebhookOutcome = 'delivered' | 'retrying' | 'failed' | 'deferred';

/** Connections of the database pool at a scrape. */
export interface PoolUse {
  max: number;
  total: number;
  idle: number;
  waiting: number;
}

/** What is read afresh at every scrape rather than counted as it happens. */
export interface MetricSources {
  /** Jobs waiting to run, by kind (not those running). */
  queueDepth: () => Promise<Record<string, number>>;
  /** Null where the database has no pool (SQLite). */
  pool: () => PoolUse | null;
  rateLimits: () => { limited: number; storeErrors: number };
}

export interface Metrics {
  readonly enabled: boolean;
  /** A served request: its route pattern (`unmatched` when none), status and time taken. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** A job began, `waitSeconds` after it became due. */
  jobStarted(job: string, waitSeconds: number): void;
  jobFinished(job: string, outcome: 'completed' | 'failed', seconds: number): void;
  webhookAttempt(outcome: WebhookOutcome, seconds: number): void;
  /** One attempt of a store call; `status` is the HTTP status or `network_error`. */
  storeCall(store: string, operation: string, status: string, seconds: number): void;
  /** A store call was attempted again (after a 429, a 5xx or no answer). */
  storeRetry(store: string, operation: string): void;
  watch(sources: Partial<MetricSources>): void;
  /** The exposition (Prometheus text format 0.0.4). */
  render(): Promise<string>;
}

const nothing = () => undefined;

export const NO_METRICS: Metrics = {
  enabled: false,
  httpRequest: nothing,
  jobStarted: nothing,
  jobFinished: nothing,
  webhookAttempt: nothing,
  storeCall: nothing,
  storeRetry: nothing,
  watch: nothing,
  render: async () => '',
};

/**
 * A store call's operation as a bounded label: the method and the path's collections with the
 * ids left out (`PATCH appStoreVersionLocalizations`, `POST applications/edits:commit`). Both
 * stores' paths alternate collection and id after their version segment; URLs without one (an
 * upload part, the token endpoint) are `transfer` or their last segment.
 */
export function storeOperation(method: string, url: string): string {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return `${method} unknown`;
  }
  const segments = path.split('/').filter(Boolean);
  const version = segments.findIndex((segment) => /^v\d+$/.test(segment));
  if (version === -1) return `${method} ${segments.at(-1) === 'token' ? 'token' : 'transfer'}`;
  const parts: string[] = [];
  segments.slice(version + 1).forEach((segment, index) => {
    if (index % 2 === 0) parts.push(segment);
    else {
      const action = /:[a-zA-Z]+$/.exec(segment)?.[0];
      if (action) parts[parts.length - 1] += action;
    }
  });
  return `${method} ${parts.join('/')}`;
}
