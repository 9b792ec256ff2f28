/**
 * `npm run bench`: measures the service in production mode against a bare node:http server that
 * answers the same bytes, on SQLite and (when reachable) PostgreSQL + Redis. Prints a Markdown
 * table and writes bench/results/latest.json. See BENCHMARKS.md for a recorded run.
 */
import { freePort } from '../test/support/ports.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { createConnectorFactory } from '../src/connectors/index.js';
import { createDb, type Db } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createEmulators } from '../src/emulators/server.js';
import { createRateLimiter } from '../src/http/rate-limiter.js';
import { createServices } from '../src/services.js';
import { APPSTORE_LOCALES, mapLocale } from '../src/shared/stores.js';
import { systemClock } from '../src/shared/clock.js';
import { createKeyRing } from '../src/shared/key-ring.js';
import { appStoreCredentials, serviceAccount } from '../test/support/store-keys.js';
import { runMedia, type MediaResult } from './media.js';
import { runStoreMedia, type StoreMediaResult } from './store-media.js';
import { runProducts, type ProductsResult } from './products.js';
import { runBackground, type BackgroundResult } from './background.js';
import { runDashboard, type DashboardResult } from './dashboard.js';
import { checkPerf, PERF_NODE_ARGS, recordPerf } from './perf-record.js';
import { runWritePath, type WritePathResult } from './write-path.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const BIN = path.join(ROOT, 'bin/appmeta');
const SECRET = randomBytes(32).toString('base64');
const PG_ADMIN = process.env.APPMETA_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = process.env.APPMETA_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
/** Scenarios and databases to run, e.g. BENCH_SCENARIOS=1,3 BENCH_DATABASES=sqlite; all by default. */
const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? '1,2,3,4,5,6,7,8,9,10').split(',').map(Number));
const PROFILE_DIR = process.env.BENCH_PROFILE;
const PERF_DIR = process.env.BENCH_PERF === undefined ? undefined : path.resolve(process.env.BENCH_PERF);
/** Organizations each of scenarios 1 and 2 spreads its load over (see runDatabase). */
const ORGANIZATIONS = 30;
/** Load runs of scenario 1 per database, service and anchor taking turns; the median is reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * The framework anchors (issues #22 and #50): the minimum a correct GET /api/v1/projects?limit=20
 * does, on SQLite (Fastify + better-sqlite3) and on the scale-out stack (Fastify + pg + ioredis).
 */
const ANCHORS = {
  sqlite: path.join(ROOT, 'bench/anchor-fastify-sqlite.mjs'),
  postgres: path.join(ROOT, 'bench/anchor-fastify-pg.mjs'),
};
const DATABASES = (process.env.BENCH_DATABASES ?? 'sqlite,postgres').split(',');

interface Row {
  database: string;
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  rssMb?: number;
  bareRps?: number;
  ratio?: number;
  /** CPU time of the service per request (scenario 1). */
  cpuUs?: number;
  anchor?: { rps: number; p99: number; rssMb: number; ratio: number; cpuUs: number };
}
const rows: Row[] = [];
const notes: string[] = [];

const reachable = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = net.connect(Number(port), hostname, () => (socket.destroy(), resolve(true)));
    socket.on('error', () => resolve(false));
  });

