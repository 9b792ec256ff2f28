/**
 * The limiter itself: in process on the SQLite run, in Redis on the PostgreSQL + Redis run (the
 * store the service uses there), with the same decisions.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createRateLimiter, type RateLimiter } from '../../src/http/rate-limiter.js';
import { testRedisUrl } from '../support/databases.js';

const log = pino({ level: 'silent' });
const opened: RateLimiter[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((limiter) => limiter.close()));
});

function limiter(options: { now?: () => number; keyPrefix?: string } = {}): RateLimiter {
  const made = createRateLimiter({
    redisUrl: testRedisUrl(),
    log,
    keyPrefix: options.keyPrefix ?? `appmeta:test:${randomBytes(6).toString('hex')}`,
    ...(options.now && { now: options.now }),
  });
  opened.push(made);
  return made;
}

/** Takes until Redis has connected (the first takes fail open while it connects). */
async function firstTake(rl: RateLimiter, key: string, limit: number, points = 1) {
  for (let attempt = 0; attempt < 50; attempt++) {
    const errors = rl.metrics.storeErrors;
    const decision = await rl.take(key, limit, points);
    if (rl.metrics.storeErrors === errors) return decision;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the rate-limit store never answered');
}

describe('rate limiter', () => {
  it('counts points against the limit, refuses past it, and says how long the window has left', async () => {
    const start = Date.now();
    const rl = limiter();
    const first = await firstTake(rl, 'org:a', 3);
    expect(first).toMatchObject({ allowed: true, limit: 3, remaining: 2 });
    expect(first.resetAt).toBeGreaterThanOrEqual(Math.floor(start / 1000) + 59);
    expect(first.resetAt).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
    expect(await rl.take('org:a', 3, 2)).toMatchObject({ allowed: true, remaining: 0 });
    const refused = await rl.take('org:a', 3);
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.retryAfter).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfter).toBeLessThanOrEqual(60);
    expect(rl.metrics.limited).toBe(1);
    // Another key has its own window; a larger limit (a plan change) applies to the same count.
    expect(await rl.take('org:b', 3)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await rl.take('org:a', 10)).toMatchObject({ allowed: true, remaining: 5 });
  });

  it('shares one count between limiters of one store', async () => {
    const keyPrefix = `appmeta:test:${randomBytes(6).toString('hex')}`;
    const [one, two] = [limiter({ keyPrefix }), limiter({ keyPrefix })];
    await firstTake(one, 'org:shared', 5);
    if (testRedisUrl() === null) {
      // In process, each instance counts for itself.
      expect(await firstTake(two, 'org:shared', 5)).toMatchObject({ remaining: 4 });
    } else {
      expect(await firstTake(two, 'org:shared', 5)).toMatchObject({ remaining: 3 });
      expect(await one.take('org:shared', 5)).toMatchObject({ remaining: 2 });
    }
  });

  it("counts one turn's requests exactly, in one script when Redis counts", async () => {
    const keyPrefix = `appmeta:test:${randomBytes(6).toString('hex')}`;
    const rl = limiter({ keyPrefix });
    await firstTake(rl, 'org:warm', 100);
    const errors = rl.metrics.storeErrors;
    const redisUrl = testRedisUrl();
    const scripts: string[][] = [];
    // monitor() opens a connection of its own: both are closed at the end.
    const client = redisUrl === null ? null : new Redis(redisUrl);
    const monitor = client === null ? null : await client.monitor();
    monitor?.on('monitor', (_time: string, args: string[]) => {
      // The scripts as sent (MONITOR also shows the commands they run inside Redis).
      if (/^eval/i.test(args[0]!) && args.some((arg) => arg.startsWith(keyPrefix))) scripts.push(args);
    });
    try {
      const takes = await Promise.all([
        ...Array.from({ length: 20 }, () => rl.take('org:a', 100)),
        rl.take('org:b', 100, 3),
        rl.take('org:a', 100, 2),
      ]);
      expect(rl.metrics.storeErrors).toBe(errors);
      // Each of org:a's 20 single takes saw a count of its own, in order, then the take of 2.
      expect(takes.slice(0, 20).map((d) => d.remaining)).toEqual(
        Array.from({ length: 20 }, (_, i) => 99 - i),
      );
      expect(takes[20]).toMatchObject({ remaining: 97 });
      expect(takes[21]).toMatchObject({ remaining: 78 });
      if (monitor !== null) {
        // MONITOR reports commands in the order Redis ran them: once a later one is seen, so is the batch.
        await rl.take('org:c', 100);
        const seen = (suffix: string) => scripts.filter((args) => args.some((arg) => arg.endsWith(suffix)));
        for (let wait = 0; wait < 100 && seen(':org:c').length === 0; wait++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(seen(':org:c')).toHaveLength(1);
        expect(seen(':org:a')).toHaveLength(1);
      }
    } finally {
      monitor?.disconnect();
      client?.disconnect();
    }
  });

  it('counts a turn larger than one script carries exactly', async () => {
    const rl = limiter();
    await firstTake(rl, 'org:warm', 1000);
    const takes = await Promise.all(Array.from({ length: 600 }, () => rl.take('org:big', 1000)));
    expect(takes.map((d) => d.remaining)).toEqual(Array.from({ length: 600 }, (_, i) => 999 - i));
  });

  it('opens a new window once the old one ended (in process)', async () => {
    let now = 1_000_000;
    const rl = createRateLimiter({ redisUrl: null, log, now: () => now });
    opened.push(rl);
    await rl.take('org:a', 2);
    await rl.take('org:a', 2);
    expect((await rl.take('org:a', 2)).allowed).toBe(false);
    now += 59_999;
    expect(await rl.take('org:a', 2)).toMatchObject({ allowed: false, retryAfter: 1 });
    now += 1;
    const fresh = await rl.take('org:a', 2);
    expect(fresh).toMatchObject({ allowed: true, remaining: 1, resetAt: Math.ceil((now + 60_000) / 1000) });
  });
});
