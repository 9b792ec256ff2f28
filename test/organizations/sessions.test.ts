/**
 * Dashboard sessions (design.md §10): sign-in by API key, sign-in link and invite; the cookie's
 * attributes; sessions on every /api/v1 route with the member's role and audit identity; the CSRF
 * rule; rotation, sign-out, devices; idle and absolute expiry; ended by role change and removal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { sessionCookieOf, startHarness, type Harness, type TestOrganization } from '../support/harness.js';

const clock = new ManualClock();
let h: Harness;
let org: TestOrganization;

beforeAll(async () => {
  h = await startHarness({ clock });
  org = await h.given.organization();
});
afterAll(async () => {
  await h.close();
});

const setCookie = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']);

describe('signing in with an API key', () => {
  it('sets an HttpOnly, SameSite=Lax session cookie on / (not Secure on http) and answers who am I', async () => {
    const res = await h.browser().post('/api/dashboard/session', { apiKey: org.admin.apiKey });
    expect(res.status).toBe(201);
    const cookie = setCookie(res);
    expect(cookie).toMatch(/^appmeta_session=ams_[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Secure');
    expect(res.headers['cache-control']).toBe('no-store');

    const me = await h
      .client(undefined, { cookie: `appmeta_session=${sessionCookieOf(res)}` })
      .get('/api/dashboard/session');
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({
      role: 'admin',
      organization: { id: org.id },
      member: { id: org.admin.id },
    });
    expect(me.body.data.sessionId).toBe(res.body.data.sessionId);
  });

  it('refuses a wrong key with 401 and sets no cookie', async () => {
    const res = await h.browser().post('/api/dashboard/session', { apiKey: 'amk_nope' });
    expect(res.status).toBe(401);
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('marks the cookie Secure when PUBLIC_URL is https', async () => {
    const secure = await startHarness({ env: { PUBLIC_URL: 'https://appmeta.example' } });
    try {
      const other = await secure.given.organization();
      const res = await secure.browser().post('/api/dashboard/session', { apiKey: other.admin.apiKey });
      expect(setCookie(res)).toContain('Secure');
    } finally {
      await secure.close();
    }
  });
});

describe('a session on the API', () => {
  it('acts as its member on /api/v1, with the member recorded in the audit log (no key)', async () => {
    const member = await h.given.member(org, 'member');
    const session = await h.given.session(member);
    const created = await session.post('/api/v1/projects', { name: 'From the browser' });
    expect(created.status).toBe(201);
    const audit = await org.admin.api.get('/api/v1/organization/audit-log?limit=100');
    const entry = audit.body.data.entries.find(
      (e: { action: string; target: { id: string } }) =>
        e.action === 'projects.create' && e.target.id === created.body.data.projectId,
    );
    expect(entry.actor).toEqual({
      memberId: member.id,
      keyId: null,
      operator: null,
      name: expect.any(String),
    });
    expect(entry.project).toEqual({ id: created.body.data.projectId, name: 'From the browser' });
  });

  it("keeps the member's role: a viewer's session cannot create a project", async () => {
    const viewer = await h.given.member(org, 'viewer');
    const session = await h.given.session(viewer);
    const res = await session.post('/api/v1/projects', { name: 'No' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses a state change by cookie without the CSRF header, or from another origin (403)', async () => {
    const session = await h.given.session(org.admin);
    const noHeader = await session.bare.post('/api/v1/projects', { name: 'Forged' });
    expect(noHeader.status).toBe(403);
    expect(noHeader.body.error.message).toContain('X-Appmeta-CSRF');

    const otherOrigin = await session.bare.request(
      'POST',
      '/api/v1/projects',
      { name: 'Forged' },
      { 'x-appmeta-csrf': '1', origin: 'https://evil.example' },
    );
    expect(otherOrigin.status).toBe(403);
    expect(otherOrigin.body.error.message).toContain('Origin');

    // A form post from another site: no custom header can be set, the browser sends the cookie.
    const form = await h.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: {
        cookie: `appmeta_session=${session.token}`,
        'content-type': 'application/json',
        origin: 'https://evil.example',
      },
      payload: JSON.stringify({ name: 'Forged' }),
    });
    expect(form.statusCode).toBe(403);

    const list = await session.get('/api/v1/projects?limit=100');
    expect(list.body.data.projects.map((p: { name: string }) => p.name)).not.toContain('Forged');
    // Reads need no header.
    expect((await session.bare.get('/api/v1/projects')).status).toBe(200);
  });

  it('lets an API key win over a cookie, without the CSRF rule', async () => {
    const session = await h.given.session(org.admin);
    const res = await h.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: {
        cookie: `appmeta_session=${session.token}`,
        authorization: `Bearer ${org.admin.apiKey}`,
        'content-type': 'application/json',
      },
      payload: JSON.stringify({ name: 'By key' }),
    });
    expect(res.statusCode).toBe(201);
  });
});

describe('ending sessions', () => {
  it('rotates at sign-in: the cookie sent along is ended', async () => {
    const first = await h.given.session(org.admin);
    const again = await h
      .browser({ cookie: `appmeta_session=${first.token}` })
      .post('/api/dashboard/session', {
        apiKey: org.admin.apiKey,
      });
    expect(again.status).toBe(201);
    expect(sessionCookieOf(again)).not.toBe(first.token);
    expect((await first.get('/api/dashboard/session')).status).toBe(401);
  });

  it('signs out: the cookie is cleared and the session is gone', async () => {
    const session = await h.given.session(org.admin);
    const out = await session.delete('/api/dashboard/session');
    expect(out.status).toBe(200);
    expect(setCookie(out)).toMatch(/^appmeta_session=; Max-Age=0/);
    expect((await session.get('/api/v1/projects')).status).toBe(401);
  });

  it('lists signed-in devices, signs out one, then everywhere', async () => {
    const member = await h.given.member(org, 'member');
    const laptop = await h.given.session(member);
    const phone = await h.given.session(member);
    const listed = await laptop.get('/api/dashboard/sessions');
    expect(listed.status).toBe(200);
    const sessions = listed.body.data.sessions as { id: string; current: boolean; method: string }[];
    // Accepting the invite signed the member in too.
    expect(sessions.map((s) => s.method).sort()).toEqual(['api-key', 'api-key', 'invite']);
    expect(sessions.filter((s) => s.current)).toHaveLength(1);

    const phoneId = sessions.find((s) => !s.current && s.method === 'api-key')!.id;
    expect((await laptop.delete(`/api/dashboard/sessions/${phoneId}`)).status).toBe(200);
    expect((await phone.get('/api/v1/projects')).status).toBe(401);
    expect((await laptop.get('/api/v1/projects')).status).toBe(200);
    // Someone else's session id is not found.
    const other = await h.given.session(org.admin);
    const mine = (await other.get('/api/dashboard/sessions')).body.data.sessions[0].id;
    expect((await laptop.delete(`/api/dashboard/sessions/${mine}`)).status).toBe(404);

    const again = await h.given.session(member);
    expect((await laptop.delete('/api/dashboard/sessions')).status).toBe(200);
    expect((await laptop.get('/api/v1/projects')).status).toBe(401);
    expect((await again.get('/api/v1/projects')).status).toBe(401);
  });

  it('ends after 12 hours idle, and after 30 days however active', async () => {
    const member = await h.given.member(org, 'member');
    const idle = await h.given.session(member);
    clock.advance(11 * 3600_000);
    expect((await idle.get('/api/v1/projects')).status).toBe(200);
    clock.advance(11 * 3600_000); // 11 h after the last use: still alive
    expect((await idle.get('/api/v1/projects')).status).toBe(200);
    clock.advance(12 * 3600_000 + 1000);
    expect((await idle.get('/api/v1/projects')).status).toBe(401);

    // Used every 10 hours: alive until 30 days after sign-in, however active.
    const active = await h.given.session(member);
    for (let hours = 10; hours < 30 * 24; hours += 10) {
      clock.advance(10 * 3600_000);
      expect((await active.get('/api/dashboard/session')).status, `after ${hours} h`).toBe(200);
    }
    clock.advance(10 * 3600_000);
    expect((await active.get('/api/dashboard/session')).status).toBe(401);
  });

  it('ends every session of a member whose role changes, or who is removed', async () => {
    const member = await h.given.member(org, 'member');
    const session = await h.given.session(member);
    expect(
      (await org.admin.api.patch(`/api/v1/organization/members/${member.id}`, { role: 'viewer' })).status,
    ).toBe(200);
    expect((await session.get('/api/v1/projects')).status).toBe(401);

    const again = await h.given.session(member);
    expect((await again.get('/api/dashboard/session')).body.data.role).toBe('viewer');
    expect((await org.admin.api.delete(`/api/v1/organization/members/${member.id}`)).status).toBe(200);
    expect((await again.get('/api/v1/projects')).status).toBe(401);
  });
});

describe('sign-in links', () => {
  it('signs a member in once; a second use is 409, an expired link 400, an unknown one 404', async () => {
    const viewer = await h.given.member(org, 'viewer');
    const created = await org.admin.api.post('/api/dashboard/sign-in-links', { memberId: viewer.id });
    expect(created.status).toBe(201);
    expect(created.body.data.url).toMatch(
      new RegExp(`^${h.config.publicUrl}/sign-in/asl_[A-Za-z0-9_-]{43}$`),
    );
    const token = created.body.data.url.split('/').pop();

    const redeemed = await h.browser().post(`/api/dashboard/sign-in-links/${token}/redeem`);
    expect(redeemed.status).toBe(201);
    const me = await h
      .client(undefined, { cookie: `appmeta_session=${sessionCookieOf(redeemed)}` })
      .get('/api/dashboard/session');
    expect(me.body.data.member.id).toBe(viewer.id);

    const twice = await h.browser().post(`/api/dashboard/sign-in-links/${token}/redeem`);
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toContain('already used');

    const late = await org.admin.api.post('/api/dashboard/sign-in-links', { memberId: viewer.id });
    clock.advance(15 * 60_000 + 1);
    const expired = await h
      .browser()
      .post(`/api/dashboard/sign-in-links/${late.body.data.url.split('/').pop()}/redeem`);
    expect(expired.status).toBe(400);
    expect(expired.body.error.message).toContain('expired');

    expect((await h.browser().post('/api/dashboard/sign-in-links/asl_nope/redeem')).status).toBe(404);
  });

  it('signs in only from the dashboard: another site cannot sign the browser in (login CSRF)', async () => {
    const viewer = await h.given.member(org, 'viewer');
    const created = await org.admin.api.post('/api/dashboard/sign-in-links', { memberId: viewer.id });
    const token = created.body.data.url.split('/').pop();
    const path = `/api/dashboard/sign-in-links/${token}/redeem`;
    const forged = [
      h.client(undefined, { origin: 'http://evil.test' }),
      h.client(undefined, { origin: 'http://evil.test', 'x-appmeta-csrf': '1' }),
      h.client(undefined, { origin: new URL(h.config.publicUrl).origin }),
      h.client(),
    ];
    for (const client of forged) {
      const res = await client.post(path);
      expect(res.status).toBe(403);
      expect(res.body.error.message).toMatch(/X-Appmeta-CSRF|Origin/);
      expect(sessionCookieOf(res)).toBeUndefined();
    }
    const withKey = await h.client(undefined, { origin: 'http://evil.test' }).post('/api/dashboard/session', {
      apiKey: viewer.apiKey,
    });
    expect(withKey.status).toBe(403);
    expect(sessionCookieOf(withKey)).toBeUndefined();
    // The link was not used up by the refused attempts.
    expect((await h.browser().post(path)).status).toBe(201);
  });

  it("names a member of the admin's own organization only", async () => {
    const other = await h.given.organization();
    const res = await org.admin.api.post('/api/dashboard/sign-in-links', { memberId: other.admin.id });
    expect(res.status).toBe(404);
  });

  it('is issued by the operator for an e-mail, naming the organization when the address is in several', async () => {
    const link = await h.services.sessions.createSignInLinkAsOperator({ email: org.admin.email }, 'cli:test');
    expect(link.memberId).toBe(org.admin.id);
    const token = link.url.split('/').pop();
    expect((await h.browser().post(`/api/dashboard/sign-in-links/${token}/redeem`)).status).toBe(201);
    await expect(
      h.services.sessions.createSignInLinkAsOperator({ email: 'nobody@example.com' }, 'cli:test'),
    ).rejects.toThrow('No member with the e-mail nobody@example.com');
  });
});

describe('an accepted invite', () => {
  it('signs the new member in', async () => {
    const invited = await org.admin.api.post('/api/v1/organization/members', {
      email: 'newcomer@example.com',
      role: 'member',
    });
    const accepted = await h
      .browser()
      .post(`/api/dashboard/invites/${invited.body.data.inviteId}/accept`, { name: 'Newcomer' });
    expect(accepted.status).toBe(201);
    const token = sessionCookieOf(accepted);
    expect(token).toBeDefined();
    const me = await h
      .client(undefined, { cookie: `appmeta_session=${token}` })
      .get('/api/dashboard/session');
    expect(me.body.data).toMatchObject({ role: 'member', member: { email: 'newcomer@example.com' } });
  });
});

describe('passkeys', () => {
  it('are added from a session, not with an API key', async () => {
    const res = await org.admin.api.post('/api/dashboard/passkeys/registration/options');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('session');
    const session = await h.given.session(org.admin);
    const options = await session.post('/api/dashboard/passkeys/registration/options');
    expect(options.status).toBe(200);
    expect(options.body.data).toMatchObject({
      rp: { id: new URL(h.config.publicUrl).hostname },
      user: { name: org.admin.email },
    });
  });

  it('refuse a response of the wrong shape, or nested without end, in words a client can act on', async () => {
    const session = await h.given.session(org.admin);
    await session.post('/api/dashboard/passkeys/registration/options');
    const shapeless = await session.post('/api/dashboard/passkeys/registration/verify', {
      response: { id: 'a', rawId: 'a', type: 'public-key', response: {} },
    });
    expect(shapeless.status).toBe(400);
    expect(shapeless.body.error.details[0].field).toBe('response');
    expect(shapeless.body.error.message).not.toMatch(/undefined|Cannot read|length/);
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const nested = await h.app.inject({
      method: 'POST',
      url: '/api/dashboard/passkeys/registration/verify',
      headers: {
        cookie: `appmeta_session=${session.token}`,
        'x-appmeta-csrf': '1',
        origin: new URL(h.config.publicUrl).origin,
        'content-type': 'application/json',
      },
      payload: `{"response":{"id":"a","rawId":"a","type":"public-key","response":${deep}}}`,
    });
    expect(nested.statusCode).toBe(400);
    expect(nested.json().error.message).toBe('The body nests objects and arrays deeper than 32 levels');
  });

  it('refuse a sign-in with an unknown challenge', async () => {
    const res = await h.browser().post('/api/dashboard/passkeys/authentication/verify', {
      challengeId: 'wch_nope',
      response: { id: 'x', rawId: 'x', type: 'public-key' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe('challengeId');
  });
});