async function waitHealthy(url: string) {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become healthy`);
}

const peakRssMb = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
};

/** USER_HZ: 100 on every Linux the bench runs on (`getconf CLK_TCK`). */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system) a process has used so far, in microseconds. */
const cpuMicros = (pid: number) => {
  // The fields after the command name, which is in parentheses and may itself contain ") ".
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1e6) / CLOCK_TICKS_PER_SECOND;
};

type LoadResult = Awaited<ReturnType<typeof cannon>>;
type CpuLoadResult = Awaited<ReturnType<typeof cannonCpu>>;

/** A load run and the CPU time the server process spent per request in it. */
async function cannonCpu(pid: number, options: autocannon.Options) {
  const before = cpuMicros(pid);
  const run = await cannon(options);
  return { ...run, cpuUs: Math.round((cpuMicros(pid) - before) / run.total) };
}

async function cannon(options: autocannon.Options) {
  const result = await autocannon({ duration: DURATION, connections: 50, ...options });
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

/** Inserts `count` projects into an organization with one statement, and sets its counter. */
async function seedProjects(db: Db, organizationId: string, count: number) {
  const tag = organizationId.slice(-6);
  if (db.dialect === 'postgres') {
    // A million rows take longer than the service's statement timeout; seeding is not a request.
    await db.kysely.transaction().execute(async (trx) => {
      await sql`SET LOCAL statement_timeout = 0`.execute(trx);
      await sql`INSERT INTO projects (id, organization_id, name, created_at, updated_at)
      SELECT 'proj_' || ${tag} || lpad(g::text, 20, '0'), ${organizationId}, 'Bench ' || g,
        to_char(timestamp '2026-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        to_char(timestamp '2026-01-01' + g * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
      FROM generate_series(1, ${count}::int) g`.execute(trx);
    });
    // As a database in service would be: statistics current, nothing left for autovacuum to do
    // and the seed's pages written out, rather than flushed in the middle of a measurement.
    await sql`VACUUM (ANALYZE) projects`.execute(db.kysely);
    await sql`CHECKPOINT`.execute(db.kysely);
  } else {
    await sql`WITH RECURSIVE seq(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM seq WHERE g < ${count})
      INSERT INTO projects (id, organization_id, name, created_at, updated_at)
      SELECT 'proj_' || ${tag} || printf('%020d', g), ${organizationId}, 'Bench ' || g,
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || g || ' seconds'),
        strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || g || ' seconds')
      FROM seq`.execute(db.kysely);
  }
  await db.kysely
    .updateTable('organizations')
    .set({ project_count: count })
    .where('id', '=', organizationId)
    .execute();
}

async function createDatabase(kind: 'sqlite' | 'postgres') {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-bench-'));
    return {
      url: `file:${path.join(dir, 'bench.db')}`,
      drop: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `appmeta_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

function startProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): ChildProcess {
  return spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
}

async function bare(body: string, contentType: string, scenario: Omit<autocannon.Options, 'url'>) {
  const port = await freePort();
  const file = path.join(os.tmpdir(), `bare-${port}.json`);
  fs.writeFileSync(file, JSON.stringify({ contentType, body }));
  const child = startProcess(
    process.execPath,
    [path.join(ROOT, 'bench/bare-server.mjs'), String(port), file],
    {},
  );
  await new Promise((resolve) => child.stdout!.once('data', resolve));
  try {
    return await cannon({ ...scenario, url: `http://127.0.0.1:${port}` });
  } finally {
    child.kill();
  }
}

/**
 * Starts the anchor of the database: on its own SQLite file, or on its own PostgreSQL database
 * with Redis (each seeded by the anchor on start: 30 organizations × 1,000 projects, keys key_0 …
 * key_29), and answers the requests that spread scenario 1's load over them.
 */
async function startAnchor(kind: 'sqlite' | 'postgres') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-anchor-'));
  const database = kind === 'postgres' ? await createDatabase('postgres') : null;
  const port = await freePort();
  const args = database === null ? [path.join(dir, 'anchor.db')] : [database.url, REDIS];
  // The anchor loads its packages from the working directory's node_modules.
  const child = spawn(process.execPath, [ANCHORS[kind], String(port), ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    requests: Array.from({ length: ORGANIZATIONS }, (_, i) => ({
      method: 'GET' as const,
      path: '/api/v1/projects?limit=20',
      headers: { authorization: `Bearer key_${i}` },
    })),
    async stop() {
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
      fs.rmSync(dir, { recursive: true, force: true });
      await database?.drop();
    },
  };
}

/** The run of median throughput among a scenario's rounds. */
const medianRun = <T extends LoadResult>(runs: T[]) =>
  [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)]!;

