import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { sessionCookieOf, startHarness, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
const clock = new ManualClock();
const DAY = 24 * 3600 * 1000;

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

const invite = (org: TestOrganization, body: Record<string, unknown>) =>
  org.admin.api.post('/api/v1/organization/members', body);

describe('POST /api/v1/organization/members (invite)', () => {
  it('answers 201 with the Invite, delivery share_link and an inviteUrl under PUBLIC_URL', async () => {
    const org = await h.given.organization();
    const res = await invite(org, { email: 'New.Person@Example.com' });
    expect(res.status).toBe(201);
    const { inviteId } = res.body.data;
    expect(inviteId).toMatch(/^inv_[0-9a-z]{26}$/);
    expect(res.body).toEqual({
      success: true,
      data: {
        inviteId,
        email: 'new.person@example.com',
        role: 'member',
        expiresAt: new Date(clock.now().getTime() + 7 * DAY).toISOString(),
        access: { projects: 'all', locales: 'all', approve: false },
      },
      delivery: 'share_link',
      inviteUrl: `http://appmeta.test/invite/${inviteId}`,
    });
  });

  it('makes invite ids with 128 random bits (no two alike)', async () => {
    const org = await h.given.organization();
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++)
      ids.add((await invite(org, { email: `p${i}@example.com` })).body.data.inviteId);
    expect(ids.size).toBe(20);
  });

  it('refuses addresses outside a non-empty allowedDomains, and existing members', async () => {
    const org = await h.given.organization();
    await org.admin.api.patch('/api/v1/organization', { settings: { allowedDomains: ['acme.io'] } });
    const outside = await invite(org, { email: 'x@example.com' });
    expect(outside.status).toBe(400);
    expect(outside.body.error.details[0].field).toBe('email');
    expect((await invite(org, { email: 'x@ACME.io' })).status).toBe(201);
    await org.admin.api.patch('/api/v1/organization', { settings: { allowedDomains: [] } });
    const existing = await invite(org, { email: org.admin.email });
    expect(existing.status).toBe(400);
    expect(existing.body.error.message).toContain('already belongs to a member');
  });

  it.each([
    [{ email: 'not-an-email' }],
    [{ email: 'a@b' }],
    [{}],
    [{ email: 'a@example.com', role: 'owner' }],
    [{ email: 'a@example.com', extra: 1 }],
  ])('answers 400 for %j', async (body) => {
    const org = await h.given.organization();
    const res = await invite(org, body);
    expect(res.status).toBe(400);
    expect(res.body.error.details.length).toBeGreaterThan(0);
  });

  it('re-inviting a pending address revokes the old invite', async () => {
    const org = await h.given.organization();
    const first = (await invite(org, { email: 'twice@example.com', role: 'viewer' })).body.data.inviteId;
    const second = (await invite(org, { email: 'twice@example.com', role: 'admin' })).body.data.inviteId;
    expect((await h.client().get(`/api/dashboard/invites/${first}`)).status).toBe(404);
    const shown = await h.client().get(`/api/dashboard/invites/${second}`);
    expect(shown.body.data.role).toBe('admin');
    const pending = await org.admin.api.get('/api/v1/organization/invites');
    expect(pending.body.data.invites.map((i: any) => i.inviteId)).toEqual([second]);
  });
});

