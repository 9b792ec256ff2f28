/**
 * How the connectors call a store, as declared policies (cockatiel): per store account a bulkhead
 * (calls in flight) and a circuit breaker, and per call retries with jittered exponential backoff
 * honouring Retry-After and a timeout on each attempt.
 *
 * What is retried: 429 always; 5xx and a lost or timed-out call only when repeating the call is
 * safe (`idempotent`) — a POST whose outcome is unknown may have created something. The breaker
 * counts calls that still failed that way after their retries; five in a row stop calls to the
 * account for a while (STORE_UNAVAILABLE at once instead of minutes of retries), any success
 * closes it again.
 */
import { Readable } from 'node:stream';
import {
  BrokenCircuitError,
  bulkhead,
  circuitBreaker,
  ConsecutiveBreaker,
  DelegateBackoff,
  handleWhen,
  retry,
  timeout,
  TimeoutStrategy,
  TaskCancelledError,
  wrap,
  type BulkheadPolicy,
  type CircuitBreakerPolicy,
  type IRetryBackoffContext,
} from 'cockatiel';
import { storeOperation, type Metrics } from '../metrics/index.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Each attempt's own limit. */
  timeoutMs: number;
}

export const DEFAULT_POLICY: RetryPolicy = {
  retries: 4,
  baseDelayMs: 250,
  maxDelayMs: 20_000,
  timeoutMs: 15_000,
};

export interface BreakerPolicy {
  /** Calls failing in a row (after retries) that open the breaker. */
  failures: number;
  /** How long an open breaker refuses calls before it lets one through to test the store. */
  openMs: number;
}

export const DEFAULT_BREAKER: BreakerPolicy = { failures: 5, openMs: 30_000 };

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface HttpCall {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Text, or for files a stream opened afresh for each attempt (sent with its Content-Length header). */
  body?: string | (() => Promise<Readable>);
  /** Whether repeating the call after an unknown outcome (5xx, timeout) is safe. 429 is always retried. */
  idempotent: boolean;
  /** Each attempt's limit when not the policy's (file transfers take longer than JSON calls). */
  timeoutMs?: number;
  /** Reads a successful answer's body as a stream inside the attempt (downloads); `text` is then empty. */
  onBody?: (body: Readable) => Promise<void>;
}

/** No answer came at all (refused, reset, timed out). */
export class NetworkError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'NetworkError';
  }
}

/** The account's circuit breaker is open: the store failed too often in a row, so it is not called. */
export class StoreUnavailableError extends Error {
  constructor(readonly retryAfterMs: number) {
    super(`not called for ${Math.ceil(retryAfterMs / 1000)} s after repeated failures`);
    this.name = 'StoreUnavailableError';
  }
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(at - now, 0);
}

/** How a store client calls: where, under which retry and account policies, on which clock. */
export interface StoreClientOptions {
  baseUrl: string;
  policy: RetryPolicy;
  account: AccountPolicies;
  now: () => number;
  /** Where each attempt is counted (GET /metrics), or null. */
  observer: StoreCallObserver | null;
}

/** Counts a store's calls: every attempt with its status and time, and every retry. */
export interface StoreCallObserver {
  store: 'appstore' | 'playstore';
  metrics: Metrics;
}

/** Counts a connector's store calls; a push may also be asked before every write whether to go on. */
export interface CallCounter {
  calls: number;
  /** Throws (a StoreError) to stop the call; runs before every non-GET call. */
  beforeWrite?: (() => Promise<void>) | undefined;
}

/** What one store account shares between all its calls, in this process. */
export interface AccountPolicies {
  bulkhead: BulkheadPolicy;
  breaker: CircuitBreakerPolicy;
  breakerPolicy: BreakerPolicy;
}

const isTransient = (response: unknown) => {
  const status = (response as HttpResponse).status;
  return status === 429 || status >= 500;
};

/** The policies of the accounts a connector factory serves, made on first use. */
export function createAccountRegistry(options: { breaker?: BreakerPolicy } = {}) {
  const breakerPolicy = options.breaker ?? DEFAULT_BREAKER;
  const accounts = new Map<string, AccountPolicies>();
  return (account: string, concurrency: number): AccountPolicies => {
    const key = `${account}:${concurrency}`;
    let policies = accounts.get(key);
    if (policies === undefined) {
      policies = {
        bulkhead: bulkhead(concurrency, Infinity),
        breaker: circuitBreaker(
          handleWhen((e) => e instanceof NetworkError || e instanceof TaskCancelledError).orWhenResult(
            isTransient,
          ),
          {
            halfOpenAfter: breakerPolicy.openMs,
            breaker: new ConsecutiveBreaker(breakerPolicy.failures),
          },
        ),
        breakerPolicy,
      };
      accounts.set(key, policies);
    }
    return policies;
  };
}

export type AccountRegistry = ReturnType<typeof createAccountRegistry>;

