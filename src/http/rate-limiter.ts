/**
 * Request budgets per 60-second window (design.md §8): counted in process by default, in Redis
 * when REDIS_URL is set so that every instance draws on one budget. A window opens with a key's
 * first request and lasts WINDOW_SECONDS. Redis counts with one Lua script per turn of the event
 * loop (INCRBY, and the expiry when a window opens, for each request of the turn), so there is no
 * read-modify-write race between instances.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { readVersionLua } from '../db/identity-version.js';
import { lazyModule } from '../shared/lazy-module.js';

const ioredis = lazyModule<typeof import('ioredis')>('ioredis');

export const WINDOW_SECONDS = 60;
const WINDOW_MS = WINDOW_SECONDS * 1000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
  /** Seconds until a refused caller may try again. */
  retryAfter: number;
  /** The identity version Redis holds (db/identity-version.ts), read in the same script; null in process or when Redis failed. */
  identityVersion: number | null;
}

export interface RateLimiter {
  /** Counts `points` requests (default 1) against `key`'s budget of `limit` per window. Never throws. */
  take(key: string, limit: number, points?: number): Promise<RateDecision>;
  readonly metrics: { storeErrors: number; limited: number };
  close(): Promise<void>;
}

/** A key's count in its current window, when the window ends (ms since the epoch), and the identity version. */
interface WindowCount {
  count: number;
  endsAt: number;
  identityVersion: number | null;
}

/** Where the counts live: this process, or Redis. */
interface Counters {
  add(key: string, points: number): WindowCount | Promise<WindowCount>;
  close(): void;
}

/** How often a Redis outage is logged while it lasts (every request would flood the logs). */
const OUTAGE_LOG_INTERVAL_MS = 10_000;

/**
 * Each request compares its key's count with the caller's plan, so one counter per organization
 * survives a plan change, and `appmeta org set-plan` takes effect on the next request. The count
 * is made before the decision: a refused request counts too, as every request does.
 */
export function createRateLimiter(options: {
  redisUrl: string | null;
  log: Logger;
  now?: () => number;
  /** Namespace of the counters in Redis (tests give each run its own). */
  keyPrefix?: string;
  /** Where Redis holds the identity version to read back with each count (identityVersionKey). */
  identityVersionKey?: string | null;
}): RateLimiter {
  const now = options.now ?? Date.now;
  const keyPrefix = options.keyPrefix ?? 'appmeta:rl';
  const counters =
    options.redisUrl === null
      ? memoryCounters(now)
      : redisCounters(options.redisUrl, keyPrefix, options.identityVersionKey ?? null, now);
  const metrics = { storeErrors: 0, limited: 0 };

  const decide = (limit: number, window: WindowCount): RateDecision => {
    const allowed = window.count <= limit;
    if (!allowed) metrics.limited += 1;
    const msLeft = Math.max(window.endsAt - now(), 0);
    return {
      allowed,
      limit,
      remaining: Math.max(limit - window.count, 0),
      resetAt: Math.ceil(window.endsAt / 1000),
      retryAfter: Math.max(Math.ceil(msLeft / 1000), 1),
      identityVersion: window.identityVersion,
    };
  };

  let lastOutageLog = 0;
  const failOpen = (limit: number, error: unknown): RateDecision => {
    metrics.storeErrors += 1;
    if (now() - lastOutageLog > OUTAGE_LOG_INTERVAL_MS) {
      lastOutageLog = now();
      options.log.error(
        { err: error, storeErrors: metrics.storeErrors },
        'rate-limit store unreachable: serving requests uncounted until it returns',
      );
    }
    const resetAt = Math.ceil(now() / 1000) + WINDOW_SECONDS;
    return { allowed: true, limit, remaining: limit, resetAt, retryAfter: 0, identityVersion: null };
  };

  return {
    metrics,
    async take(key, limit, points = 1) {
      try {
        return decide(limit, await counters.add(key, points));
      } catch (error) {
        return failOpen(limit, error);
      }
    },
    async close() {
      counters.close();
    },
  };
}

/**
 * Counts in this process. Windows that ended are swept at most once a window, so that the map
 * holds about one window's worth of keys (client IPs included) however long the process runs.
 */