describe('the invite link: GET /api/dashboard/invites/:inviteId and POST .../accept', () => {
  it('signs the browser in only when the dashboard accepts; a program or another site gets the key alone', async () => {
    const org = await h.given.organization();
    const programs: Record<string, string>[] = [{}, { origin: 'http://evil.test', 'x-appmeta-csrf': '1' }];
    for (const headers of programs) {
      const { inviteId } = (await invite(org, { email: `p${Object.keys(headers).length}@example.com` })).body
        .data;
      const accepted = await h.client(undefined, headers).post(`/api/dashboard/invites/${inviteId}/accept`, {
        name: 'Program',
      });
      expect(accepted.status).toBe(201);
      expect(accepted.body.data.apiKey).toMatch(/^amk_/);
      expect(accepted.headers['set-cookie']).toBeUndefined();
    }
  });

  it('shows the invite without auth, then accepting creates the member with a working key', async () => {
    const org = await h.given.organization({ name: 'Shown Org' });
    const { inviteId } = (await invite(org, { email: 'joiner@example.com', role: 'viewer' })).body.data;
    const shown = await h.client().get(`/api/dashboard/invites/${inviteId}`);
    expect(shown.status).toBe(200);
    expect(shown.body.data).toEqual({
      inviteId,
      organizationName: 'Shown Org',
      email: 'joiner@example.com',
      role: 'viewer',
      expiresAt: expect.stringMatching(/Z$/),
    });
    const accepted = await h.browser().post(`/api/dashboard/invites/${inviteId}/accept`, { name: 'Joan' });
    expect(accepted.status).toBe(201);
    expect(accepted.headers['cache-control']).toBe('no-store');
    expect(sessionCookieOf(accepted)).toBeDefined();
    expect(accepted.body.data.member).toMatchObject({
      email: 'joiner@example.com',
      name: 'Joan',
      role: 'viewer',
      status: 'active',
    });
    expect(accepted.body.data.apiKey).toMatch(/^amk_/);
    const me = await h.client(accepted.body.data.apiKey).get('/api/v1/organization');
    expect(me.body.data.id).toBe(org.id);
    // Single use: a second try says it was used, and only an admin of the organization learns by whom.
    const again = await h.browser().post(`/api/dashboard/invites/${inviteId}/accept`, { name: 'Again' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining('already used'),
    });
    expect(again.body.error.message).not.toContain('joiner@example.com');
    const byMember = await h.client(accepted.body.data.apiKey).get(`/api/dashboard/invites/${inviteId}`);
    expect(byMember.status).toBe(409);
    expect(byMember.body.error.message).not.toContain('joiner@example.com');
    const byAdmin = await org.admin.api.get(`/api/dashboard/invites/${inviteId}`);
    expect(byAdmin.status).toBe(409);
    expect(byAdmin.body.error.message).toContain(
      `by Joan <joiner@example.com> (${accepted.body.data.member.id})`,
    );
    const otherAdmin = (await h.given.organization()).admin;
    expect((await otherAdmin.api.get(`/api/dashboard/invites/${inviteId}`)).body.error.message).not.toContain(
      'joiner@example.com',
    );
  });

  it('answers 400 for an expired invite and 404 for an unknown one', async () => {
    const org = await h.given.organization();
    const { inviteId } = (await invite(org, { email: 'late@example.com' })).body.data;
    clock.advance(7 * DAY - 1000);
    expect((await h.client().get(`/api/dashboard/invites/${inviteId}`)).status).toBe(200);
    clock.advance(2000);
    const expired = await h.browser().post(`/api/dashboard/invites/${inviteId}/accept`, { name: 'Late' });
    expect(expired.status).toBe(400);
    expect(expired.body.error.message).toContain('expired');
    const listed = await org.admin.api.get('/api/v1/organization/invites');
    expect(listed.body.data.invites[0]).toMatchObject({ inviteId, status: 'expired' });
    expect((await h.client().get('/api/dashboard/invites/inv_00000000000000000000000000')).status).toBe(404);
  });

  it('lets exactly one of two concurrent acceptances create a member', async () => {
    const org = await h.given.organization();
    const { inviteId } = (await invite(org, { email: 'race@example.com' })).body.data;
    const results = await Promise.all(
      ['A', 'B', 'C', 'D'].map((name) =>
        h.browser().post(`/api/dashboard/invites/${inviteId}/accept`, { name }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(3);
    const members = await org.admin.api.get('/api/v1/organization/members');
    expect(members.body.data.members.filter((m: any) => m.email === 'race@example.com')).toHaveLength(1);
  });

  it('answers 400 for a missing name', async () => {
    const org = await h.given.organization();
    const { inviteId } = (await invite(org, { email: 'noname@example.com' })).body.data;
    const res = await h.browser().post(`/api/dashboard/invites/${inviteId}/accept`, { name: '  ' });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('name');
  });
});

describe('admin invite list and revoke', () => {
  it('lists pending invites and revokes one (then the link is 404)', async () => {
    const org = await h.given.organization();
    const { inviteId } = (await invite(org, { email: 'gone@example.com' })).body.data;
    const listed = await org.admin.api.get('/api/v1/organization/invites');
    expect(listed.body.data.invites[0]).toMatchObject({
      inviteId,
      email: 'gone@example.com',
      role: 'member',
      status: 'pending',
      invitedBy: org.admin.id,
    });
    expect((await org.admin.api.delete(`/api/v1/organization/invites/${inviteId}`)).body).toEqual({
      success: true,
      data: { revoked: true },
    });
    const revoked = await h.client().get(`/api/dashboard/invites/${inviteId}`);
    expect(revoked.status).toBe(404);
    expect(revoked.body.error.message).toContain('revoked');
    expect((await org.admin.api.delete(`/api/v1/organization/invites/${inviteId}`)).status).toBe(404);
  });
});

describe('accepting checks the rules as they stand now', () => {
  it('refuses an invite whose address the organization no longer admits (allowedDomains changed)', async () => {
    const org = await h.given.organization();
    const { inviteId } = (await invite(org, { email: 'late@old.example' })).body.data;
    await org.admin.api.patch('/api/v1/organization', { settings: { allowedDomains: ['new.example'] } });
    const preview = await h.client().get(`/api/dashboard/invites/${inviteId}`);
    expect(preview.status).toBe(400);
    const res = await h.browser().post(`/api/dashboard/invites/${inviteId}/accept`, { name: 'Late' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('only admits addresses at new.example');
    const members = (await org.admin.api.get('/api/v1/organization/members')).body.data.members;
    expect(members.map((m: { email: string }) => m.email)).not.toContain('late@old.example');
  });

  it('refuses an invite whose creator was demoted or removed since', async () => {
    const org = await h.given.organization();
    const other = await h.given.member(org, 'admin');
    const byDemoted = (await other.api.post('/api/v1/organization/members', { email: 'a@example.com' })).body
      .data;
    const byRemoved = (await other.api.post('/api/v1/organization/members', { email: 'b@example.com' })).body
      .data;
    expect(
      (await org.admin.api.patch(`/api/v1/organization/members/${other.id}`, { role: 'member' })).status,
    ).toBe(200);
    const demoted = await h
      .browser()
      .post(`/api/dashboard/invites/${byDemoted.inviteId}/accept`, { name: 'A' });
    expect(demoted.status).toBe(400);
    expect(demoted.body.error.message).toContain('no longer an admin');
    expect((await org.admin.api.delete(`/api/v1/organization/members/${other.id}`)).status).toBe(200);
    const removed = await h
      .browser()
      .post(`/api/dashboard/invites/${byRemoved.inviteId}/accept`, { name: 'B' });
    expect(removed.status).toBe(400);
    expect(removed.body.error.message).toContain('no longer an admin');
  });

  it('still accepts an invite whose creator is an admin and whose address is admitted', async () => {
    const org = await h.given.organization();
    const { inviteId } = (await invite(org, { email: 'fine@ok.example' })).body.data;
    await org.admin.api.patch('/api/v1/organization', { settings: { allowedDomains: ['ok.example'] } });
    const res = await h.browser().post(`/api/dashboard/invites/${inviteId}/accept`, { name: 'Fine' });
    expect(res.status).toBe(201);
  });
});
