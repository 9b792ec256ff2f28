import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
const clock = new ManualClock();

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

describe('project quota', () => {
  it('lets exactly one of 20 parallel creates through on a free organization holding 2 projects', async () => {
    const org = await h.given.organization({ plan: 'free' });
    await h.given.project(org.admin);
    await h.given.project(org.admin);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => org.admin.api.post('/api/v1/projects', { name: `Race ${i}` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 403);
    expect(refused).toHaveLength(19);
    expect(refused[0]!.body.error).toEqual({
      code: 'USAGE_LIMIT_EXCEEDED',
      message: expect.stringContaining('3 projects'),
    });
    expect((await org.admin.api.get('/api/v1/projects')).body.data.total).toBe(3);
  });

  it('frees a slot when a project is deleted, and a plan change applies at once', async () => {
    const org = await h.given.organization({ plan: 'free' });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await h.given.project(org.admin)).id);
    expect((await org.admin.api.post('/api/v1/projects', { name: 'fourth' })).status).toBe(403);
    await org.admin.api.delete(`/api/v1/projects/${ids[0]}`);
    expect((await org.admin.api.post('/api/v1/projects', { name: 'fourth' })).status).toBe(201);
    await h.services.organizations.setPlan(org.id, 'pro', 'cli:test');
    expect((await org.admin.api.post('/api/v1/projects', { name: 'fifth' })).status).toBe(201);
  });
});

describe('seat quota (members + pending invites)', () => {
  it("counts members and pending invites against the free plan's 5 seats, also under concurrency", async () => {
    const org = await h.given.organization({ plan: 'free' });
    await h.given.member(org, 'member'); // 2 members
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        org.admin.api.post('/api/v1/organization/members', { email: `seat${i}@example.com` }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.status === 403);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.body.error.code).toBe('USAGE_LIMIT_EXCEEDED');
    // Re-inviting a pending address replaces its seat rather than taking another.
    const pending = results.find((r) => r.status === 201)!.body.data.email;
    expect(
      (await org.admin.api.post('/api/v1/organization/members', { email: pending, role: 'viewer' })).status,
    ).toBe(201);
  });

  it('frees the seats of revoked and expired invites', async () => {
    const org = await h.given.organization({ plan: 'free' });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(
        (await org.admin.api.post('/api/v1/organization/members', { email: `x${i}@example.com` })).body.data
          .inviteId,
      );
    }
    expect(
      (await org.admin.api.post('/api/v1/organization/members', { email: 'full@example.com' })).status,
    ).toBe(403);
    await org.admin.api.delete(`/api/v1/organization/invites/${ids[0]}`);
    expect(
      (await org.admin.api.post('/api/v1/organization/members', { email: 'full@example.com' })).status,
    ).toBe(201);
    clock.advance(8 * 24 * 3600 * 1000);
    expect(
      (await org.admin.api.post('/api/v1/organization/members', { email: 'after@example.com' })).status,
    ).toBe(201);
  });
});
