/**
 * Starts the real app on a fresh database of the run's dialect and drives it over HTTP (Fastify
 * inject). Test data is made through the real services and routes (`given`), never seeded.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { buildApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createLogger } from '../../src/logger.js';
import type { Api } from '../../src/http/api.js';
import type { RouteEntry } from '../../src/http/route-table.js';
import { identityVersionKey } from '../../src/db/identity-version.js';
import { createRateLimiter, type RateLimiter } from '../../src/http/rate-limiter.js';
import type { Services } from '../../src/services.js';
import { startWorker } from '../../src/worker.js';
import type { Clock } from '../../src/shared/clock.js';
import { createTestDatabase, testDialect, testRedisUrl, type TestDatabase } from './databases.js';
import { captureLogs } from './log-capture.js';

export interface Response<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
}

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Client {
  request<T = any>(
    method: Method,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response<T>>;
  get<T = any>(path: string): Promise<Response<T>>;
  post<T = any>(path: string, body?: unknown): Promise<Response<T>>;
  patch<T = any>(path: string, body?: unknown): Promise<Response<T>>;
  delete<T = any>(path: string): Promise<Response<T>>;
}

export interface Actor {
  id: string;
  email: string;
  role: 'admin' | 'member' | 'viewer';
  apiKey: string;
  api: Client;
}

export interface SessionClient extends Client {
  /** The `appmeta_session` cookie's value. */
  token: string;
  /** The same session without the CSRF header and Origin a page of the dashboard sends. */
  bare: Client;
}

/** The session token in a response's Set-Cookie, if it sets one. */
export function sessionCookieOf(response: Response): string | undefined {
  const header = response.headers['set-cookie'];
  const cookies = Array.isArray(header) ? header : header === undefined ? [] : [String(header)];
  for (const cookie of cookies) {
    const match = /^appmeta_session=([^;]*)/.exec(cookie);
    if (match !== null && match[1] !== '') return match[1];
  }
  return undefined;
}

export interface TestOrganization {
  id: string;
  admin: Actor;
}

export interface Harness {
  app: Api;
  services: Services;
  /** Every route the app registered. */
  routes: RouteEntry[];
  /** Compiles the route schemas not used yet (they compile on first use); answers how many. */
  compileSchemas(): number;
  config: Config;
  db: Db;
  dialect: 'sqlite' | 'postgres';
  databaseUrl: string;
  rateLimiter: RateLimiter;
  /** The log lines written so far (empty when the test brought its own logger). */
  logs: string[];
  /** A client that sends this key (or none). */
  client(apiKey?: string, extraHeaders?: Record<string, string>): Client;
  /** A client without a key that sends what the dashboard's pages send: X-Appmeta-CSRF and Origin. */
  browser(extraHeaders?: Record<string, string>): Client;
  given: {
    organization(options?: {
      plan?: 'free' | 'pro' | 'enterprise';
      name?: string;
    }): Promise<TestOrganization>;
    member(org: TestOrganization, role: 'admin' | 'member' | 'viewer', email?: string): Promise<Actor>;
    project(actor: Actor, body?: Record<string, unknown>): Promise<{ id: string }>;
    /** A dashboard session of the actor (signed in with its key): a client sending the cookie as a browser would. */
    session(actor: Actor): Promise<SessionClient>;
  };
  close(): Promise<void>;
}

export const TEST_SECRET_KEY = randomBytes(32).toString('base64');

