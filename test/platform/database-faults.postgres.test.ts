/**
 * PostgreSQL going away under load: backends terminated (failover, proxy idle timeout,
 * pg_terminate_backend) and a server restart. The service is a real `appmeta serve` process: it
 * must stay up, answer 503 SERVICE_UNAVAILABLE with Retry-After (never 500, never a dropped
 * connection) while the database is gone, be ready again after, and keep every write it confirmed.
 */
import net from 'node:net';
import { sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/database.js';
import { adminUrl, createTestDatabase, type TestDatabase } from '../support/databases.js';
import { startHarness, TEST_SECRET_KEY } from '../support/harness.js';
import { createPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.js';
import { printedAdminKey, serve } from '../support/serve.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startService(databaseUrl: string) {
  const served = serve({ DATABASE_URL: databaseUrl, APPMETA_SECRET_KEY: TEST_SECRET_KEY });
  cleanups.push(async () => {
    if (served.child.exitCode === null) {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  });
  const url = await served.listening;
  const key = printedAdminKey(served);
  if (key === undefined) throw new Error('the first start printed no admin key');
  return { served, url, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } };
}

interface LoadReport {
  ok: number;
  unavailable: number;
  /** Anything else: 500s, other statuses, dropped connections. Must stay empty. */
  unexpected: string[];
  /** Projects whose creation was confirmed (201). */
  created: string[];
}

/** Eight clients reading pages and creating projects until `stop()`. */
function steadyLoad(url: string, headers: Record<string, string>) {
  const report: LoadReport = { ok: 0, unavailable: 0, unexpected: [], created: [] };
  let running = true;
  const client = async (n: number) => {
    for (let i = 0; running; i++) {
      const write = i % 3 === 0;
      try {
        const res = write
          ? await fetch(`${url}/api/v1/projects`, {
              method: 'POST',
              headers,
              body: JSON.stringify({ name: `load ${n}-${i}` }),
            })
          : await fetch(`${url}/api/v1/projects?limit=5`, { headers });
        const body = (await res.json()) as any;
        if (res.status < 300) {
          report.ok += 1;
          if (write) report.created.push(body.data.projectId);
        } else if (
          res.status === 503 &&
          body.error.code === 'SERVICE_UNAVAILABLE' &&
          Number(res.headers.get('retry-after')) > 0
        ) {
          report.unavailable += 1;
          await new Promise((resolve) => setTimeout(resolve, 20));
        } else {
          report.unexpected.push(`${res.status} ${JSON.stringify(body)}`);
        }
      } catch (error) {
        report.unexpected.push(`no response: ${(error as Error).message}`);
      }
    }
  };
  const done = Promise.all(Array.from({ length: 8 }, (_, n) => client(n)));
  return {
    report,
    stop: async () => {
      running = false;
      await done;
      return report;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function readiness(url: string) {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, body: (await res.json()) as any };
}

async function waitUntilReady(url: string) {
  for (let attempt = 0; attempt < 100; attempt++) {
    if ((await readiness(url)).status === 200) return;
    await sleep(100);
  }
  throw new Error('the service did not become ready again');
}

/** After the fault: every request succeeds and every confirmed project is still there. */
async function expectHealthyAndComplete(
  service: Awaited<ReturnType<typeof startService>>,
  report: LoadReport,
) {
  const { url, headers, served } = service;
  expect(report.unexpected).toEqual([]);
  expect(report.ok).toBeGreaterThan(20);
  expect(report.created.length).toBeGreaterThan(5);
  expect(served.child.exitCode).toBeNull();

  const after = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0
        ? fetch(`${url}/api/v1/projects?limit=1`, { headers })
        : fetch(`${url}/api/v1/projects`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ name: `after ${i}` }),
          }),
    ),
  );
  expect(after.map((res) => res.status).filter((status) => status >= 300)).toEqual([]);

  const stored = new Set<string>();
  for (let offset = 0; ; offset += 100) {
    const page = (await (
      await fetch(`${url}/api/v1/projects?limit=100&offset=${offset}`, { headers })
    ).json()) as any;
    for (const project of page.data.projects) stored.add(project.id);
    if (page.data.projects.length < 100) break;
  }
  expect(report.created.filter((id) => !stored.has(id))).toEqual([]);
  expect(served.output().stderr).not.toMatch(/uncaught|unhandled/i);
}

