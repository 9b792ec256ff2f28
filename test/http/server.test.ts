import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createDb } from '../../src/db/database.js';
import { startServer } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { APP_ID, startEmulators } from '../support/emulators.js';
import { TEST_SECRET_KEY } from '../support/harness.js';
import { printedAdminKey, serve } from '../support/serve.js';

let dir: string;
let database: TestDatabase;

// Each test gets an empty database: "first start" must not depend on which test ran first.
beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-serve-'));
  database = await createTestDatabase({ file: path.join(dir, 'serve.db') });
});
afterEach(async () => {
  await database.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

const serveHere = () => serve({ DATABASE_URL: database.url, APPMETA_SECRET_KEY: TEST_SECRET_KEY });

describe('appmeta serve', () => {
  it('creates the default organization on first start and prints its admin key once; SIGTERM exits 0', async () => {
    const first = serveHere();
    const url = await first.listening;
    const key = printedAdminKey(first);
    expect(key).toBeDefined();
    expect(first.output().stdout).toContain(`  export APPMETA_KEY=${printedAdminKey(first)}\n`);
    // The address to reach it, for the README's examples and the CLI (PUBLIC_URL).
    expect(first.output().stdout).toMatch(/ {2}export APPMETA_URL=http:\/\/localhost:\d+\n/);
    const org = (await (
      await fetch(`${url}/api/v1/organization`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as any;
    expect(org.data).toMatchObject({ name: 'Default', plan: 'enterprise', memberCount: 1 });
    expect(first.output().stderr).not.toContain(key!);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output().stderr).toContain('stopped');

    const second = serveHere();
    await second.listening;
    expect(second.output().stdout).not.toContain('amk_');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('serves the API, its reference page and the dashboard from the built bundle', async () => {
    const served = serveHere();
    try {
      const url = await served.listening;
      const get = async (path: string) => {
        const res = await fetch(`${url}${path}`);
        return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
      };
      expect(await get('/api/v1/openapi.json')).toMatchObject({ status: 200, body: /"openapi":"3\.1\.0"/ });
      expect(await get('/docs/')).toMatchObject({ status: 200, body: /swagger-ui\.css/ });
      const css = await get('/docs/static/swagger-ui.css');
      expect(css).toMatchObject({ status: 200, type: /text\/css/ });
      expect(css.body.length).toBeGreaterThan(10_000);
      expect(await get('/')).toMatchObject({ status: 200, body: /<div id="root">/ });
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  });

  it('finishes an in-flight request during shutdown and refuses new connections', async () => {
    const config = loadConfig({
      DATABASE_URL: database.url,
      APPMETA_SECRET_KEY: TEST_SECRET_KEY,
      PORT: '0',
      LOG_LEVEL: 'silent',
    });
    const server = await startServer(config, { logger: pino({ level: 'silent' }), print: () => undefined });
    const port = new URL(server.url).port;
    // An org to authenticate with, made through the operator path.
    const created = await server.services.organizations.create(
      {
        name: 'Shutdown',
        adminEmail: 'shutdown@example.com',
      },
      'cli:test',
    );
    const body = JSON.stringify({ name: 'Created during shutdown' });
    const inFlight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/api/v1/projects',
          headers: {
            authorization: `Bearer ${created.apiKey}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      request.on('error', reject);
      // Send half the body now, the rest once shutdown has begun.
      request.write(body.slice(0, 10));
      setTimeout(() => request.end(body.slice(10)), 300);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopped = server.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    const finished = await inFlight;
    expect(finished.status).toBe(201);
    expect(JSON.parse(finished.body).data.project.name).toBe('Created during shutdown');
    await stopped;
  });

  it('lets a request whose client went away finish its work before the database closes', async () => {
    const emu = await startEmulators();
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const config = loadConfig({
      DATABASE_URL: database.url,
      APPMETA_SECRET_KEY: TEST_SECRET_KEY,
      PORT: '0',
      ...emu.env,
    });
    const server = await startServer(config, { logger, print: () => undefined });
    try {
      const created = await server.services.organizations.create(
        {
          name: 'Abandoned',
          adminEmail: 'abandoned@example.com',
        },
        'cli:test',
      );
      const call = async (method: string, path: string, body: unknown) =>
        (await (
          await fetch(`${server.url}${path}`, {
            method,
            headers: { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json()) as any;
      await call('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore);
      const project = (await call('POST', '/api/v1/projects', { name: 'Abandoned', appStoreAppId: APP_ID }))
        .data.projectId as string;

      // A sync whose store calls take 150 ms each; its client gives up after 100 ms, and the
      // server is stopped right then.
      emu.faults.set([{ route: '* /v1/*', latencyMs: 150 }]);
      const request = http.request(`${server.url}/api/v1/projects/${project}/sync`, {
        method: 'POST',
        headers: { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' },
      });
      request.on('error', () => undefined);
      request.end('{}');
      await new Promise((resolve) => setTimeout(resolve, 100));
      request.destroy();
      await server.stop();

      expect(lines.filter((line) => line.includes('"level":50'))).toEqual([]);
      // The sync ran to its end: the operation is recorded as finished, not left running.
      const db = createDb(config.database);
      const operations = await db.kysely
        .selectFrom('operations')
        .select(['status', 'finished_at'])
        .where('project_id', '=', project)
        .execute();
      await db.destroy();
      expect(operations).toHaveLength(1);
      expect(operations[0]!.status).toBe('succeeded');
      expect(operations[0]!.finished_at).not.toBeNull();
    } finally {
      await server.stop();
      await emu.close();
    }
  });
});