export async function startHarness(
  options: {
    clock?: Clock;
    env?: Record<string, string>;
    database?: TestDatabase;
    logger?: pino.Logger;
    /** How long a sync or push waits for another of the same project before 409. */
    lockWaitMs?: number;
    /** Runs the background workers (jobs, lease recovery, drift scheduling) as `appmeta serve` does. */
    worker?: boolean;
  } = {},
): Promise<Harness> {
  const database = options.database ?? (await createTestDatabase());
  // Each harness keeps its media files in a directory of its own, removed when it closes.
  const blobDirectory =
    options.env?.BLOB_STORE_URL === undefined
      ? await fs.mkdtemp(path.join(os.tmpdir(), 'appmeta-blobs-'))
      : null;
  const config = loadConfig({
    DATABASE_URL: database.url,
    ...(blobDirectory !== null && { BLOB_STORE_URL: `file:${blobDirectory}` }),
    APPMETA_SECRET_KEY: TEST_SECRET_KEY,
    PUBLIC_URL: 'http://appmeta.test',
    LOG_LEVEL: 'silent',
    // On PostgreSQL, identity changes are announced in Redis (db/identity-version.ts).
    ...(testRedisUrl() !== null && { REDIS_URL: testRedisUrl()! }),
    ...options.env,
  });
  const db = createDb(config.database);
  await migrateToLatest(db);
  // Unless a test brings its own logger, the service's own logger writes everything into memory,
  // checked for credentials when the harness closes.
  const captured = options.logger === undefined ? captureLogs() : null;
  const logger = options.logger ?? createLogger({ logLevel: 'trace' }, captured!.stream);
  // Each harness counts in its own Redis namespace, so parallel files and runs never share budgets.
  const rateLimiter = createRateLimiter({
    redisUrl: testRedisUrl(),
    log: logger,
    identityVersionKey: identityVersionKey(config.database),
    keyPrefix: `appmeta:test:${randomBytes(6).toString('hex')}`,
  });
  const { app, services, routes, compileSchemas } = await buildApp({
    config,
    db,
    logger,
    rateLimiter,
    ...(options.clock && { clock: options.clock }),
    ...(options.lockWaitMs !== undefined && { lockWaitMs: options.lockWaitMs }),
  });
  await app.ready();
  if (testRedisUrl() !== null) await untilCounting(rateLimiter);
  const worker = options.worker === true ? await startWorker(services, logger) : null;

  const client = (apiKey?: string, extraHeaders: Record<string, string> = {}): Client => {
    const request = async (
      method: Method,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const response = await app.inject({
        method,
        url: path,
        headers: {
          ...(apiKey !== undefined && { authorization: `Bearer ${apiKey}` }),
          ...(body !== undefined && { 'content-type': 'application/json' }),
          ...extraHeaders,
          ...headers,
        },
        ...(body !== undefined && { payload: JSON.stringify(body) }),
      });
      const text = response.body;
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON (docs page, metrics)
      }
      return { status: response.statusCode, headers: response.headers, body: parsed as any };
    };
    return {
      request,
      get: (path) => request('GET', path),
      post: (path, body) => request('POST', path, body),
      patch: (path, body) => request('PATCH', path, body),
      delete: (path) => request('DELETE', path),
    };
  };

  const pageHeaders = { 'x-appmeta-csrf': '1', origin: new URL(config.publicUrl).origin };
  const browser = (extraHeaders: Record<string, string> = {}) =>
    client(undefined, { ...pageHeaders, ...extraHeaders });

  const actor = (member: { id: string; email: string; role: string }, apiKey: string): Actor => ({
    id: member.id,
    email: member.email,
    role: member.role as Actor['role'],
    apiKey,
    api: client(apiKey),
  });

  let counter = 0;
  const given: Harness['given'] = {
    async organization({ plan = 'enterprise', name } = {}) {
      counter += 1;
      const created = await services.organizations.create(
        {
          name: name ?? `Org ${counter}`,
          adminEmail: `admin${counter}-${randomBytes(3).toString('hex')}@example.com`,
          adminName: 'Admin',
          plan,
        },
        'cli:test',
      );
      return { id: created.organization.id, admin: actor(created.member, created.apiKey) };
    },
    async member(org, role, email) {
      counter += 1;
      const address = email ?? `${role}${counter}-${randomBytes(3).toString('hex')}@example.com`;
      const invited = await org.admin.api.post('/api/v1/organization/members', { email: address, role });
      if (invited.status !== 201) throw new Error(`invite failed: ${JSON.stringify(invited.body)}`);
      const accepted = await browser().post(`/api/dashboard/invites/${invited.body.data.inviteId}/accept`, {
        name: `${role} ${counter}`,
      });
      if (accepted.status !== 201) throw new Error(`accept failed: ${JSON.stringify(accepted.body)}`);
      return actor(accepted.body.data.member, accepted.body.data.apiKey);
    },
    async session(actor) {
      const signedIn = await browser().post('/api/dashboard/session', { apiKey: actor.apiKey });
      const token = sessionCookieOf(signedIn);
      if (signedIn.status !== 201 || token === undefined) {
        throw new Error(`sign-in failed: ${JSON.stringify(signedIn.body)}`);
      }
      const cookie = { cookie: `appmeta_session=${token}` };
      const page = { ...cookie, ...pageHeaders };
      return { ...client(undefined, page), token, bare: client(undefined, cookie) };
    },
    async project(owner, body = {}) {
      counter += 1;
      const created = await owner.api.post('/api/v1/projects', { name: `Project ${counter}`, ...body });
      if (created.status !== 201) throw new Error(`project create failed: ${JSON.stringify(created.body)}`);
      return { id: created.body.data.projectId as string };
    },
  };

  return {
    app,
    services,
    routes,
    compileSchemas,
    config,
    db,
    dialect: testDialect(),
    databaseUrl: database.url,
    rateLimiter,
    logs: captured?.lines ?? [],
    client,
    browser,
    given,
    async close() {
      try {
        await worker?.stop();
        await app.close();
      } finally {
        try {
          await rateLimiter.close();
          await db.destroy();
        } finally {
          if (options.database === undefined) await database.drop();
          if (blobDirectory !== null) await fs.rm(blobDirectory, { recursive: true, force: true });
        }
      }
      captured?.assertNoSecrets();
    },
  };
}

/**
 * The limiter serves uncounted while Redis connects (it fails open), so a test's first requests
 * could go uncounted: the harness starts once a take reaches Redis.
 */
async function untilCounting(rateLimiter: RateLimiter): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const errors = rateLimiter.metrics.storeErrors;
    await rateLimiter.take('harness:connected', Number.MAX_SAFE_INTEGER);
    if (rateLimiter.metrics.storeErrors === errors) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the rate-limit store (Redis) never answered');
}
