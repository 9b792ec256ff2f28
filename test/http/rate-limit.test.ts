import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type Response } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('rate limits by plan', () => {
  it('sets X-RateLimit-* on every response: success, 404 and 401', async () => {
    const org = await h.given.organization({ plan: 'pro' });
    const before = Math.floor(Date.now() / 1000);
    const ok = await org.admin.api.get('/api/v1/projects');
    // The window opens when the request is counted, somewhere between before and after.
    const after = Math.ceil(Date.now() / 1000);
    expect(ok.headers['x-ratelimit-limit']).toBe('1000');
    const remaining = Number(ok.headers['x-ratelimit-remaining']);
    expect(remaining).toBeLessThan(1000);
    const reset = Number(ok.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(before);
    expect(reset).toBeLessThanOrEqual(after + 60);
    const missing = await org.admin.api.get('/api/v1/projects/proj_nope');
    expect(missing.status).toBe(404);
    expect(Number(missing.headers['x-ratelimit-remaining'])).toBe(remaining - 1);
    const anonymous = await h.client(undefined, {}).get('/api/v1/projects');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['x-ratelimit-limit']).toBe('100');
  });

  it('answers 429 RATE_LIMIT_EXCEEDED with Retry-After once a free organization used 100 requests', async () => {
    const org = await h.given.organization({ plan: 'free' });
    const member = await h.given.member(org, 'viewer');
    const first = await org.admin.api.get('/api/v1/organization');
    const left = Number(first.headers['x-ratelimit-remaining']);
    let last: Response | undefined;
    let served = 0;
    for (let i = 0; i < 110; i++) {
      // All keys of the organization share one budget.
      last = await (i % 2 === 0 ? org.admin : member).api.get('/api/v1/organization');
      if (last.status !== 200) break;
      served += 1;
    }
    expect(served).toBe(left);
    if (last === undefined) throw new Error('no request was made');
    expect(last.status).toBe(429);
    expect(last.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(last.headers['x-ratelimit-remaining']).toBe('0');
    const retryAfter = Number(last.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Another organization is not affected.
    const other = await h.given.organization({ plan: 'free' });
    expect((await other.admin.api.get('/api/v1/organization')).status).toBe(200);
    // appmeta org set-plan takes effect on the next request.
    await h.services.organizations.setPlan(org.id, 'pro', 'cli:test');
    const upgraded = await org.admin.api.get('/api/v1/organization');
    expect(upgraded.status).toBe(200);
    expect(upgraded.headers['x-ratelimit-limit']).toBe('1000');
  });

  it('limits requests without a valid key per client IP at the free rate', async () => {
    const ip = `10.9.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    const guess = () =>
      h.app.inject({
        method: 'GET',
        url: '/api/v1/projects',
        remoteAddress: ip,
        headers: { authorization: `Bearer amk_${'x'.repeat(43)}` },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) statuses.push((await guess()).statusCode);
    expect(statuses.slice(0, 100)).toEqual(Array<number>(100).fill(401));
    expect(statuses[100]).toBe(429);
    const elsewhere = await h.app.inject({ method: 'GET', url: '/api/nothing', remoteAddress: '10.200.0.1' });
    expect(elsewhere.statusCode).toBe(404);
  });

  it('never limits the health probes: a load balancer sends them all from one address', async () => {
    const ip = `10.8.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    const statuses = new Set<number>();
    for (let i = 0; i < 150; i++) {
      for (const url of ['/healthz', '/readyz']) {
        statuses.add((await h.app.inject({ method: 'GET', url, remoteAddress: ip })).statusCode);
      }
    }
    expect([...statuses]).toEqual([200]);
    // Other requests from that address are still counted from the first.
    const counted = await h.app.inject({ method: 'GET', url: '/api/nothing', remoteAddress: ip });
    expect(counted.headers['x-ratelimit-remaining']).toBe('99');
  });
});
