/** Another organization's ids are "not found" on every id-taking route, and lists never mix. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
let mine: TestOrganization;
let theirs: TestOrganization;
const their = { project: '', member: '', invite: '', key: '' };

beforeAll(async () => {
  h = await startHarness();
  mine = await h.given.organization();
  theirs = await h.given.organization();
  their.project = (await h.given.project(theirs.admin, { appStoreAppId: '1' })).id;
  their.member = (await h.given.member(theirs, 'member')).id;
  their.invite = (
    await theirs.admin.api.post('/api/v1/organization/members', { email: 'pending@example.com' })
  ).body.data.inviteId;
  their.key = (await theirs.admin.api.get('/api/v1/api-keys')).body.data.keys[0].id;
});
afterAll(() => h.close());

describe('organization isolation', () => {
  type Case = [method: 'GET' | 'PATCH' | 'DELETE' | 'POST', path: () => string, body?: unknown];
  it.each<Case>([
    ['GET', () => `/api/v1/projects/${their.project}`],
    ['PATCH', () => `/api/v1/projects/${their.project}`, { name: 'x' }],
    ['DELETE', () => `/api/v1/projects/${their.project}`],
    ['POST', () => `/api/v1/projects/${their.project}/sync`, {}],
    ['POST', () => `/api/v1/projects/${their.project}/push`, {}],
    ['PATCH', () => `/api/v1/organization/members/${their.member}`, { role: 'viewer' }],
    ['DELETE', () => `/api/v1/organization/members/${their.member}`],
    ['DELETE', () => `/api/v1/organization/invites/${their.invite}`],
    ['DELETE', () => `/api/v1/api-keys/${their.key}`],
    ['GET', () => `/api/v1/api-keys?memberId=${their.member}`],
    ['POST', () => '/api/v1/api-keys', () => ({ memberId: their.member })],
  ])('%s %s answers 404 for the other organization', async (method, path, body) => {
    const payload: unknown = typeof body === 'function' ? (body as () => unknown)() : body;
    const res = await mine.admin.api.request(method, path(), payload);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('leaves the other organization untouched and its lists separate', async () => {
    expect((await theirs.admin.api.get(`/api/v1/projects/${their.project}`)).body.data.project.name).not.toBe(
      'x',
    );
    const myProjects = await mine.admin.api.get('/api/v1/projects');
    expect(myProjects.body.data.projects.map((p: any) => p.id)).not.toContain(their.project);
    const myMembers = await mine.admin.api.get('/api/v1/organization/members');
    expect(myMembers.body.data.members.map((m: any) => m.id)).not.toContain(their.member);
    const myInvites = await mine.admin.api.get('/api/v1/organization/invites');
    expect(myInvites.body.data.invites).toEqual([]);
    const myAudit = await mine.admin.api.get('/api/v1/organization/audit-log?limit=100');
    expect(myAudit.body.data.entries.length).toBeGreaterThan(0);
    expect(myAudit.body.data.entries.map((e: any) => e.target.id)).not.toContain(their.project);
    expect((await theirs.admin.api.get('/api/v1/organization/members')).body.data.members).toHaveLength(2);
    expect((await h.client(theirs.admin.apiKey).get('/api/v1/organization')).body.data.id).toBe(theirs.id);
  });
});
