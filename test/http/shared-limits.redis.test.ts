/** Shared budgets across instances and Redis outages: run only in the PostgreSQL + Redis run. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDb } from '../../src/db/database.js';
import { createRateLimiter } from '../../src/http/rate-limiter.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('several instances sharing PostgreSQL and Redis', () => {
  it('shares one budget and one dataset between two instances on two ports', async () => {
    const keyPrefix = `appmeta:test:${randomBytes(6).toString('hex')}`;
    const logger = pino({ level: 'silent' });
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const db = createDb(h.config.database);
        const rateLimiter = createRateLimiter({
          redisUrl: process.env.APPMETA_TEST_REDIS_URL!,
          log: logger,
          keyPrefix,
        });
        const { app } = await buildApp({ config: h.config, db, logger, rateLimiter });
        const url = await app.listen({ port: 0, host: '127.0.0.1' });
        return { app, db, rateLimiter, url };
      }),
    );
    try {
      const org = await h.given.organization({ plan: 'free' });
      const headers = { authorization: `Bearer ${org.admin.apiKey}`, 'content-type': 'application/json' };
      const created = await fetch(`${instances[0]!.url}/api/v1/projects`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Shared' }),
      });
      const projectId = ((await created.json()) as any).data.projectId;
      const seen = await fetch(`${instances[1]!.url}/api/v1/projects/${projectId}`, { headers });
      expect(((await seen.json()) as any).data.project.name).toBe('Shared');

      const statuses = await Promise.all(
        Array.from({ length: 120 }, (_, i) =>
          fetch(`${instances[i % 2]!.url}/api/v1/organization`, { headers }).then((r) => r.status),
        ),
      );
      // 2 requests above + 120 here against one budget of 100.
      expect(statuses.filter((s) => s === 200)).toHaveLength(98);
      expect(statuses.filter((s) => s === 429)).toHaveLength(22);
    } finally {
      for (const instance of instances) {
        await instance.app.close();
        await instance.rateLimiter.close();
        await instance.db.destroy();
      }
    }
  });

  it('keeps answering while Redis is down (fail open, logged, counted) and counts again when it returns', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(line) });
    const rateLimiter = createRateLimiter({
      redisUrl: `redis://127.0.0.1:${port}`,
      log: logger,
      keyPrefix: 'appmeta:failopen',
    });
    const db = createDb(h.config.database);
    const config = { ...h.config, metricsToken: 'failopen-metrics-token' };
    const { app } = await buildApp({ config, db, logger, rateLimiter });
    try {
      await waitFor(
        async () => (await app.inject({ url: '/api/nothing' })).headers['x-ratelimit-remaining'] === '98',
      );
      redis.kill('SIGKILL');
      await new Promise((resolve) => redis.once('exit', resolve));
      const during = await app.inject({ url: '/api/nothing' });
      expect(during.statusCode).toBe(404);
      expect(during.headers['x-ratelimit-limit']).toBe('100');
      expect(rateLimiter.metrics.storeErrors).toBeGreaterThan(0);
      expect(lines.join('')).toContain('rate-limit store unreachable');
      const metrics = await app.inject({
        url: '/metrics',
        headers: { authorization: `Bearer ${config.metricsToken}` },
      });
      expect(metrics.body).toMatch(/appmeta_rate_limit_store_errors_total [1-9]/);

      redis = await startRedis(port);
      // Counting resumes from zero in the restarted (empty) Redis.
      await waitFor(
        async () => (await app.inject({ url: '/api/nothing' })).headers['x-ratelimit-remaining'] === '98',
      );
    } finally {
      await app.close();
      await rateLimiter.close();
      await db.destroy();
      redis.kill('SIGKILL');
    }
  });
});

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: 'ignore',
    },
  );
  await waitFor(
    () =>
      new Promise((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => (socket.destroy(), resolve(true)));
        socket.on('error', () => resolve(false));
      }),
  );
  return child;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('condition not met in time');
}
