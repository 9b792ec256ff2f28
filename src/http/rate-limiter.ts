/**
 * Request budgets per 60-second window (design.md §8), counted by rate-limiter-flexible: in
 * process by default, in Redis when REDIS_URL is set so that every instance draws on one budget.
 * Redis counts with one Lua script per request (INCRBY + TTL), so there is no read-modify-write race.
 */
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { lazyModule } from '../shared/lazy-module.js';

const ioredis = lazyModule<typeof import('ioredis')>('ioredis');

export const WINDOW_SECONDS = 60;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds at which the current window ends. */
  resetAt: number;
  /** Seconds until a refused caller may try again. */
  retryAfter: number;
}

export interface RateLimiter {
  /** Counts `points` requests (default 1) against `key`'s budget of `limit` per window. Never throws. */
  take(key: string, limit: number, points?: number): Promise<RateDecision>;
  readonly metrics: { storeErrors: number; limited: number };
  close(): Promise<void>;
}

/**
 * The counters allow far more points than any plan; each request compares the count with the
 * caller's plan itself. One counter per organization therefore survives a plan change, and
 * `appmeta org set-plan` takes effect on the next request.
 */
const COUNTER_CEILING = 1_000_000_000;
/** How often a Redis outage is logged while it lasts (every request would flood the logs). */
const OUTAGE_LOG_INTERVAL_MS = 10_000;

export function createRateLimiter(options: {
  redisUrl: string | null;
  log: Logger;
  now?: () => number;
  /** Namespace of the counters in Redis (tests give each run its own). */
  keyPrefix?: string;
}): RateLimiter {
  const now = options.now ?? Date.now;
  const keyPrefix = options.keyPrefix ?? 'appmeta:rl';
  const metrics = { storeErrors: 0, limited: 0 };
  let redis: Redis | null = null;
  let limiter: RateLimiterAbstract;
  if (options.redisUrl === null) {
    limiter = new RateLimiterMemory({ points: COUNTER_CEILING, duration: WINDOW_SECONDS, keyPrefix });
  } else {
    redis = new (ioredis().Redis)(options.redisUrl, {
      // Fail fast while Redis is away (requests are then served uncounted) and keep reconnecting.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 2_000,
      commandTimeout: 500,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
      lazyConnect: false,
    });
    redis.on('error', () => undefined); // reported through failed commands below
    limiter = new RateLimiterRedis({
      storeClient: redis,
      points: COUNTER_CEILING,
      duration: WINDOW_SECONDS,
      keyPrefix,
      rejectIfRedisNotReady: true,
    });
  }

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
    return { allowed: true, limit, remaining: limit, resetAt, retryAfter: 0 };
  };

  return {
    metrics,
    async take(key, limit, points = 1) {
      let res: RateLimiterRes;
      try {
        res = await limiter.consume(key, points);
      } catch (error) {
        if (error instanceof RateLimiterRes) res = error;
        else return failOpen(limit, error);
      }
      const consumed = res.consumedPoints;
      const allowed = consumed <= limit;
      if (!allowed) metrics.limited += 1;
      const msLeft = Math.max(res.msBeforeNext, 0);
      return {
        allowed,
        limit,
        remaining: Math.max(limit - consumed, 0),
        resetAt: Math.ceil((now() + msLeft) / 1000),
        retryAfter: Math.max(Math.ceil(msLeft / 1000), 1),
      };
    },
    async close() {
      if (redis !== null) {
        redis.disconnect();
      }
    },
  };
}
