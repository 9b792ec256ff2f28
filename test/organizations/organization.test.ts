import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
let org: TestOrganization;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization({ plan: 'pro', name: 'Acme' });
});
afterAll(() => h.close());

describe('GET /api/v1/organization', () => {
  it('returns the Organization shape with default settings', async () => {
    await h.given.member(org, 'viewer');
    const res = await org.admin.api.get('/api/v1/organization');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: org.id,
      name: 'Acme',
      plan: 'pro',
      memberCount: 2,
      settings: {
        defaultLocale: 'en-US',
        requireApproval: false,
        allowedDomains: [],
        driftCheckMinutes: 60,
        doNotTranslate: [],
      },
      usage: { mediaBytes: 0, mediaBytesLimit: 50 * 1024 ** 3 },
      createdAt: expect.stringMatching(/Z$/),
    });
  });
});

describe('GET /api/v1/organization/usage', () => {
  it("counts projects and seats (members and pending invites) against the plan's limits", async () => {
    const free = await h.given.organization({ plan: 'free' });
    await h.given.project(free.admin);
    await h.given.member(free, 'viewer');
    await free.admin.api.post('/api/v1/organization/members', { email: 'pending@example.com' });
    const viewer = await h.given.member(free, 'viewer');
    const res = await viewer.api.get('/api/v1/organization/usage');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      plan: 'free',
      projects: { used: 1, limit: 3 },
      seats: { used: 4, limit: 5 },
      mediaBytes: { used: 0, limit: 1024 ** 3 },
      requestsPerMinute: 100,
    });
    const enterprise = await h.given.organization({ plan: 'enterprise' });
    const unlimited = await enterprise.admin.api.get('/api/v1/organization/usage');
    expect(unlimited.body.data).toMatchObject({
      projects: { used: 0, limit: null },
      seats: { used: 1, limit: null },
      mediaBytes: { used: 0, limit: null },
    });
  });
});

describe('PATCH /api/v1/organization', () => {
  it('merges the settings given and answers id, name, settings', async () => {
    const fresh = await h.given.organization();
    const first = await fresh.admin.api.patch('/api/v1/organization', {
      settings: { allowedDomains: ['Example.COM', 'example.com', ' acme.io '] },
    });
    expect(first.status).toBe(200);
    expect(first.body.data.settings).toEqual({
      defaultLocale: 'en-US',
      requireApproval: false,
      driftCheckMinutes: 60,
      doNotTranslate: [],
      allowedDomains: ['example.com', 'acme.io'],
    });
    const second = await fresh.admin.api.patch('/api/v1/organization', {
      name: 'Renamed',
      settings: { requireApproval: true, defaultLocale: 'de-DE' },
    });
    expect(second.body.data).toEqual({
      id: fresh.id,
      name: 'Renamed',
      settings: {
        defaultLocale: 'de-DE',
        requireApproval: true,
        allowedDomains: ['example.com', 'acme.io'],
        driftCheckMinutes: 60,
        doNotTranslate: [],
      },
    });
    expect((await fresh.admin.api.get('/api/v1/organization')).body.data.settings.requireApproval).toBe(true);
  });

  it.each([
    [{ settings: { theme: 'dark' } }, 'settings.theme'],
    [{ settings: { defaultLocale: 'en_US' } }, 'settings.defaultLocale'],
    [{ settings: { driftCheckMinutes: 1441 } }, 'settings.driftCheckMinutes'],
    [{ settings: { driftCheckMinutes: 1.5 } }, 'settings.driftCheckMinutes'],
    [{ settings: { defaultLocale: 'ja' } }, 'settings.defaultLocale'], // Apple's code; Google says ja-JP
    [{ settings: { requireApproval: 'yes' } }, 'settings.requireApproval'],
    [{ settings: { allowedDomains: ['not a domain'] } }, 'settings.allowedDomains'],
    [{ settings: { allowedDomains: 'example.com' } }, 'settings.allowedDomains'],
    [{ settings: { doNotTranslate: 'Weather Pro' } }, 'settings.doNotTranslate'],
    [{ settings: { doNotTranslate: ['Weather\nPro'] } }, 'settings.doNotTranslate'],
    [{ name: '' }, 'name'],
    [{ plan: 'enterprise' }, 'plan'],
  ])('answers 400 naming the field for %j', async (body, field) => {
    const res = await org.admin.api.patch('/api/v1/organization', body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details[0].field).toBe(field);
  });
});

describe('GET /api/v1/organization/audit-log', () => {
  it('records state changes with actor, action, target and time, newest first, paginated', async () => {
    const fresh = await h.given.organization();
    const member = await h.given.member(fresh, 'member');
    await fresh.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    await fresh.admin.api.patch(`/api/v1/organization/members/${member.id}`, { role: 'viewer' });
    const res = await fresh.admin.api.get('/api/v1/organization/audit-log?limit=100');
    expect(res.status).toBe(200);
    const actions = res.body.data.entries.map((e: any) => e.action);
    for (const action of [
      'organization.create',
      'invites.create',
      'invites.accept',
      'apiKeys.create',
      'organization.update',
      'members.updateRole',
    ]) {
      expect(actions).toContain(action);
    }
    const roleChange = res.body.data.entries.find((e: any) => e.action === 'members.updateRole');
    expect(roleChange).toMatchObject({
      actor: { memberId: fresh.admin.id, keyId: expect.stringMatching(/^key_/) },
      target: { type: 'member', id: member.id },
      details: { from: 'member', to: 'viewer' },
      createdAt: expect.stringMatching(/Z$/),
    });
    const page = await fresh.admin.api.get('/api/v1/organization/audit-log?limit=2&offset=1');
    expect(page.body.data.entries).toHaveLength(2);
    expect(page.body.data.total).toBe(res.body.data.total);
    expect(page.body.data.entries[0].id).toBe(res.body.data.entries[1].id);
  });
});