async function runDatabase(kind: 'sqlite' | 'postgres') {
  const database = await createDatabase(kind);
  const env = {
    DATABASE_URL: database.url,
    APPMETA_SECRET_KEY: SECRET,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ...(kind === 'postgres' && { REDIS_URL: REDIS }),
  };
  const config = loadConfig(env);
  const db = createDb(config.database);
  await migrateToLatest(db);
  const orgs = createServices({
    db,
    clock: systemClock,
    config,
    keyRing: createKeyRing(Buffer.from(SECRET, 'base64')),
  }).organizations;
  // Scenarios 1 and 2 each spread their load over their own enterprise organizations of 1,000
  // projects (10,000 requests per minute each): rate limiting stays on, and a run of up to
  // ORGANIZATIONS × 10,000 requests in one minute is not refused for want of budget.
  const enterpriseKeys = async (scenario: number) => {
    const keys: string[] = [];
    for (let i = 0; i < ORGANIZATIONS; i++) {
      const created = await orgs.create(
        {
          name: `Bench ${scenario}.${i}`,
          adminEmail: `bench${scenario}.${i}@example.com`,
          plan: 'enterprise',
        },
        'cli:bench',
      );
      await seedProjects(db, created.organization.id, 1000);
      keys.push(created.apiKey);
    }
    return keys;
  };
  const keys1 = await enterpriseKeys(1);
  const keys2 = await enterpriseKeys(2);
  const scaling: Record<number, string> = {};
  for (const size of SCENARIOS.has(3) ? [100, 10_000, 1_000_000] : []) {
    const created = await orgs.create(
      {
        name: `Scale ${size}`,
        adminEmail: `scale${size}@example.com`,
        plan: 'enterprise',
      },
      'cli:bench',
    );
    const started = Date.now();
    await seedProjects(db, created.organization.id, size);
    notes.push(
      `${kind}: seeded ${size.toLocaleString('en')} projects in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    scaling[size] = created.apiKey;
  }
  await db.destroy();

  const port = await freePort();
  // BENCH_PROFILE=<dir> writes a V8 CPU profile of the service to <dir> when it exits.
  const profile = PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`];
  // BENCH_PERF=<dir>: perf samples of the service (bench/perf-record.ts); its jitdump goes to <dir>.
  const perfArgs = PERF_DIR === undefined ? [] : PERF_NODE_ARGS;
  const service = startProcess(
    process.execPath,
    [...profile, ...perfArgs, BIN, 'serve'],
    { ...env, PORT: String(port) },
    PERF_DIR,
  );
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url);
  const perf = PERF_DIR === undefined ? null : recordPerf(service.pid!, PERF_DIR, `service-${kind}`);
  /** A throughput row: the service's run beside the bare server's, and the service's peak RSS. */
  const pushLoadRow = (scenario: string, run: LoadResult, bareRun: LoadResult) =>
    rows.push({
      database: kind,
      scenario,
      ...run,
      rssMb: peakRssMb(service.pid!),
      bareRps: bareRun.rps,
      ratio: run.rps / bareRun.rps,
    });
  try {
    // Scenario 1: the project list of a 1,000-project organization, 50 connections.
    const list = '/api/v1/projects?limit=20';
    if (SCENARIOS.has(1)) {
      const requests1 = keys1.map((key) => ({
        method: 'GET' as const,
        path: list,
        headers: { authorization: `Bearer ${key}` },
      }));
      const sample = await fetch(`${url}${list}`, { headers: { authorization: `Bearer ${keys1[0]}` } });
      const sampleBody = await sample.text();
      // Service and anchor take turns, so that both meet the same state of the machine.
      const anchor = await startAnchor(kind);
      const serviceRuns: CpuLoadResult[] = [];
      const anchorRuns: CpuLoadResult[] = [];
      let anchorRssMb: number;
      try {
        for (let round = 0; round < ROUNDS; round++) {
          serviceRuns.push(await cannonCpu(service.pid!, { url, requests: requests1 }));
          anchorRuns.push(await cannonCpu(anchor.pid, { url: anchor.url, requests: anchor.requests }));
        }
        anchorRssMb = peakRssMb(anchor.pid);
      } finally {
        await anchor.stop().catch(() => undefined);
      }
      const s1 = medianRun(serviceRuns);
      const a1 = medianRun(anchorRuns);
      const b1 = await bare(sampleBody, sample.headers.get('content-type') ?? 'application/json', {});
      pushLoadRow('1 list projects (limit 20, 1,000 projects)', s1, b1);
      rows.at(-1)!.cpuUs = s1.cpuUs;
      rows.at(-1)!.anchor = {
        rps: a1.rps,
        p99: a1.p99,
        rssMb: anchorRssMb,
        ratio: s1.rps / a1.rps,
        cpuUs: a1.cpuUs,
      };
      notes.push(
        `${kind}: scenario 1 rounds, service / anchor req/s: ${serviceRuns.map((r, i) => `${r.rps} / ${anchorRuns[i]!.rps}`).join(', ')}; ` +
          `CPU µs per request: ${serviceRuns.map((r, i) => `${r.cpuUs} / ${anchorRuns[i]!.cpuUs}`).join(', ')}`,
      );
    }

    // Scenario 2: read a project and edit a listing, 9:1 — one project in each of its own
    // organizations, so that their rate-limit budgets are not what limits the run.
    if (SCENARIOS.has(2)) {
      const sequence: autocannon.Request[] = [];
      let projectId = '';
      let edit = 0;
      for (const key of keys2) {
        const auth = { authorization: `Bearer ${key}` };
        const page = (await (await fetch(`${url}${list}`, { headers: auth })).json()) as {
          data: { projects: { id: string }[] };
        };
        projectId = page.data.projects[0]!.id;
        await fetch(`${url}/api/v1/projects/${projectId}`, {
          method: 'PATCH',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ appStoreAppId: '1234567890' }),
        });
        for (let i = 0; i < 9; i++)
          sequence.push({ method: 'GET', path: `/api/v1/projects/${projectId}`, headers: auth });
        sequence.push({
          method: 'PATCH',
          path: `/api/v1/projects/${projectId}/listings/appstore/en-US`,
          headers: { ...auth, 'content-type': 'application/json' },
          setupRequest: (request: autocannon.Request) => ({
            ...request,
            body: JSON.stringify({ promotionalText: `Edit ${edit++}` }),
          }),
        });
      }
      const s2 = await cannon({ url, requests: sequence });
      const getSample = await fetch(`${url}/api/v1/projects/${projectId}`, {
        headers: { authorization: `Bearer ${keys2.at(-1)}` },
      });
      const b2 = await bare(await getSample.text(), 'application/json; charset=utf-8', {});
      pushLoadRow('2 read project / edit listing 9:1', s2, b2);
    }

    // Scenario 3: does a list page cost more in a bigger organization, or deeper in it? A fixed
    // 200 requests/s (latency, not throughput), well inside each organization's budget.
    for (const size of SCENARIOS.has(3) ? [100, 10_000, 1_000_000] : []) {
      for (const offset of [0, 9000]) {
        const s3 = await cannon({
          url: `${url}/api/v1/projects?limit=20&offset=${offset}`,
          headers: { authorization: `Bearer ${scaling[size]}` },
          connections: 10,
          overallRate: 200,
          duration: Math.max(3, Math.round(DURATION / 2)),
        });
        rows.push({
          database: kind,
          scenario: `3 list, ${size.toLocaleString('en')} projects, offset ${offset}`,
          ...s3,
        });
      }
    }
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    await perf?.finish();
    await database.drop();
  }
}

