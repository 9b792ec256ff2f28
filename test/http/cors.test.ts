import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

const DASHBOARD = 'https://dashboard.example';

describe('CORS_ORIGINS set', () => {
  let h: Harness;
  let org: TestOrganization;
  beforeAll(async () => {
    h = await startHarness({ env: { CORS_ORIGINS: `${DASHBOARD}, http://localhost:5173` } });
    org = await h.given.organization();
  });
  afterAll(() => h?.close());

  it('answers a preflight from a listed origin without a key', async () => {
    const res = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/projects',
      headers: {
        origin: DASHBOARD,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(String(res.headers['access-control-allow-methods'])).toContain('POST');
    expect(String(res.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('lets a listed origin read the answer and the headers clients act on', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/v1/projects',
      headers: { origin: DASHBOARD, authorization: `Bearer ${org.admin.apiKey}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(res.headers.vary).toContain('Origin');
    const exposed = String(res.headers['access-control-expose-headers']);
    for (const header of ['X-Request-Id', 'X-RateLimit-Remaining', 'Retry-After'])
      expect(exposed).toContain(header);
  });

  it('gives an origin not listed no CORS headers', async () => {
    const res = await h.app.inject({
      method: 'GET',
      url: '/api/v1/projects',
      headers: { origin: 'https://evil.example', authorization: `Bearer ${org.admin.apiKey}` },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('still answers unknown paths 404 and wrong methods 405', async () => {
    const unknown = await h.client(org.admin.apiKey).get('/api/v1/nothing-here');
    expect(unknown.status).toBe(404);
    const wrong = await h.client(org.admin.apiKey).request('DELETE', '/api/v1/projects');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD, OPTIONS, POST');
  });
});

describe('CORS_ORIGINS unset (the default)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  it('sends no CORS headers and answers no preflight', async () => {
    const res = await h.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/projects',
      headers: { origin: DASHBOARD, 'access-control-request-method': 'GET' },
    });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(res.statusCode).toBe(405);
  });
});
