/**
 * The suite runs once per database: "sqlite" always, "postgres" (with Redis as the rate-limit
 * store) when PostgreSQL is reachable; *.sqlite.test.ts files run in the first only. CI sets
 * APPMETA_REQUIRE_POSTGRES=1, which turns an unreachable PostgreSQL or Redis into a failure
 * instead of a skipped run.
 *
 * Files and the tests inside them run in a shuffled order, so that no test can lean on another
 * one having run first; the seed is printed and APPMETA_TEST_SEED=<seed> replays an order.
 * Every PostgreSQL database a run creates carries the run's id, and the global teardown drops
 * whatever is left of them, also when a test failed before its own cleanup.
 */
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

const PG_URL = process.env.APPMETA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.APPMETA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function reachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.setTimeout(1_000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
  });
}

export default defineConfig(async () => {
  const required = process.env.APPMETA_REQUIRE_POSTGRES === '1';
  const [pg, redis] = await Promise.all([reachable(PG_URL), reachable(REDIS_URL)]);
  // Read by the global setup (same process) and by every test worker (through test.env).
  process.env.APPMETA_TEST_RUN ??= randomBytes(4).toString('hex');
  // Vitest evaluates this file more than once per run: the seed is drawn and printed once.
  if (process.env.APPMETA_TEST_SEED === undefined) {
    process.env.APPMETA_TEST_SEED = String(Math.floor(Math.random() * 2 ** 31));
    const seed = process.env.APPMETA_TEST_SEED;
    console.log(`test order seed: ${seed} (replay this order with APPMETA_TEST_SEED=${seed} npm test)`);
  }
  const seed = Number(process.env.APPMETA_TEST_SEED);
  const env = { APPMETA_TEST_RUN: process.env.APPMETA_TEST_RUN };
  const projects: TestProjectInlineConfiguration[] = [
    {
      extends: true,
      // *.redis.test.ts and *.postgres.test.ts need a shared server (Redis, PostgreSQL): that run only.
      test: {
        name: 'sqlite',
        env: { ...env, APPMETA_TEST_DB: 'sqlite' },
        exclude: ['test/**/*.redis.test.ts', 'test/**/*.postgres.test.ts'],
      },
    },
  ];
  if (pg && redis) {
    projects.push({
      extends: true,
      test: {
        name: 'postgres',
        // *.sqlite.test.ts is about the embedded default itself (the README's first start).
        exclude: ['test/**/*.sqlite.test.ts'],
        env: {
          ...env,
          APPMETA_TEST_DB: 'postgres',
          APPMETA_TEST_PG_URL: PG_URL,
          APPMETA_TEST_REDIS_URL: REDIS_URL,
        },
      },
    });
  } else if (required) {
    throw new Error(
      `APPMETA_REQUIRE_POSTGRES=1 but ${pg ? '' : `PostgreSQL (${PG_URL}) `}${redis ? '' : `Redis (${REDIS_URL})`} is not reachable`,
    );
  } else {
    console.warn(
      `\n*** SKIPPING the PostgreSQL + Redis run: ${pg ? 'Redis' : 'PostgreSQL'} is not reachable. ***\n`,
    );
  }
  return {
    test: {
      projects,
      include: ['test/**/*.test.ts'],
      globalSetup: ['test/support/build.ts', ...(pg ? ['test/support/global-setup.ts'] : [])],
      sequence: { shuffle: true, seed },
      testTimeout: 30_000,
      hookTimeout: 30_000,
      pool: 'forks' as const,
      // Test files share their worker's module cache: each file still gets its own app, database
      // and harness, but the service's modules are imported once per worker instead of once per
      // file (import time 169 s → 20 s of a run; BENCHMARKS.md, "The suite").
      isolate: false,
    },
  };
});
