/**
 * Scenario 6 of `npm run bench` (design.md §11), per database:
 *
 * - event → webhook latency while the service serves scenario 1's load (50 connections listing
 *   projects): a listing edit every 50 ms, each `listing.updated` delivered to a local receiver;
 *   latency = arrival − the event's timestamp.
 * - jobs per second the queue sustains: 5,000 jobs with a no-op handler, drained by one instance's
 *   workers.
 * - 10 projects pushed in the background at once against 10 apps (100 ms per store call), beside
 *   the same 10 pushed one after another.
 */
import type { ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type autocannon from 'autocannon';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb, type Db } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createEmulators } from '../src/emulators/server.js';
import { createRateLimiter } from '../src/http/rate-limiter.js';
import { createJobQueue } from '../src/jobs/index.js';
import { createServices } from '../src/services.js';
import { systemClock } from '../src/shared/clock.js';
import { createKeyRing } from '../src/shared/key-ring.js';
import { startWorker } from '../src/worker.js';
import { appStoreCredentials } from '../test/support/store-keys.js';

export interface BackgroundResult {
  database: string;
  webhookLatency: { deliveries: number; p50: number; p99: number; max: number; loadRps: number };
  jobsPerSecond: number;
  pushes: { projects: number; locales: number; concurrentMs: number; sequentialMs: number };
}

