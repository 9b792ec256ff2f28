import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /api/v1/organization/members', () => {
  it('lists members in the Member shape', async () => {
    const org = await h.given.organization();
    const viewer = await h.given.member(org, 'viewer', 'Vera@Example.com');
    const res = await viewer.api.get('/api/v1/organization/members');
    expect(res.status).toBe(200);
    expect(res.body.data.members).toHaveLength(2);
    const listed = res.body.data.members.find((m: any) => m.id === viewer.id);
    expect(listed).toEqual({
      id: viewer.id,
      email: 'vera@example.com',
      name: expect.any(String),
      role: 'viewer',
      status: 'active',
      lastActive: expect.stringMatching(/Z$/), // the list request itself used the key
      joinedAt: expect.stringMatching(/Z$/),
      access: { projects: 'all', locales: 'all', approve: false },
    });
  });
});

describe('PATCH /api/v1/organization/members/:memberId', () => {
  it('changes the role, answering id and role, and the new role applies at once', async () => {
    const org = await h.given.organization();
    const member = await h.given.member(org, 'member');
    expect((await member.api.post('/api/v1/projects', { name: 'ok' })).status).toBe(201);
    const res = await org.admin.api.patch(`/api/v1/organization/members/${member.id}`, { role: 'viewer' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: member.id,
      role: 'viewer',
      access: { projects: 'all', locales: 'all', approve: false },
    });
    expect((await member.api.post('/api/v1/projects', { name: 'no' })).status).toBe(403);
  });

  it('refuses to demote the last admin with 400', async () => {
    const org = await h.given.organization();
    const res = await org.admin.api.patch(`/api/v1/organization/members/${org.admin.id}`, { role: 'member' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('at least one admin');
    const second = await h.given.member(org, 'admin');
    expect(
      (await second.api.patch(`/api/v1/organization/members/${org.admin.id}`, { role: 'member' })).status,
    ).toBe(200);
  });

  it('keeps one admin when two admins demote each other at the same time', async () => {
    const org = await h.given.organization();
    const other = await h.given.member(org, 'admin');
    const viewer = await h.given.member(org, 'viewer');
    const results = await Promise.all([
      org.admin.api.patch(`/api/v1/organization/members/${other.id}`, { role: 'member' }),
      other.api.patch(`/api/v1/organization/members/${org.admin.id}`, { role: 'member' }),
    ]);
    const listed = await viewer.api.get('/api/v1/organization/members');
    expect(listed.body.data.members.filter((m: { role: string }) => m.role === 'admin')).toHaveLength(1);
    expect(results.map((r) => r.status).sort()).toContain(200);
  });

  it('answers 400 for a bad role and 404 for an unknown member', async () => {
    const org = await h.given.organization();
    const bad = await org.admin.api.patch(`/api/v1/organization/members/${org.admin.id}`, { role: 'owner' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0]).toEqual({
      field: 'role',
      message: 'must be one of admin, member, viewer',
    });
    expect(
      (await org.admin.api.patch('/api/v1/organization/members/mem_unknown', { role: 'member' })).status,
    ).toBe(404);
  });
});

describe('DELETE /api/v1/organization/members/:memberId', () => {
  it('removes the member with success and message, and its keys are 401 at once', async () => {
    const org = await h.given.organization();
    const member = await h.given.member(org, 'member');
    const extraKey = (await member.api.post('/api/v1/api-keys', { name: 'second' })).body.data.apiKey;
    const res = await org.admin.api.delete(`/api/v1/organization/members/${member.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.stringContaining(member.email) });
    expect(res.body).not.toHaveProperty('data');
    expect((await member.api.get('/api/v1/projects')).status).toBe(401);
    expect((await h.client(extraKey).get('/api/v1/projects')).status).toBe(401);
    const list = await org.admin.api.get('/api/v1/organization/members');
    expect(list.body.data.members.map((m: any) => m.id)).not.toContain(member.id);
    expect((await org.admin.api.delete(`/api/v1/organization/members/${member.id}`)).status).toBe(404);
  });

  it('refuses to remove the last admin with 400', async () => {
    const org = await h.given.organization();
    const res = await org.admin.api.delete(`/api/v1/organization/members/${org.admin.id}`);
    expect(res.status).toBe(400);
  });

  it('lets a removed address be invited again', async () => {
    const org = await h.given.organization();
    const member = await h.given.member(org, 'member', 'again@example.com');
    await org.admin.api.delete(`/api/v1/organization/members/${member.id}`);
    expect(
      (await org.admin.api.post('/api/v1/organization/members', { email: 'again@example.com' })).status,
    ).toBe(201);
  });
});
