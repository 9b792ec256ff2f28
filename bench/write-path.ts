/**
 * Scenario 10 of `npm run bench` (#50), per database: the write path under 50 concurrent editors.
 * Each editor is a member of its own organization (so that no rate limit is what limits the run)
 * and edits one listing field of its own project as fast as the service answers, for
 * BENCH_SECONDS; every organization has a webhook endpoint for `listing.updated` on a local
 * receiver. Reported: edits per second, the edits' p50/p99, and the time from each edit's event
 * (stamped in the edit's transaction) to its webhook's arrival — p50, p99, max — with the time the
 * deliveries took to catch up after the last edit; then the same for the editors at a paced
 * PACED_EDITS_PER_SECOND in all. One edit per editor, delivered, comes first.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createServices } from '../src/services.js';
import { systemClock } from '../src/shared/clock.js';
import { createKeyRing } from '../src/shared/key-ring.js';
import type { BenchTools } from './background.js';

const EDITORS = 50;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** BENCH_PROFILE=<dir>, as for the other scenarios: a V8 CPU profile of the service, written at its exit. */
const PROFILE_DIR = process.env.BENCH_PROFILE;

/**
 * The paced run's rate, all editors together: 3 edits a second each, far beyond what people
 * type, and below what an instance delivers on either database on the bench machine.
 */
const PACED_EDITS_PER_SECOND = 150;

export interface WritePathLoad {
  edits: number;
  editsPerSecond: number;
  edit: { p50: number; p99: number };
  webhook: { deliveries: number; p50: number; p99: number; max: number; drainMs: number };
}

export interface WritePathResult extends WritePathLoad {
  database: string;
  editors: number;
  /** The same editors at PACED_EDITS_PER_SECOND in all, after the unthrottled run has drained. */
  paced: WritePathLoad & { target: number };
  /** The slowest delivery of the warm-up's edits (one per editor, all at once). */
  warmUpMs: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export async function runWritePath(kind: 'sqlite' | 'postgres', tools: BenchTools): Promise<WritePathResult> {
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
  const keys: string[] = [];
  for (let i = 0; i < EDITORS; i++) {
    const created = await services.organizations.create(
      { name: `Editors ${i}`, adminEmail: `editor${i}@example.com`, plan: 'enterprise' },
      'cli:bench',
    );
    keys.push(created.apiKey);
  }
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
  const service = tools.startProcess(
    process.execPath,
    [
      ...(PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`]),
      tools.bin,
      'serve',
    ],
    { ...env, PORT: String(port) },
  );
  const url = `http://127.0.0.1:${port}`;
  const call = async (key: string, method: string, route: string, body: unknown) => {
    const response = await fetch(`${url}/api/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { data: Record<string, any> };
  };
  try {
    await tools.waitHealthy(url);
    const projects: string[] = [];
    for (const key of keys) {
      await call(key, 'POST', '/organization/webhooks', { url: receiverUrl, events: ['listing.updated'] });
      projects.push(
        (await call(key, 'POST', '/projects', { name: 'Editor', appStoreAppId: '1' })).data.projectId,
      );
    }
    // One edit per editor first, delivered before the measurement starts: each editor's first
    // request opens its connection and the route's first request compiles its schemas.
    await Promise.all(
      keys.map((key, i) =>
        call(key, 'PATCH', `/projects/${projects[i]}/listings/appstore/en-US`, { subtitle: 'Warm-up' }),
      ),
    );
    const warmUpDeadline = Date.now() + 60_000;
    while (arrivals.length < EDITORS && Date.now() < warmUpDeadline)
      await new Promise((r) => setTimeout(r, 20));
    const warmUpMs = arrivals.length === 0 ? 0 : Math.max(...arrivals);

    /** Every editor edits for SECONDS, as fast as answered, or each at its share of `rate`. */
    const load = async (rate: number | null): Promise<WritePathLoad> => {
      arrivals.length = 0;
      const latencies: number[] = [];
      const interval = rate === null ? 0 : (EDITORS / rate) * 1000;
      const until = Date.now() + SECONDS * 1000;
      const started = performance.now();
      await Promise.all(
        keys.map(async (key, i) => {
          // Paced editors start spread over one interval, so that their edits do not come in waves.
          let next = started + (interval * i) / EDITORS;
          for (let n = 1; Date.now() < until; n++) {
            const wait = next - performance.now();
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
            next += interval;
            const sent = performance.now();
            await call(key, 'PATCH', `/projects/${projects[i]}/listings/appstore/en-US`, {
              subtitle: `Edit ${n}`,
            });
            latencies.push(performance.now() - sent);
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      const edits = latencies.length;
      const lastEdit = Date.now();
      const deadline = lastEdit + 120_000;
      while (arrivals.length < edits && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      if (arrivals.length < edits) throw new Error(`only ${arrivals.length} of ${edits} webhooks arrived`);
      const drainMs = Date.now() - lastEdit;
      const sortedEdits = [...latencies].sort((a, b) => a - b);
      const sorted = [...arrivals].sort((a, b) => a - b);
      return {
        edits,
        editsPerSecond: Math.round(edits / seconds),
        edit: { p50: Math.round(percentile(sortedEdits, 50)), p99: Math.round(percentile(sortedEdits, 99)) },
        webhook: {
          deliveries: sorted.length,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          max: sorted.at(-1)!,
          drainMs,
        },
      };
    };

    const unthrottled = await load(null);
    const paced = await load(PACED_EDITS_PER_SECOND);
    return {
      database: kind,
      editors: EDITORS,
      ...unthrottled,
      paced: { ...paced, target: PACED_EDITS_PER_SECOND },
      warmUpMs,
    };
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    receiver.close();
    await database.drop();
  }
}