describe('PostgreSQL connection loss (a real appmeta serve process)', () => {
  it('survives every backend being terminated several times under load', async () => {
    const database: TestDatabase = await createTestDatabase();
    cleanups.push(() => database.drop());
    const service = await startService(database.url);
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    cleanups.push(() => admin.end());

    const load = steadyLoad(service.url, service.headers);
    await sleep(300);
    let terminated = 0;
    for (let round = 0; round < 4; round++) {
      const { rowCount } = await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      terminated += rowCount ?? 0;
      await sleep(250);
    }
    const report = await load.stop();
    expect(terminated).toBeGreaterThan(4);
    await waitUntilReady(service.url);
    await expectHealthyAndComplete(service, report);
  });

  it('survives a PostgreSQL restart under load, and /readyz says so while it is down', async () => {
    const cluster: PostgresCluster = await createPostgresCluster();
    cleanups.push(() => cluster.destroy());
    const service = await startService(cluster.url);

    const load = steadyLoad(service.url, service.headers);
    await sleep(400);
    await cluster.stop();
    await sleep(300);
    const down = await readiness(service.url);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ success: false, error: { code: 'SERVICE_UNAVAILABLE' } });
    await cluster.start();
    await waitUntilReady(service.url);
    await sleep(300);
    const report = await load.stop();
    expect(report.unavailable).toBeGreaterThan(0);
    await expectHealthyAndComplete(service, report);
  });
});

describe('PostgreSQL refusing new connections', () => {
  it('answers 503 with Retry-After (never 500) while the database accepts none, and serves again after', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const h = await startHarness({ database });
    cleanups.push(() => h.close());
    const org = await h.given.organization();
    const name = new URL(database.url).pathname.slice(1);
    const admin = new pg.Client({ connectionString: adminUrl() });
    await admin.connect();
    cleanups.push(async () => {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
    });
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
    for (const request of [
      () => org.admin.api.get('/api/v1/projects'),
      () => org.admin.api.post('/api/v1/projects', { name: 'Refused' }),
      () => h.client().get('/readyz'),
    ]) {
      const res = await request();
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBeDefined();
    }
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    expect((await org.admin.api.post('/api/v1/projects', { name: 'Accepted' })).status).toBe(201);
  });
});

/**
 * A TCP proxy to PostgreSQL whose first connection is ended by the server the moment it is ready:
 * the FATAL message travels in the same write as ReadyForQuery, as it does when a backend is
 * terminated just after it connected.
 */
async function proxyEndingFirstBackend(target: URL) {
  const fatal = (() => {
    const fields = Buffer.from(
      'SFATAL\0VFATAL\0C57P01\0Mterminating connection due to administrator command\0\0',
    );
    const header = Buffer.alloc(5);
    header.write('E', 0);
    header.writeInt32BE(fields.length + 4, 1);
    return Buffer.concat([header, fields]);
  })();
  let connections = 0;
  const server = net.createServer((client) => {
    const first = connections++ === 0;
    const backend = net.connect(Number(target.port), target.hostname);
    client.on('error', () => backend.destroy());
    backend.on('error', () => client.destroy());
    client.pipe(backend);
    if (!first) {
      backend.pipe(client);
      return;
    }
    let pending = Buffer.alloc(0);
    backend.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Server messages: a type byte and a length that counts itself.
      for (let at = 0; at + 5 <= pending.length;) {
        const end = at + 1 + pending.readInt32BE(at + 1);
        if (end > pending.length) break;
        if (pending[at] === 0x5a /* Z: ReadyForQuery */) {
          client.end(Buffer.concat([pending.subarray(0, end), fatal]));
          backend.destroy();
          return;
        }
        at = end;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.port = String((server.address() as net.AddressInfo).port);
  return { url: url.toString(), close: () => new Promise((resolve) => server.close(resolve)) };
}

describe('PostgreSQL connection loss at connect time', () => {
  it('survives a backend ended in the same read as its ReadyForQuery, and reads on a fresh connection', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const proxy = await proxyEndingFirstBackend(new URL(database.url));
    cleanups.push(proxy.close);
    const db = createDb({ kind: 'postgres', url: proxy.url, redisUrl: null });
    cleanups.push(() => db.destroy());
    // Before each client was watched from its 'connect' event, this error reached a client with no
    // listener and ended the process (vitest reports it as an unhandled error).
    const { rows } = await sql<{ answer: number }>`select 42 as answer`.execute(db.kysely);
    expect(rows).toEqual([{ answer: 42 }]);
  });
});