export interface BenchTools {
  secret: string;
  bin: string;
  redis: string;
  createDatabase(kind: 'sqlite' | 'postgres'): Promise<{ url: string; drop(): Promise<void> }>;
  seedProjects(db: Db, organizationId: string, count: number): Promise<void>;
  startProcess(command: string, args: string[], env: Record<string, string>): ChildProcess;
  waitHealthy(url: string): Promise<void>;
  freePort(): Promise<number>;
  cannon(options: autocannon.Options): Promise<{ rps: number; p50: number; p99: number; non2xx: number }>;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export async function runBackground(
  kind: 'sqlite' | 'postgres',
  tools: BenchTools,
): Promise<BackgroundResult> {
  return {
    database: kind,
    webhookLatency: await webhookLatency(kind, tools),
    jobsPerSecond: await jobsPerSecond(kind, tools),
    pushes: await backgroundPushes(kind, tools),
  };
}

async function webhookLatency(kind: 'sqlite' | 'postgres', tools: BenchTools) {
  const database = await tools.createDatabase(kind);
  const env = {
    DATABASE_URL: database.url,
    APPMETA_SECRET_KEY: tools.secret,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...(kind === 'postgres' && { REDIS_URL: tools.redis }),
  };
  const config = loadConfig(env);
  const db = createDb(config.database);
  await migrateToLatest(db);
  const services = createServices({
    db,
    clock: systemClock,
    config,
    keyRing: createKeyRing(Buffer.from(tools.secret, 'base64')),
  });
  // The load of scenario 1, spread over organizations so that no rate limit refuses it.
  const loadKeys: string[] = [];
  for (let i = 0; i < 30; i++) {
    const org = await services.organizations.create(
      { name: `Load ${i}`, adminEmail: `load${i}@example.com`, plan: 'enterprise' },
      'cli:bench',
    );
    await tools.seedProjects(db, org.organization.id, 1000);
    loadKeys.push(org.apiKey);
  }
  const events = await services.organizations.create(
    { name: 'Events', adminEmail: 'events@example.com', plan: 'enterprise' },
    'cli:bench',
  );
  await services.queue.close();
  await db.destroy();

  const arrivals: number[] = [];
  const receiver = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { timestamp: string };
      arrivals.push(Date.now() - Date.parse(body.timestamp));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const port = await tools.freePort();
  const service = tools.startProcess(process.execPath, [tools.bin, 'serve'], { ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  try {
    await tools.waitHealthy(url);
    const call = async (method: string, route: string, body: unknown) =>
      (await (
        await fetch(`${url}/api/v1${route}`, {
          method,
          headers: { authorization: `Bearer ${events.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as { data: Record<string, any> };
    await call('POST', '/organization/webhooks', { url: receiverUrl, events: ['listing.updated'] });
    const project = (await call('POST', '/projects', { name: 'Events', appStoreAppId: '1' })).data.projectId;
    let edits = 0;
    let editing = true;
    const editor = (async () => {
      while (editing) {
        edits += 1;
        await call('PATCH', `/projects/${project}/listings/appstore/en-US`, { subtitle: `Edit ${edits}` });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const load = await tools.cannon({
      url,
      requests: loadKeys.map((key) => ({
        method: 'GET' as const,
        path: '/api/v1/projects?limit=20',
        headers: { authorization: `Bearer ${key}` },
      })),
    });
    editing = false;
    await editor;
    const deadline = Date.now() + 10_000;
    while (arrivals.length < edits && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (arrivals.length < edits) throw new Error(`only ${arrivals.length} of ${edits} webhooks arrived`);
    const sorted = [...arrivals].sort((a, b) => a - b);
    return {
      deliveries: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.at(-1)!,
      loadRps: load.rps,
    };
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    receiver.close();
    await database.drop();
  }
}

async function jobsPerSecond(kind: 'sqlite' | 'postgres', tools: BenchTools) {
  const database = await tools.createDatabase(kind);
  const config = loadConfig({ DATABASE_URL: database.url, APPMETA_SECRET_KEY: tools.secret });
  const db = createDb(config.database);
  await migrateToLatest(db);
  const queue = createJobQueue(db, config.database);
  const total = 5_000;
  try {
    for (let i = 0; i < total; i += 100) {
      await db.kysely.transaction().execute(async (trx) => {
        for (let j = i; j < i + 100; j++)
          await queue.enqueue(trx, 'webhook.deliver', { deliveryId: `d${j}` });
      });
    }
    let done = 0;
    const started = performance.now();
    const noop = async () => {
      done += 1;
    };
    await queue.work(
      { 'webhook.deliver': noop, 'operation.run': noop, 'drift.check': noop },
      pino({ level: 'silent' }),
    );
    while (done < total) await new Promise((resolve) => setTimeout(resolve, 20));
    return Math.round(total / ((performance.now() - started) / 1000));
  } finally {
    await queue.close();
    await db.destroy();
    await database.drop();
  }
}

async function backgroundPushes(kind: 'sqlite' | 'postgres', tools: BenchTools) {
  const apple = appStoreCredentials();
  const projectsCount = 10;
  const locales = ['en-US', 'de-DE', 'fr-FR', 'es-ES', 'it', 'ja', 'ko', 'nl-NL', 'pt-BR', 'sv'];
  const emulators = createEmulators({
    appstore: {
      keys: [{ issuerId: apple.issuerId, keyId: apple.keyId, publicKey: apple.publicKey }],
      apps: Array.from({ length: projectsCount }, (_, i) => ({
        id: String(i + 1),
        bundleId: `com.bench.app${i}`,
        name: `Bench ${i}`,
        appInfos: [{ id: `info${i}`, state: 'PREPARE_FOR_SUBMISSION', localizations: {} }],
        versions: [{ id: `v${i}`, versionString: '1.0', appVersionState: 'PREPARE_FOR_SUBMISSION' }],
      })),
    },
  });
  const emulatorUrl = await emulators.app.listen({ port: 0, host: '127.0.0.1' });
  const database = await tools.createDatabase(kind);
  const config = loadConfig({
    DATABASE_URL: database.url,
    APPMETA_SECRET_KEY: tools.secret,
    APPSTORE_API_URL: emulatorUrl,
    LOG_LEVEL: 'silent',
  });
  const db = createDb(config.database);
  await migrateToLatest(db);
  const logger = pino({ level: 'silent' });
  const { app, services } = await buildApp({
    config,
    db,
    logger,
    rateLimiter: createRateLimiter({ redisUrl: null, log: logger }),
    keyRing: createKeyRing(Buffer.from(tools.secret, 'base64')),
  });
  const worker = await startWorker(services, logger);
  try {
    const org = await services.organizations.create(
      { name: 'Pushes', adminEmail: 'pushes@example.com', plan: 'enterprise' },
      'cli:bench',
    );
    const call = async (
      method: 'GET' | 'POST' | 'PATCH' | 'PUT',
      url: string,
      body?: unknown,
      prefer?: string,
    ) =>
      JSON.parse(
        (
          await app.inject({
            method,
            url,
            headers: {
              authorization: `Bearer ${org.apiKey}`,
              'content-type': 'application/json',
              ...(prefer !== undefined && { prefer }),
            },
            payload: JSON.stringify(body ?? {}),
          })
        ).body,
      ) as { data: any };
    await call('PUT', '/api/v1/organization/credentials/appstore', {
      issuerId: apple.issuerId,
      keyId: apple.keyId,
      privateKey: apple.privateKey,
    });
    const projects: string[] = [];
    for (let i = 0; i < projectsCount; i++) {
      projects.push(
        (await call('POST', '/api/v1/projects', { name: `P${i}`, appStoreAppId: String(i + 1) })).data
          .projectId,
      );
    }
    const editAll = async (text: string) => {
      for (const project of projects) {
        for (const locale of locales) {
          await call('PATCH', `/api/v1/projects/${project}/listings/appstore/${locale}`, {
            description: text,
          });
        }
      }
    };
    emulators.faults.set([{ route: '* /v1/*', latencyMs: 100 }]);

    await editAll('One after another');
    let started = performance.now();
    for (const project of projects) {
      const result = await call('POST', `/api/v1/projects/${project}/push`, {});
      if (result.data.pushedLocales.length !== locales.length)
        throw new Error('a sequential push fell short');
    }
    const sequentialMs = Math.round(performance.now() - started);

    await editAll('All at once');
    started = performance.now();
    const operations = await Promise.all(
      projects.map(async (project) => ({
        project,
        id: (await call('POST', `/api/v1/projects/${project}/push`, {}, 'respond-async')).data.operation
          .id as string,
      })),
    );
    for (const { project, id } of operations) {
      for (;;) {
        const operation = (await call('GET', `/api/v1/projects/${project}/operations/${id}`)).data.operation;
        if (operation.status === 'succeeded') break;
        if (operation.status !== 'queued' && operation.status !== 'running') {
          throw new Error(`a background push ended ${operation.status}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    const concurrentMs = Math.round(performance.now() - started);
    return { projects: projectsCount, locales: locales.length, concurrentMs, sequentialMs };
  } finally {
    await worker.stop();
    await app.close();
    await db.destroy();
    await database.drop();
    await emulators.app.close();
  }
}
