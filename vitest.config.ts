/**
 * The suite runs once per database: "sqlite" always, "postgres" (with Redis as the rate-limit
 * store) when PostgreSQL is reachable. CI sets APPMETA_REQUIRE_POSTGRES=1, which turns an
 * unreachable PostgreSQL or Redis into a failure instead of a skipped run.
 */
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
  const projects: TestProjectInlineConfiguration[] = [
    {
      extends: true,
      // *.redis.test.ts and *.postgres.test.ts need a shared server (Redis, PostgreSQL): that run only.
      test: {
        name: 'sqlite',
        env: { APPMETA_TEST_DB: 'sqlite' },
        exclude: ['test/**/*.redis.test.ts', 'test/**/*.postgres.test.ts'],
      },
    },
  ];
  if (pg && redis) {
    projects.push({
      extends: true,
      test: {
        name: 'postgres',
        env: { APPMETA_TEST_DB: 'postgres', APPMETA_TEST_PG_URL: PG_URL, APPMETA_TEST_REDIS_URL: REDIS_URL },
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
      testTimeout: 30_000,
      hookTimeout: 30_000,
      pool: 'forks' as const,
    },
  };
});