/** Scenario 4: push of 40 locales × 2 stores with 100 ms per store call, concurrent vs one call at a time. */
async function runPush() {
  const apple = appStoreCredentials();
  const google = serviceAccount();
  const locales = [...APPSTORE_LOCALES]
    .filter((l) => mapLocale('appstore', 'playstore', l) !== null)
    .slice(0, 40);
  const seedLocales = (fields: (locale: string) => Record<string, string>) =>
    Object.fromEntries(locales.map((l) => [l, fields(l)]));
  const emulators = createEmulators({
    appstore: {
      keys: [{ issuerId: apple.issuerId, keyId: apple.keyId, publicKey: apple.publicKey }],
      apps: [
        {
          id: '1',
          bundleId: 'com.bench.app',
          name: 'Bench',
          appInfos: [
            {
              id: 'info',
              state: 'PREPARE_FOR_SUBMISSION',
              localizations: seedLocales(() => ({ name: 'Bench' })),
            },
          ],
          versions: [
            { id: 'v1', versionString: '1.0', appVersionState: 'READY_FOR_DISTRIBUTION' },
            {
              id: 'v2',
              versionString: '1.1',
              appVersionState: 'PREPARE_FOR_SUBMISSION',
              localizations: seedLocales(() => ({ description: 'Bench' })),
            },
          ],
        },
      ],
    },
    playstore: {
      serviceAccounts: [{ clientEmail: google.account.client_email, publicKey: google.publicKey }],
      apps: [
        {
          packageName: 'com.bench.app',
          listings: Object.fromEntries(
            locales.map((l) => [
              mapLocale('appstore', 'playstore', l)!,
              { title: 'Bench', shortDescription: 'Bench', fullDescription: 'Bench' },
            ]),
          ),
        },
      ],
    },
  });
  const emulatorUrl = await emulators.app.listen({ port: 0, host: '127.0.0.1' });
  const logger = pino({ level: 'silent' });
  const results: Record<string, { wallMs: number; calls: number }> = {};
  // A sequential tool (fastlane deliver, then supply) makes one call at a time, store after store.
  for (const [label, concurrency, storesTogether] of [
    ['concurrent: 8 calls in flight per account, both stores at once', 8, true],
    ['one call at a time per account, both stores at once', 1, true],
    ['one call at a time, store after store (sequential tool)', 1, false],
  ] as const) {
    const database = await createDatabase('sqlite');
    const config: Config = loadConfig({
      DATABASE_URL: database.url,
      APPMETA_SECRET_KEY: SECRET,
      APPSTORE_API_URL: emulatorUrl,
      PLAY_API_URL: emulatorUrl,
      GOOGLE_TOKEN_URL: `${emulatorUrl}/token`,
      LOG_LEVEL: 'silent',
    });
    const db = createDb(config.database);
    await migrateToLatest(db);
    const { app, services } = await buildApp({
      config,
      db,
      logger,
      rateLimiter: createRateLimiter({ redisUrl: null, log: logger }),
      keyRing: createKeyRing(Buffer.from(SECRET, 'base64')),
      connectors: createConnectorFactory(config, { concurrency }),
    });
    const created = await services.organizations.create(
      {
        name: 'Push bench',
        adminEmail: 'push@example.com',
        plan: 'enterprise',
      },
      'cli:bench',
    );
    const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, body?: unknown) =>
      app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify(body ?? {}),
      });
    await call('PUT', '/api/v1/organization/credentials/appstore', {
      issuerId: apple.issuerId,
      keyId: apple.keyId,
      privateKey: apple.privateKey,
    });
    await call('PUT', '/api/v1/organization/credentials/playstore', { serviceAccount: google.account });
    const project = JSON.parse(
      (
        await call('POST', '/api/v1/projects', {
          name: 'Push',
          appStoreAppId: '1',
          playStorePackageName: 'com.bench.app',
        })
      ).body,
    ).data.projectId;
    await call('POST', `/api/v1/projects/${project}/sync`, {});
    const stamp = randomBytes(3).toString('hex');
    for (const locale of locales) {
      await call('PATCH', `/api/v1/projects/${project}/listings/appstore/${locale}`, {
        description: `Pushed ${stamp}`,
      });
      await call(
        'PATCH',
        `/api/v1/projects/${project}/listings/playstore/${mapLocale('appstore', 'playstore', locale)}`,
        { fullDescription: `Pushed ${stamp}` },
      );
    }
    emulators.faults.set([
      { route: '* /v1/*', latencyMs: 100 },
      { route: '* /androidpublisher/*', latencyMs: 100 },
      { route: 'POST /token', latencyMs: 100 },
    ]);
    const before =
      emulators.appStore.counters.requests +
      emulators.play.counters.requests +
      emulators.play.counters.tokenRequests;
    const started = performance.now();
    const push = async (store: string) =>
      JSON.parse((await call('POST', `/api/v1/projects/${project}/push`, { store })).body) as {
        data?: { appStore: { locales: number }; playStore: { locales: number }; failures: unknown[] };
      };
    const pushes = storesTogether ? [await push('both')] : [await push('appstore'), await push('playstore')];
    const wallMs = Math.round(performance.now() - started);
    const calls =
      emulators.appStore.counters.requests +
      emulators.play.counters.requests +
      emulators.play.counters.tokenRequests -
      before;
    emulators.faults.clear();
    const pushed = (store: 'appStore' | 'playStore') =>
      pushes.reduce((sum, r) => sum + (r.data?.[store].locales ?? 0), 0);
    if (
      pushed('appStore') !== 40 ||
      pushed('playStore') !== 40 ||
      pushes.some((r) => r.data === undefined || r.data.failures.length > 0)
    ) {
      throw new Error(`push did not complete: ${JSON.stringify(pushes).slice(0, 500)}`);
    }
    results[label] = { wallMs, calls };
    await app.close();
    await db.destroy();
    await database.drop();
  }
  await emulators.app.close();
  return results;
}

