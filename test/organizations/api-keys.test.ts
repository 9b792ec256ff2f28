import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
const clock = new ManualClock();

beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

describe('/api/v1/api-keys', () => {
  it('creates a key shown once with no-store, lists it without the secret, and revokes it', async () => {
    const org = await h.given.organization();
    const viewer = await h.given.member(org, 'viewer');
    const created = await viewer.api.post('/api/v1/api-keys', { name: 'CI' });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const { apiKey, key } = created.body.data;
    expect(apiKey).toMatch(/^amk_[A-Za-z0-9_-]{43}$/);
    expect(key).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'CI',
      memberId: viewer.id,
      prefix: apiKey.slice(0, 12),
      createdAt: expect.stringMatching(/Z$/),
      lastUsedAt: null,
      expiresAt: null,
    });
    const listed = await viewer.api.get('/api/v1/api-keys');
    expect(listed.body.data.keys.map((k: any) => k.id)).toContain(key.id);
    expect(JSON.stringify(listed.body)).not.toContain(apiKey);
    expect((await h.client(apiKey).get('/api/v1/projects')).status).toBe(200);
    expect((await viewer.api.delete(`/api/v1/api-keys/${key.id}`)).body).toEqual({
      success: true,
      data: { revoked: true },
    });
    expect((await h.client(apiKey).get('/api/v1/projects')).status).toBe(401);
    expect((await viewer.api.delete(`/api/v1/api-keys/${key.id}`)).status).toBe(404);
  });

  it('stores only a SHA-256 hash of the secret', async () => {
    const org = await h.given.organization();
    const rows = await h.db.kysely
      .selectFrom('api_keys')
      .selectAll()
      .where('organization_id', '=', org.id)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(org.admin.apiKey);
  });

  it('expires keys at expiresAt and refuses past or far expiry times', async () => {
    const org = await h.given.organization();
    const expiresAt = new Date(clock.now().getTime() + 3600_000).toISOString();
    const created = await org.admin.api.post('/api/v1/api-keys', { name: 'short', expiresAt });
    expect(created.body.data.key.expiresAt).toBe(expiresAt);
    const key = created.body.data.apiKey;
    expect((await h.client(key).get('/api/v1/projects')).status).toBe(200);
    clock.advance(3600_000);
    expect((await h.client(key).get('/api/v1/projects')).status).toBe(401);
    const past = await org.admin.api.post('/api/v1/api-keys', { expiresAt: '2000-01-01T00:00:00.000Z' });
    expect(past.status).toBe(400);
    expect(past.body.error.details[0].field).toBe('expiresAt');
    const bad = await org.admin.api.post('/api/v1/api-keys', { expiresAt: 'tomorrow' });
    expect(bad.status).toBe(400);
  });

  it('records lastUsedAt and the member lastActive at most once a minute', async () => {
    const org = await h.given.organization();
    const member = await h.given.member(org, 'member');
    await member.api.get('/api/v1/projects');
    const first = (await member.api.get('/api/v1/api-keys')).body.data.keys[0].lastUsedAt;
    expect(first).toMatch(/Z$/);
    clock.advance(30_000);
    await member.api.get('/api/v1/projects');
    expect((await member.api.get('/api/v1/api-keys')).body.data.keys[0].lastUsedAt).toBe(first);
    clock.advance(31_000);
    await member.api.get('/api/v1/projects');
    const later = (await member.api.get('/api/v1/api-keys')).body.data.keys[0].lastUsedAt;
    expect(later > first).toBe(true);
    const listed = await org.admin.api.get('/api/v1/organization/members');
    expect(listed.body.data.members.find((m: any) => m.id === member.id).lastActive).toBe(later);
  });

  it("lets admins list, create and revoke other members' keys; others get 403", async () => {
    const org = await h.given.organization();
    const member = await h.given.member(org, 'member');
    const other = await h.given.member(org, 'member');
    const forOther = await org.admin.api.post('/api/v1/api-keys', {
      name: 'for member',
      memberId: member.id,
    });
    expect(forOther.status).toBe(201);
    expect(forOther.body.data.key.memberId).toBe(member.id);
    const listed = await org.admin.api.get(`/api/v1/api-keys?memberId=${member.id}`);
    expect(listed.body.data.keys).toHaveLength(2);
    expect((await org.admin.api.delete(`/api/v1/api-keys/${forOther.body.data.key.id}`)).status).toBe(200);
    expect((await other.api.get(`/api/v1/api-keys?memberId=${member.id}`)).status).toBe(403);
    expect((await other.api.post('/api/v1/api-keys', { memberId: member.id })).status).toBe(403);
    const memberKeyId = (await member.api.get('/api/v1/api-keys')).body.data.keys[0].id;
    expect((await other.api.delete(`/api/v1/api-keys/${memberKeyId}`)).status).toBe(403);
    expect((await org.admin.api.get('/api/v1/api-keys?memberId=mem_unknown')).status).toBe(404);
  });
});
