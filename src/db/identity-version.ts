/**
 * The identity version on PostgreSQL (Db.identityVersion): a counter in Redis that a connection
 * moves after it commits a change to api_keys, members or organizations, and that every request's
 * rate-limit count reads back in the same script (rate-limiter.ts), so that a key found in the
 * cache is confirmed without another round trip. Every instance, the CLI and the worker of one
 * deployment move it when REDIS_URL is set. The counter is named after the database (the path of
 * DATABASE_URL, which every process of a deployment shares): databases of the same name on one
 * Redis share a counter, which costs at most a spare re-read, never a missed change.
 *
 * A missing counter (a new or restarted Redis) starts from Redis's clock in microseconds, so a
 * value seen before a restart is not handed out again after it.
 */
import type { Redis } from 'ioredis';
import type { DatabaseConfig } from '../config.js';
import { lazyModule } from '../shared/lazy-module.js';

/** Statements that may change who a key signs in, or what they may do (Db.identityVersion). */
export const IDENTITY_WRITE = /^\s*(update|delete\s+from)\s+"?(api_keys|members|organizations)"?\s/i;

const ioredis = lazyModule<typeof import('ioredis')>('ioredis');

/** The counter of a PostgreSQL database with REDIS_URL; null where there is none (SQLite, no Redis). */
export function identityVersionKey(database: DatabaseConfig): string | null {
  if (database.kind !== 'postgres' || database.redisUrl === null) return null;
  const name = decodeURIComponent(new URL(database.url).pathname.slice(1)) || 'postgres';
  return `appmeta:identity-version:${name}`;
}

/**
 * How long a counter lives after it was started or last moved. One that lapsed starts again from
 * the clock, above every value it had: its end costs a spare re-read, and counters of databases
 * gone (tests make many) do not stay in Redis.
 */
const LIFETIME_SECONDS = 7 * 24 * 3600;

/** Lua: sets `key` from Redis's clock unless it exists. */
const startFromClock = (key: string) => `
if redis.call('EXISTS', ${key}) == 0 then
  local t = redis.call('TIME')
  redis.call('SET', ${key}, t[1] .. string.format('%06d', tonumber(t[2])), 'EX', ${LIFETIME_SECONDS})
end`;

/** Lua: the current version of `key` into `version`, as a string. */
export const readVersionLua = (key: string) => `${startFromClock(key)}
local version = redis.call('GET', ${key})`;

const ANNOUNCE_SCRIPT = `${startFromClock('KEYS[1]')}
local version = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ${LIFETIME_SECONDS})
return version`;

export interface IdentityAnnouncer {
  /** Moves the version: call after a change to the identity tables has committed. */
  announce(): Promise<void>;
  close(): void;
}

type AnnouncingRedis = Redis & { announceIdentity(key: string): Promise<number> };

/** The announcer of a PostgreSQL database with REDIS_URL; null where nothing is kept (identityVersionKey). */
export function createIdentityAnnouncer(database: DatabaseConfig): IdentityAnnouncer | null {
  const key = identityVersionKey(database);
  if (database.kind !== 'postgres' || database.redisUrl === null || key === null) return null;
  const redisUrl = database.redisUrl;
  let redis: AnnouncingRedis | null = null;
  // Connected on the first change: most processes (a CLI listing projects) never make one.
  const connection = (): AnnouncingRedis => {
    if (redis !== null) return redis;
    redis = new (ioredis().Redis)(redisUrl, {
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      commandTimeout: 1_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    }) as AnnouncingRedis;
    redis.on('error', () => undefined); // reported by the failed command
    redis.defineCommand('announceIdentity', { numberOfKeys: 1, lua: ANNOUNCE_SCRIPT });
    return redis;
  };
  return {
    async announce() {
      // A change is never undone for want of Redis: while it is away the rate limiter reports no
      // version either, and no instance answers from its cache; an instance cut off from this
      // one alone keeps what it cached for at most the cache's TTL (key-cache.ts).
      await connection()
        .announceIdentity(key)
        .catch(() => undefined);
    },
    close() {
      redis?.disconnect();
    },
  };
}
