import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/modules/access/index.js';
import { createResponseChecker } from '../support/openapi-check.js';
import { createExampleRecorder } from '../support/openapi-examples.js';
import { EXAMPLES } from '../../src/http/openapi-examples.js';

/** Registering or using a passkey needs an authenticator: the browser tests run those. */
const NEEDS_AN_AUTHENTICATOR = new Set([
  'dashboard.passkeys.register',
  'dashboard.passkeys.authenticate',
  'dashboard.passkeys.delete',
]);

/** The bodies sent by the operations without a member, kept as their examples. */
const REQUESTS: Record<string, unknown> = {
  'dashboard.invites.accept': { name: 'Live' },
  'dashboard.session.create': { apiKey: 'amk_wrong' },
};
import { createDeferredCompilation } from '../../src/http/deferred-compilation.js';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
let org: TestOrganization;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
});
afterAll(() => h.close());

describe('the envelope and error table', () => {
  it('answers unknown routes with 404 NOT_FOUND in the envelope, with X-Request-Id and rate-limit headers', async () => {
    const res = await h.client().get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'NOT_FOUND', message: 'No route GET /api/v1/nothing-here' },
    });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(res.headers['x-ratelimit-limit']).toBe('100');
  });

  it('answers 401 UNAUTHORIZED with WWW-Authenticate for a missing key', async () => {
    const res = await h.client().get('/api/v1/projects');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(res.headers['www-authenticate']).toBe('Bearer realm="appmeta"');
  });

  it.each([
    ['a malformed key', 'Bearer not-a-key'],
    ['an unknown key', `Bearer amk_${'A'.repeat(43)}`],
    ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['an empty bearer', 'Bearer '],
  ])('answers 401 for %s, before validating anything', async (_label, authorization) => {
    const res = await h
      .client(undefined, { authorization })
      .request('POST', '/api/v1/projects', { bogus: true });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(res.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('never accepts a key in the query string', async () => {
    const res = await h.client().get(`/api/v1/projects?api_key=${org.admin.apiKey}`);
    expect(res.status).toBe(401);
  });

  it('answers bad JSON with 400 INVALID_REQUEST', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { authorization: `Bearer ${org.admin.apiKey}`, 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      success: false,
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining('not valid JSON') },
    });
  });

  it('answers a wrong content type with 415 and code INVALID_REQUEST', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { authorization: `Bearer ${org.admin.apiKey}`, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      success: false,
      error: { code: 'INVALID_REQUEST', message: 'Content-Type must be application/json' },
    });
  });

  it('answers an oversized body with 413 and code INVALID_REQUEST', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: { authorization: `Bearer ${org.admin.apiKey}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error.code).toBe('INVALID_REQUEST');
  });

  it('answers a missing body where one is required with 400', async () => {
    const res = await org.admin.api.request('POST', '/api/v1/projects');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
  });

  it('refuses the NUL character with 400 on every database, in bodies and URLs', async () => {
    const body = await org.admin.api.post('/api/v1/projects', { name: 'a\u0000b' });
    expect(body.status).toBe(400);
    expect(body.body.error.details).toEqual([
      { field: 'name', message: 'must not contain the NUL character' },
    ]);
    const url = await org.admin.api.get('/api/v1/projects/proj_%00');
    expect(url.status).toBe(400);
    const escaped = await org.admin.api.post('/api/v1/projects', { name: 'literal \\u0000 text' });
    expect(escaped.status).toBe(201);
  });

  it('keeps a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const kept = await h.client(org.admin.apiKey, { 'x-request-id': 'trace-123' }).get('/api/v1/projects');
    expect(kept.headers['x-request-id']).toBe('trace-123');
    const replaced = await h
      .client(org.admin.apiKey, { 'x-request-id': 'bad id with spaces' })
      .get('/api/v1/projects');
    expect(replaced.headers['x-request-id']).toMatch(/^req_/);
  });

  it('turns an unexpected exception into 500 INTERNAL_ERROR without a stack trace', async () => {
    const local = await startHarness();
    try {
      // Simulates a failure below the services: the database goes away mid-flight.
      const admin = (await local.given.organization()).admin;
      await local.db.destroy();
      const res = await admin.api.get('/api/v1/projects');
      expect(res.status).toBe(500);
      expect(res.body.success).toBe(false);
      expect(res.body.error.code).toBe('INTERNAL_ERROR');
      expect(res.body.error.message).toMatch(/^Internal server error \(request id req_/);
      expect(JSON.stringify(res.body)).not.toMatch(/at .*\.(ts|js):\d+/);
    } finally {
      await local.close();
    }
  });
});

describe('routes under /api/v1 and /v1', () => {
  it('serves the same routes under /v1', async () => {
    const { id } = await h.given.project(org.admin, { name: 'Both prefixes' });
    const res = await org.admin.api.get(`/v1/projects/${id}`);
    expect(res.status).toBe(200);
    expect(res.body.data.project.name).toBe('Both prefixes');
    expect((await h.client().get('/v1/organization')).status).toBe(401);
  });

  it('changes state, answers 405 and 404 under /v1 as under /api/v1, naming the path as sent', async () => {
    const created = await org.admin.api.post('/v1/projects', { name: 'Made under v1' });
    expect(created.status).toBe(201);
    const id = created.body.data.project.id;
    expect((await org.admin.api.get(`/api/v1/projects/${id}`)).body.data.project.name).toBe('Made under v1');
    const wrongMethod = await org.admin.api.request('PUT', '/v1/projects', {});
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe(
      (await org.admin.api.request('PUT', '/api/v1/projects', {})).headers.allow,
    );
    const missing = await org.admin.api.get('/v1/nope?x=1');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toBe('No route GET /v1/nope');
    expect((await org.admin.api.get('/v1')).status).toBe(404);
    expect((await h.client().get('/v1/openapi.json')).body.openapi).toBe('3.1.0');
  });
});

describe('health', () => {
  it('GET /healthz and GET /readyz answer ok', async () => {
    expect((await h.client().get('/healthz')).body).toEqual({ success: true, data: { status: 'ok' } });
    expect((await h.client().get('/readyz')).body).toEqual({ success: true, data: { status: 'ready' } });
  });
});

describe('route schemas', () => {
  it('are compiled on first use, and every one of them compiles', async () => {
    // No other test compiles them all: what is left is what no request of this file has used.
    const deferred = h.compileSchemas();
    expect(deferred).toBeGreaterThan(h.routes.length);
    expect(h.compileSchemas()).toBe(0);
    expect((await h.client().get('/healthz')).status).toBe(200);
  });

  it('a schema that cannot compile fails compileAll, and each compiles once', () => {
    const deferred = createDeferredCompilation();
    let compiled = 0;
    const good = deferred.defer(() => ++compiled);
    deferred.defer(() => {
      throw new Error('unresolvable $ref');
    });
    expect(compiled).toBe(0);
    expect(good()).toBe(1);
    expect(good()).toBe(1);
    expect(() => deferred.compileAll()).toThrow('unresolvable $ref');
  });
});

describe('OpenAPI', () => {
  it('serves an OpenAPI 3.1 document that passes Redocly’s recommended rules without an error or a warning', async () => {
    // Requested on a real-looking address: the first server is the one the request came in on.
    const res = await h
      .client()
      .request('GET', '/api/v1/openapi.json', undefined, { host: 'appmeta.internal:3000' });
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const paths = Object.keys(res.body.paths);
    expect(paths).toContain('/api/v1/projects/{projectId}/push');
    expect(paths.some((p) => p.startsWith('/v1/'))).toBe(false);
    expect(res.body.paths['/api/v1/projects'].get.operationId).toBe('projects.list');
    expect(res.body.info.license).toEqual(expect.objectContaining({ name: expect.any(String) }));
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(res.body),
      absoluteRef: 'openapi.json',
      config,
    });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} @ ${p.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it('documents every error status an operation can answer, with the headers a client acts on', async () => {
    const doc = (await h.client().get('/api/v1/openapi.json')).body;
    const resolve = (response: { $ref?: string }) =>
      response.$ref === undefined ? response : doc.components.responses[response.$ref.split('/').pop()!];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.summary, `${method} ${path}`).toEqual(expect.any(String));
        expect(operation.description?.length ?? 0, `${method} ${path} has a description`).toBeGreaterThan(20);
        const statuses = Object.keys(operation.responses);
        expect(
          statuses.filter((s) => /X/i.test(s)),
          `${method} ${path}`,
        ).toEqual([]);
        expect(statuses, `${method} ${path}`).toEqual(expect.arrayContaining(['429', '503']));
        for (const status of statuses.filter((s) => s >= '400')) {
          expect(resolve(operation.responses[status]).content['application/json'].schema.$ref).toBe(
            '#/components/schemas/ErrorResponse',
          );
        }
      }
    }
    const push = doc.paths['/api/v1/projects/{projectId}/push'].post.responses;
    expect(Object.keys(push).sort()).toEqual(
      ['200', '202', '400', '401', '403', '404', '409', '413', '415', '422', '429', '500', '503'].sort(),
    );
    expect(Object.keys(push['202'].headers)).toEqual(
      expect.arrayContaining(['Location', 'Idempotent-Replayed', 'X-RateLimit-Remaining']),
    );
    expect(Object.keys(resolve(push['429']).headers)).toEqual(
      expect.arrayContaining(['Retry-After', 'X-RateLimit-Reset']),
    );
    expect(Object.keys(resolve(push['503']).headers)).toContain('Retry-After');
    expect(Object.keys(doc.paths['/api/v1/projects'].get.responses)).not.toContain('409');
    expect(doc.paths['/api/v1/api-keys'].post.responses['201'].headers['Cache-Control']).toBeDefined();
  });

  it('answers the operations without a member as the document says, and every operation is checked live', async () => {
    const doc = (await h.client().get('/api/v1/openapi.json')).body;
    const checker = createResponseChecker(doc);
    const page = h.browser();
    const invite = await org.admin.api.post('/api/v1/organization/members', {
      email: 'live@example.com',
      role: 'viewer',
    });
    const inviteId = invite.body.data.inviteId as string;
    const calls: Record<string, () => Promise<{ status: number; body: unknown }>> = {
      'health.live': () => h.client().get('/healthz'),
      'health.ready': () => h.client().get('/readyz'),
      'dashboard.invites.get': () => page.get(`/api/dashboard/invites/${inviteId}`),
      'dashboard.invites.accept': () =>
        page.post(`/api/dashboard/invites/${inviteId}/accept`, { name: 'Live' }),
      'dashboard.session.create': () =>
        page.post('/api/dashboard/session', REQUESTS['dashboard.session.create']),
      'dashboard.signInLinks.redeem': () => page.post('/api/dashboard/sign-in-links/asl_wrong/redeem', {}),
      'dashboard.passkeys.authenticationOptions': () =>
        page.post('/api/dashboard/passkeys/authentication/options', {}),
      'dashboard.passkeys.authenticate': () =>
        page.post('/api/dashboard/passkeys/authentication/verify', { response: { id: 'x' } }),
    };
    const seen: string[] = [];
    const recorder = createExampleRecorder();
    for (const [operation, call] of Object.entries(calls)) {
      const res = await call();
      seen.push(`${operation} ${res.status}`);
      expect(checker.check(operation, res.status, res.body)).toBeNull();
      recorder.record(operation, res.status, REQUESTS[operation], res.body);
    }
    // And the sign-ins that succeed: a key, a sign-in link (their examples show no secret sent).
    const signedIn = await page.post('/api/dashboard/session', { apiKey: org.admin.apiKey });
    expect(checker.check('dashboard.session.create', signedIn.status, signedIn.body)).toBeNull();
    recorder.record('dashboard.session.create', signedIn.status, { apiKey: 'amk_…' }, signedIn.body);
    const link = await org.admin.api.post('/api/dashboard/sign-in-links', { memberId: org.admin.id });
    const token = new URL(link.body.data.url).pathname.split('/').pop()!;
    const redeemed = await page.post(`/api/dashboard/sign-in-links/${token}/redeem`, {});
    expect(checker.check('dashboard.signInLinks.redeem', redeemed.status, redeemed.body)).toBeNull();
    recorder.record('dashboard.signInLinks.redeem', redeemed.status, undefined, redeemed.body);
    expect([signedIn.status, redeemed.status]).toEqual([201, 201]);
    recorder.write();
    // Successes and refusals both: an accepted invite, a wrong key, a wrong sign-in link.
    expect(seen).toEqual(
      expect.arrayContaining(['dashboard.invites.accept 201', 'dashboard.session.create 401']),
    );
    // Every other operation of the document is a member's, called (allowed and refused) and
    // checked the same way by the role matrix (test/organizations/roles.test.ts).
    const documented = Object.values(
      doc.paths as Record<string, Record<string, { operationId: string }>>,
    ).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
    const memberOperations = Object.entries(OPERATIONS)
      .filter(([, access]) => Array.isArray(access))
      .map(([id]) => id);
    expect(documented.filter((id) => !(id in calls) && !memberOperations.includes(id))).toEqual([]);
  });

  it('has a recorded example for every JSON answer, each matching its schemas', async () => {
    const doc = (await h.client().get('/api/v1/openapi.json')).body;
    const checker = createResponseChecker(doc);
    const missing: string[] = [];
    const wrong: string[] = [];
    for (const item of Object.values(doc.paths as Record<string, Record<string, any>>)) {
      for (const operation of Object.values(item)) {
        const id = operation.operationId as string;
        const success = Object.entries(operation.responses as Record<string, any>).find(
          ([status, response]) =>
            status.startsWith('2') && response.content?.['application/json'] !== undefined,
        );
        if (success === undefined || NEEDS_AN_AUTHENTICATOR.has(id)) continue;
        const example = EXAMPLES[id];
        if (example === undefined) {
          missing.push(id);
          continue;
        }
        const shown = success[1].content['application/json'].example;
        if (JSON.stringify(shown) !== JSON.stringify(example.response))
          wrong.push(`${id}: not in the document`);
        const problem = checker.check(id, Number(example.status), example.response);
        if (problem !== null) wrong.push(problem);
        if (example.request !== undefined) {
          const request = checker.checkRequest(id, example.request);
          if (request !== null) wrong.push(request);
        }
      }
    }
    expect(missing, 'record them: APPMETA_EXAMPLES_UPDATE=1 (test/support/openapi-examples.ts)').toEqual([]);
    expect(wrong).toEqual([]);
  });

  it.each(['/api/v1/openapi.json', '/docs/json'])(
    'names the address %s was requested on as the first server, PUBLIC_URL after it',
    async (url) => {
      const res = await h.app.inject({ method: 'GET', url, headers: { host: '127.0.0.1:4100' } });
      expect(res.statusCode).toBe(200);
      const servers = JSON.parse(res.body).servers as { url: string }[];
      expect(servers.map((s) => s.url)).toEqual(['http://127.0.0.1:4100', h.config.publicUrl]);
    },
  );

  it('serves a reference page at /docs, with the files it loads', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('swagger');
    // Streamed by @fastify/static: an in-flight wrapper that made its handler async sent them empty.
    const css = await h.app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toContain('text/css');
    expect(css.body.length).toBeGreaterThan(10_000);
  });
});