function memoryCounters(now: () => number): Counters {
  const windows = new Map<string, WindowCount>();
  let nextSweep = now() + WINDOW_MS;
  return {
    add(key, points) {
      const at = now();
      if (at >= nextSweep) {
        for (const [name, window] of windows) if (window.endsAt <= at) windows.delete(name);
        nextSweep = at + WINDOW_MS;
      }
      let window = windows.get(key);
      if (window === undefined || window.endsAt <= at) {
        window = { count: 0, endsAt: at + WINDOW_MS, identityVersion: null };
        windows.set(key, window);
      }
      window.count += points;
      // A copy: the decision is made after an await, when later requests may have counted too.
      return { count: window.count, endsAt: window.endsAt, identityVersion: null };
    },
    close() {
      windows.clear();
    },
  };
}

/** Most counts one script carries, so that a batch holds Redis for a short while only. */
const BATCH_MAX = 256;

/**
 * Adds each count's points (ARGV[2 + i]) to its key (KEYS[i], i = 1 … ARGV[2]) and opens the key's
 * window (the expiry) with its first points; `result` then holds each count and the milliseconds
 * its window has left, in that order. A key counted twice in one batch is counted twice, in order,
 * as two scripts would have counted it.
 */
const COUNT_SCRIPT = `
local window = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local result = {}
for i = 1, n do
  local count = redis.call('INCRBY', KEYS[i], ARGV[2 + i])
  local ttl = redis.call('PTTL', KEYS[i])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[i], window)
    ttl = window
  end
  result[2 * i - 1] = count
  result[2 * i] = ttl
end`;

type CountingRedis = Redis & {
  /** COUNT_SCRIPT: the number of keys, the keys, then the window, the number of counts and their points. */
  countWindows(...args: (string | number)[]): Promise<(number | string)[]>;
  /** countWindows, and the identity version (the last key) read in the same script, last in the reply. */
  countWindowsVersion(...args: (string | number)[]): Promise<(number | string)[]>;
};

/** A count waiting for its batch to be sent. */
interface WaitingCount {
  key: string;
  points: number;
  resolve(window: WindowCount): void;
  reject(error: unknown): void;
}

/**
 * Counts in Redis, the counts of one turn of the event loop in one script: every request read in
 * that turn waits for the turn's end (setImmediate), then one command carries them all — one
 * reply to parse and one script run instead of one each per request (#22). Redis runs the script
 * atomically, so counts stay exact across instances. The keys of a batch are all on this one Redis
 * (not a cluster).
 */
function redisCounters(
  url: string,
  keyPrefix: string,
  versionKey: string | null,
  now: () => number,
): Counters {
  const redis = new (ioredis().Redis)(url, {
    // Fail fast while Redis is away (requests are then served uncounted) and keep reconnecting.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    lazyConnect: false,
  }) as CountingRedis;
  redis.on('error', () => undefined); // reported through failed commands
  // EVALSHA, falling back to EVAL once when Redis does not know the script yet; the number of
  // keys comes first in each call.
  redis.defineCommand('countWindows', { lua: `${COUNT_SCRIPT}\nreturn result` });
  redis.defineCommand('countWindowsVersion', {
    lua: `${COUNT_SCRIPT}\n${readVersionLua('KEYS[n + 1]')}\nresult[2 * n + 1] = version\nreturn result`,
  });

  let batch: WaitingCount[] = [];
  const send = () => {
    if (batch.length === 0) return;
    const sent = batch;
    batch = [];
    const keys = sent.map((waiting) => `${keyPrefix}:${waiting.key}`);
    const points = sent.map((waiting) => waiting.points);
    const reply =
      versionKey === null
        ? redis.countWindows(keys.length, ...keys, WINDOW_MS, sent.length, ...points)
        : redis.countWindowsVersion(keys.length + 1, ...keys, versionKey, WINDOW_MS, sent.length, ...points);
    reply.then(
      (values) => {
        const at = now();
        const identityVersion = versionKey === null ? null : Number(values[2 * sent.length]);
        sent.forEach((waiting, i) =>
          waiting.resolve({
            count: Number(values[2 * i]),
            endsAt: at + Number(values[2 * i + 1]),
            identityVersion,
          }),
        );
      },
      (error: unknown) => {
        for (const waiting of sent) waiting.reject(error);
      },
    );
  };

  return {
    add(key, points) {
      if (redis.status !== 'ready') throw new Error(`Redis is not connected (${redis.status})`);
      return new Promise<WindowCount>((resolve, reject) => {
        if (batch.length === 0) setImmediate(send);
        batch.push({ key, points, resolve, reject });
        if (batch.length === BATCH_MAX) send();
      });
    },
    close() {
      redis.disconnect();
    },
  };
}