async function main() {
  if (PERF_DIR !== undefined) {
    checkPerf();
    fs.mkdirSync(PERF_DIR, { recursive: true });
  }
  const kinds: ('sqlite' | 'postgres')[] = [];
  if (DATABASES.includes('sqlite')) kinds.push('sqlite');
  if (DATABASES.includes('postgres')) {
    if ((await reachable(PG_ADMIN)) && (await reachable(REDIS))) kinds.push('postgres');
    else notes.push('PostgreSQL or Redis not reachable: PostgreSQL scenarios skipped');
  }
  const loadScenarios = [1, 2, 3].some((n) => SCENARIOS.has(n));
  for (const kind of loadScenarios ? kinds : []) await runDatabase(kind);
  const push = SCENARIOS.has(4) ? await runPush() : {};
  const dashboard: DashboardResult | null = SCENARIOS.has(5) ? await runDashboard() : null;
  // What scenarios 6 and 7 use of this runner.
  const tools = {
    secret: SECRET,
    bin: BIN,
    redis: REDIS,
    createDatabase,
    seedProjects,
    startProcess,
    waitHealthy,
    freePort,
    cannon,
  };
  const background: BackgroundResult[] = [];
  for (const kind of SCENARIOS.has(6) ? kinds : []) {
    background.push(await runBackground(kind, tools));
  }

  const media: MediaResult[] = [];
  for (const kind of SCENARIOS.has(7) ? kinds : []) {
    media.push(await runMedia(kind, tools));
  }

  // Store calls dominate a media push: SQLite only.
  const storeMedia: StoreMediaResult | null = SCENARIOS.has(8) ? await runStoreMedia(tools) : null;
  // Product texts: store calls again, SQLite only.
  const products: ProductsResult | null = SCENARIOS.has(9) ? await runProducts(tools) : null;
  const writePath: WritePathResult[] = [];
  for (const kind of SCENARIOS.has(10) ? kinds : []) writePath.push(await runWritePath(kind, tools));

  const fmt = (n: number | undefined, digits = 0) => (n === undefined ? '' : n.toFixed(digits));
  // A refused or failed request is cheaper than a served one: such a row measures the wrong thing.
  for (const r of rows.filter((r) => r.non2xx > 0)) {
    notes.push(`NOT VALID: ${r.database} scenario "${r.scenario}" had ${r.non2xx} non-2xx responses`);
  }
  const lines = [
    `Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB; Node ${process.version}; ${DURATION} s per load run`,
    '',
    ...(rows.length === 0
      ? []
      : [
          '| database | scenario | req/s | p50 ms | p99 ms | non-2xx | peak RSS MB | anchor req/s | anchor p99 ms | anchor peak RSS MB | req/s ÷ anchor | RSS ÷ anchor | CPU µs/req | anchor CPU µs/req | bare req/s | service ÷ bare |',
          '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
          ...rows.map(
            (r) =>
              `| ${r.database} | ${r.scenario} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.non2xx} | ${fmt(r.rssMb)} | ${fmt(r.anchor?.rps)} | ${fmt(r.anchor?.p99)} | ${fmt(r.anchor?.rssMb)} | ${fmt(r.anchor?.ratio, 2)} | ${r.anchor && r.rssMb ? (r.rssMb / r.anchor.rssMb).toFixed(2) : ''} | ${fmt(r.cpuUs)} | ${fmt(r.anchor?.cpuUs)} | ${fmt(r.bareRps)} | ${fmt(r.ratio, 2)} |`,
          ),
          '',
        ]),
    ...(Object.keys(push).length === 0
      ? []
      : [
          '| scenario 4: push 40 locales × 2 stores, 100 ms per store call | wall ms | store calls |',
          '| --- | ---: | ---: |',
          ...Object.entries(push).map(([label, r]) => `| ${label} | ${r.wallMs} | ${r.calls} |`),
          '',
        ]),
    ...(dashboard === null
      ? []
      : [
          '| scenario 5: dashboard in headless Chromium | measured | target |',
          '| --- | ---: | ---: |',
          `| first load of the projects page to content, p50 of ${dashboard.firstLoadMs.runs} cold loads | ${dashboard.firstLoadMs.p50} ms (max ${dashboard.firstLoadMs.max}) | ≤ 1000 ms |`,
          `| JavaScript shipped for it, gzip | ${(dashboard.javascriptGzipBytes / 1024).toFixed(1)} KB | ≤ 200 KB |`,
          `| editor keystroke to counter update, p50 / p95 of ${dashboard.keystrokeMs.keystrokes} | ${dashboard.keystrokeMs.p50} / ${dashboard.keystrokeMs.p95} ms (max ${dashboard.keystrokeMs.max}) | ≤ 16 ms |`,
          '',
        ]),
    ...(background.length === 0
      ? []
      : [
          '| scenario 6: background work | ' + background.map((b) => b.database).join(' | ') + ' |',
          '| --- |' + background.map(() => ' ---: |').join(''),
          `| event → webhook latency p50 / p99 / max, under scenario 1's load | ${background
            .map(
              (b) =>
                `${b.webhookLatency.p50} / ${b.webhookLatency.p99} / ${b.webhookLatency.max} ms (${b.webhookLatency.deliveries} deliveries, load ${b.webhookLatency.loadRps} req/s)`,
            )
            .join(' | ')} |`,
          `| jobs per second, one instance's workers, no-op jobs | ${background.map((b) => b.jobsPerSecond).join(' | ')} |`,
          `| 10 projects × 10 locales pushed in the background at once (100 ms per store call) | ${background
            .map((b) => `${b.pushes.concurrentMs} ms`)
            .join(' | ')} |`,
          `| the same 10 pushed one after another | ${background.map((b) => `${b.pushes.sequentialMs} ms`).join(' | ')} |`,
          '',
        ]),
    ...(media.length === 0
      ? []
      : [
          '| scenario 7: media | ' + media.map((m) => m.database).join(' | ') + ' |',
          '| --- |' + media.map(() => ' ---: |').join(''),
          `| raw disk write, 8.3 MB files (fsync), same run | ${media.map((m) => `${m.diskMBps} MB/s`).join(' | ')} |`,
          `| upload 100 × 8.3 MB screenshots, 10 at a time: throughput | ${media.map((m) => `${m.upload.MBps} MB/s (${(m.upload.MBps / m.diskMBps).toFixed(2)} × disk)`).join(' | ')} |`,
          `| the same: latency p50 / p99 per file | ${media.map((m) => `${m.upload.p50} / ${m.upload.p99} ms`).join(' | ')} |`,
          `| 100 × 8.3 MB at once: wall time, service RSS before → peak | ${media.map((m) => `${m.burst.wallMs} ms, ${m.burst.baselineRssMb} → ${m.burst.peakRssMb} MB`).join(' | ')} |`,
          `| GET media of a project with 40 locales × 3 slots (240 items), 50 connections: req/s, p50 / p99 | ${media.map((m) => `${m.list.rps} req/s, ${m.list.p50} / ${m.list.p99} ms`).join(' | ')} |`,
          '',
        ]),
    ...(storeMedia === null
      ? []
      : [
          '| scenario 8: media push to both store emulators (SQLite, default emulator latency) | measured |',
          '| --- | ---: |',
          `| first push: ${storeMedia.files} files, ${storeMedia.megabytes} MB (10 locales × 10 per store) | ${storeMedia.first.wallMs} ms, ${storeMedia.first.calls} store calls |`,
          `| the same: service RSS before → peak while uploading | ${storeMedia.first.baselineRssMb} → ${storeMedia.first.peakRssMb} MB |`,
          `| push after ${storeMedia.change.files} files replaced: store writes (expected) | ${storeMedia.change.writes} (${storeMedia.change.expectedWrites}) |`,
          `| the same: bytes uploaded / bytes of the ${storeMedia.change.files} new files | ${storeMedia.change.uploadedBytes} / ${storeMedia.change.neededBytes} |`,
          '',
        ]),
    ...(products === null
      ? []
      : [
          '| scenario 9: product texts pushed to both store emulators (SQLite, default emulator latency) | measured |',
          '| --- | ---: |',
          `| ${products.texts} texts edited (${products.products} products × 10 locales), one PATCH each | ${products.first.editMs} ms |`,
          `| push of them: wall time, store calls | ${products.first.wallMs} ms, ${products.first.calls} calls |`,
          `| the same: store writes (what the texts need) | ${products.first.writes} (${products.first.expectedWrites}) |`,
          `| push after ${products.change.texts} texts changed: store writes (what they need) | ${products.change.writes} (${products.change.expectedWrites}) |`,
          '',
        ]),
    ...(writePath.length === 0
      ? []
      : [
          '| scenario 10: write path, 50 concurrent editors (one organization and webhook each) | ' +
            writePath.map((w) => w.database).join(' | ') +
            ' |',
          '| --- |' + writePath.map(() => ' ---: |').join(''),
          `| listing edits per second | ${writePath.map((w) => `${w.editsPerSecond} (${w.edits} edits)`).join(' | ')} |`,
          `| edit latency p50 / p99 | ${writePath.map((w) => `${w.edit.p50} / ${w.edit.p99} ms`).join(' | ')} |`,
          `| event → webhook arrival p50 / p99 / max | ${writePath.map((w) => `${w.webhook.p50} / ${w.webhook.p99} / ${w.webhook.max} ms`).join(' | ')} |`,
          `| deliveries caught up after the last edit | ${writePath.map((w) => `${w.webhook.drainMs} ms`).join(' | ')} |`,
          `| warm-up (one edit per editor at once): slowest delivery | ${writePath.map((w) => `${w.warmUpMs} ms`).join(' | ')} |`,
          `| paced at ${writePath[0]!.paced.target} edits/s in all: edits per second | ${writePath.map((w) => `${w.paced.editsPerSecond} (${w.paced.edits} edits)`).join(' | ')} |`,
          `| paced: edit latency p50 / p99 | ${writePath.map((w) => `${w.paced.edit.p50} / ${w.paced.edit.p99} ms`).join(' | ')} |`,
          `| paced: event → webhook arrival p50 / p99 / max | ${writePath.map((w) => `${w.paced.webhook.p50} / ${w.paced.webhook.p99} / ${w.paced.webhook.max} ms`).join(' | ')} |`,
          '',
        ]),
    ...notes.map((n) => `- ${n}`),
  ];
  console.log(lines.join('\n'));
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(
    path.join(ROOT, 'bench/results/latest.json'),
    JSON.stringify(
      { rows, push, dashboard, background, media, storeMedia, products, writePath, notes },
      null,
      2,
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