/** What a connector's caller may set about how it calls its store. */
export interface ConnectorCallOptions {
  baseUrl: string;
  policy?: RetryPolicy;
  now?: () => number;
  /** Calls in flight per store account (default: the connector's own). */
  concurrency?: number;
  /** The accounts' bulkheads and breakers (shared by the connectors of one factory). */
  accounts?: AccountRegistry;
  /** Where store calls are counted; by default nowhere. */
  metrics?: Metrics;
}

/** A store client's options from its connector's: defaults filled in, the account's policies found. */
export function storeClientOptions(
  options: ConnectorCallOptions,
  store: StoreCallObserver['store'],
  account: string,
  defaultConcurrency: number,
): StoreClientOptions {
  const accounts = options.accounts ?? createAccountRegistry();
  return {
    baseUrl: options.baseUrl,
    policy: options.policy ?? DEFAULT_POLICY,
    now: options.now ?? Date.now,
    account: accounts(account, options.concurrency ?? defaultConcurrency),
    observer: options.metrics?.enabled ? { store, metrics: options.metrics } : null,
  };
}

/**
 * Sends a call under the account's policies. Returns the last response (which may be an error
 * status for the caller to map), or throws NetworkError when no response came at all, or
 * StoreUnavailableError while the account's breaker is open.
 */
export async function send(
  call: HttpCall,
  policy: RetryPolicy,
  account: AccountPolicies,
  counter?: CallCounter,
  observer: StoreCallObserver | null = null,
): Promise<HttpResponse> {
  const operation = observer === null ? '' : storeOperation(call.method, call.url);
  let attempts = 0;
  const backoff = new DelegateBackoff((context: IRetryBackoffContext<unknown>) => {
    const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (context.attempt - 1));
    const hinted =
      'value' in context.result
        ? retryAfterMs((context.result.value as HttpResponse).headers.get('retry-after'))
        : null;
    // Full jitter spreads retries of many callers; a Retry-After hint is a floor, capped by maxDelay.
    return hinted !== null
      ? Math.min(Math.max(hinted, exponential / 2), policy.maxDelayMs)
      : Math.random() * exponential;
  });
  const retrying = retry(
    handleWhen(
      (error) => call.idempotent && (error instanceof NetworkError || error instanceof TaskCancelledError),
    ).orWhenResult((response) => {
      const { status } = response as HttpResponse;
      return status === 429 || (status >= 500 && call.idempotent);
    }),
    { maxAttempts: policy.retries, backoff },
  );
  const limitMs = call.timeoutMs ?? policy.timeoutMs;
  const attemptTimeout = timeout(limitMs, TimeoutStrategy.Aggressive);
  try {
    // A signal of the call's own: without one, cockatiel hangs every call's abort listener on one
    // process-wide signal, and a push with many calls waiting in the bulkhead warned
    // MaxListenersExceededWarning.
    return await wrap(account.bulkhead, account.breaker, retrying, attemptTimeout).execute(
      async ({ signal }) => {
        // Checked once the call has its slot: a cancelled push stops before its next write.
        if (call.method !== 'GET') await counter?.beforeWrite?.();
        if (counter) counter.calls += 1;
        attempts += 1;
        if (attempts > 1) observer?.metrics.storeRetry(observer.store, operation);
        const started = performance.now();
        const observe = (status: string) =>
          observer?.metrics.storeCall(
            observer.store,
            operation,
            status,
            (performance.now() - started) / 1000,
          );
        try {
          const streamed = typeof call.body === 'function';
          const res = await fetch(call.url, {
            method: call.method,
            headers: call.headers,
            body: streamed
              ? (Readable.toWeb(await (call.body as () => Promise<Readable>)()) as ReadableStream)
              : (call.body as string | undefined),
            signal,
            ...(streamed && { duplex: 'half' }),
          });
          if (call.onBody !== undefined && res.status < 300 && res.body !== null) {
            await call.onBody(Readable.fromWeb(res.body));
            observe(String(res.status));
            return { status: res.status, headers: res.headers, text: '' } satisfies HttpResponse;
          }
          const text = await res.text();
          observe(String(res.status));
          return { status: res.status, headers: res.headers, text } satisfies HttpResponse;
        } catch (error) {
          observe(signal.aborted ? 'timeout' : 'network_error');
          if (signal.aborted) throw error; // the attempt's timeout: cockatiel reports it
          throw new NetworkError(
            `${call.method} ${new URL(call.url).pathname} failed: ${(error as Error).message}`,
            {
              cause: error,
            },
          );
        }
      },
      new AbortController().signal,
    );
  } catch (error) {
    if (error instanceof BrokenCircuitError) throw new StoreUnavailableError(account.breakerPolicy.openMs);
    if (error instanceof TaskCancelledError) {
      throw new NetworkError(
        `${call.method} ${new URL(call.url).pathname} failed: no answer within ${limitMs} ms`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}
