/**
 * HTTP for the connectors: a timeout on every call, retries with exponential backoff and full
 * jitter on 429, 5xx and network errors, honouring Retry-After, and a cap on calls in flight
 * per store account.
 */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
}

export const DEFAULT_POLICY: RetryPolicy = {
  retries: 4,
  baseDelayMs: 250,
  maxDelayMs: 20_000,
  timeoutMs: 15_000,
};

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
}

export interface HttpCall {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Whether repeating the call after an unknown outcome (5xx, timeout) is safe. 429 is always retried. */
  idempotent: boolean;
}

export class NetworkError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'NetworkError';
  }
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(at - now, 0);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends a call, retrying what can be retried. Returns the last response (which may be an error
 * status for the caller to map) or throws NetworkError when no response came at all.
 */
export async function send(
  call: HttpCall,
  policy: RetryPolicy,
  counter?: { calls: number },
): Promise<HttpResponse> {
  for (let attempt = 0; ; attempt++) {
    let response: HttpResponse | null = null;
    let failure: unknown = null;
    try {
      if (counter) counter.calls += 1;
      const res = await fetch(call.url, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        signal: AbortSignal.timeout(policy.timeoutMs),
      });
      response = { status: res.status, headers: res.headers, text: await res.text() };
    } catch (error) {
      failure = error;
    }
    const retryable =
      response === null
        ? call.idempotent
        : response.status === 429 || (response.status >= 500 && call.idempotent);
    if (!retryable || attempt >= policy.retries) {
      if (response !== null) return response;
      const reason = failure instanceof Error ? failure.message : String(failure);
      throw new NetworkError(`${call.method} ${new URL(call.url).pathname} failed: ${reason}`, {
        cause: failure,
      });
    }
    const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
    const hinted = response ? retryAfterMs(response.headers.get('retry-after')) : null;
    // Full jitter spreads retries of many callers; a Retry-After hint is a floor, capped by maxDelay.
    const delay =
      hinted !== null ? Math.min(Math.max(hinted, backoff / 2), policy.maxDelayMs) : Math.random() * backoff;
    await sleep(delay);
  }
}

/** Runs at most `limit` tasks at once; the rest wait their turn. */
export function createLimiter(limit: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return async function run<T>(task: () => Promise<T>): Promise<T> {
    if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
    active += 1;
    try {
      return await task();
    } finally {
      active -= 1;
      queue.shift()?.();
    }
  };
}

/** A limiter per store account, shared by every connector made for it in this process. */
const limiters = new Map<string, ReturnType<typeof createLimiter>>();
export function accountLimiter(account: string, limit: number) {
  let limiter = limiters.get(account);
  if (limiter === undefined) {
    limiter = createLimiter(limit);
    limiters.set(account, limiter);
  }
  return limiter;
}
