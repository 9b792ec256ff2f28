/**
 * Request budgets per 60-second window (design.md §8): counted in process by default, in Redis
 * when REDIS_URL is set so that every instance draws on one budget. A window opens with a key's
 * first request and lasts WINDOW_SECONDS. Redis counts with one Lua script per request (INCRBY,
 * and the expiry when the window opens), so there is no read-modify-write race between instances.
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
      return window;
    },
    close() {
      windows.clear();
    },
  };
}

/**
 * Adds points to a key's count (KEYS[1]) and opens its window (the expiry) with the first of them;
 * the count and the milliseconds the window has left are then in `count` and `ttl`.
 */
const COUNT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end`;

type CountingRedis = Redis & {
  countWindow(key: string, points: number, windowMs: number): Promise<[number, number]>;
  /** countWindow, and the identity version (KEYS[2]) read in the same script. */
  countWindowVersion(
    key: string,
    versionKey: string,
    points: number,
    windowMs: number,
  ): Promise<[number, number, string]>;
};

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
    // Under load many requests count in one turn of the event loop: their scripts go out in one
    // write and come back in one read, instead of a system call each way per request (#22).
    enableAutoPipelining: true,
  }) as CountingRedis;
  redis.on('error', () => undefined); // reported through failed commands
  // EVALSHA, falling back to EVAL once when Redis does not know the script yet.
  redis.defineCommand('countWindow', { numberOfKeys: 1, lua: `${COUNT_SCRIPT}\nreturn {count, ttl}` });
  redis.defineCommand('countWindowVersion', {
    numberOfKeys: 2,
    lua: `${COUNT_SCRIPT}\n${readVersionLua('KEYS[2]')}\nreturn {count, ttl, version}`,
  });
  return {
    async add(key, points) {
      if (redis.status !== 'ready') throw new Error(`Redis is not connected (${redis.status})`);
      const counter = `${keyPrefix}:${key}`;
      if (versionKey === null) {
        const [count, msLeft] = await redis.countWindow(counter, points, WINDOW_MS);
        return { count, endsAt: now() + msLeft, identityVersion: null };
      }
      const [count, msLeft, version] = await redis.countWindowVersion(counter, versionKey, points, WINDOW_MS);
      return { count, endsAt: now() + msLeft, identityVersion: Number(version) };
    },
    close() {
      redis.disconnect();
    },
  };
}
