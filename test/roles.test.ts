/**
 * The role matrix of design.md §6, written out here independently of src/modules/access: every
 * operation × every role, each driven over HTTP with a request that is valid apart from the role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appStoreCredentials } from './support/store-keys.js';
import { OPERATIONS, type OperationId } from '../src/modules/access/operations.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from './support/harness.js';

type Role = 'viewer' | 'member' | 'admin';
type Call = (actor: Actor, setup: Setup) => Promise<{ status: number; body: any }>;
interface Setup {
  org: TestOrganization;
  project: string;
  other: Actor;
}

const V = true;
const X = false;

// operation: [viewer, member, admin, the request]
const MATRIX: Record<OperationId, [boolean, boolean, boolean, Call]> = {
  'projects.list': [V, V, V, (a) => a.api.get('/api/v1/projects')],
  'projects.get': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}`)],
  'projects.create': [X, V, V, (a) => a.api.post('/api/v1/projects', { name: 'New' })],
  'projects.update': [X, V, V, (a, s) => a.api.patch(`/api/v1/projects/${s.project}`, { name: 'Renamed' })],
  'projects.delete': [X, X, V, (a, s) => a.api.delete(`/api/v1/projects/${s.project}`)],
  'projects.sync': [X, V, V, (a, s) => a.api.post(`/api/v1/projects/${s.project}/sync`, {})],
  'projects.push': [X, V, V, (a, s) => a.api.post(`/api/v1/projects/${s.project}/push`, {})],
  'listings.read': [V, V, V, (a, s) => a.api.get(`/api/v1/projects/${s.project}/listings`)],
  'listings.edit': [
    X,
    V,
    V,
    (a, s) => a.api.patch(`/api/v1/projects/${s.project}/listings/appstore/en-US`, { name: 'Hello' }),
  ],
  'listings.approve': [
    X,
    X,
    V,
    async (a, s) => {
      await s.org.admin.api.patch(`/api/v1/projects/${s.project}/listings/playstore/de-DE`, {
        title: 'Hallo',
      });
      return a.api.post(`/api/v1/projects/${s.project}/approvals`);
    },
  ],
  'organization.get': [V, V, V, (a) => a.api.get('/api/v1/organization')],
  'organization.update': [X, X, V, (a) => a.api.patch('/api/v1/organization', { name: 'New name' })],
  'auditLog.list': [X, X, V, (a) => a.api.get('/api/v1/organization/audit-log')],
  'credentials.read': [X, X, V, (a) => a.api.get('/api/v1/organization/credentials')],
  'credentials.write': [
    X,
    X,
    V,
    (a) => {
      const { issuerId, keyId, privateKey } = appStoreCredentials();
      return a.api.request('PUT', '/api/v1/organization/credentials/appstore', {
        issuerId,
        keyId,
        privateKey,
      });
    },
  ],
  'members.list': [V, V, V, (a) => a.api.get('/api/v1/organization/members')],
  'members.updateRole': [
    X,
    X,
    V,
    (a, s) => a.api.patch(`/api/v1/organization/members/${s.other.id}`, { role: 'viewer' }),
  ],
  'members.remove': [X, X, V, (a, s) => a.api.delete(`/api/v1/organization/members/${s.other.id}`)],
  'invites.create': [
    X,
    X,
    V,
    (a) =>
      a.api.post('/api/v1/organization/members', {
        email: `i${Math.random()}@example.com`.replace('0.', ''),
      }),
  ],
  'invites.list': [X, X, V, (a) => a.api.get('/api/v1/organization/invites')],
  'invites.revoke': [
    X,
    X,
    V,
    async (a, s) => {
      const created = await s.org.admin.api.post('/api/v1/organization/members', {
        email: `r${Date.now()}${Math.random()}@example.com`.replace('0.', ''),
      });
      return a.api.delete(`/api/v1/organization/invites/${created.body.data.inviteId}`);
    },
  ],
  'apiKeys.list': [V, V, V, (a) => a.api.get('/api/v1/api-keys')],
  'apiKeys.create': [V, V, V, (a) => a.api.post('/api/v1/api-keys', { name: 'mine' })],
  'apiKeys.revoke': [
    V,
    V,
    V,
    async (a) => {
      const created = await a.api.post('/api/v1/api-keys', { name: 'to revoke' });
      return a.api.delete(`/api/v1/api-keys/${created.body.data.key.id}`);
    },
  ],
  'apiKeys.manageOthers': [X, X, V, (a, s) => a.api.get(`/api/v1/api-keys?memberId=${s.other.id}`)],
};

let h: Harness;
let org: TestOrganization;
const actors = {} as Record<Role, Actor>;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
  actors.admin = org.admin;
  actors.member = await h.given.member(org, 'member');
  actors.viewer = await h.given.member(org, 'viewer');
});
afterAll(() => h.close());

describe('role matrix', () => {
  it('covers every operation the service defines', () => {
    expect(Object.keys(MATRIX).sort()).toEqual(Object.keys(OPERATIONS).sort());
  });

  const cases = (Object.entries(MATRIX) as [OperationId, [boolean, boolean, boolean, Call]][]).flatMap(
    ([operation, [viewer, member, admin, call]]) =>
      (
        [
          ['viewer', viewer],
          ['member', member],
          ['admin', admin],
        ] as [Role, boolean][]
      ).map(([role, allowed]) => ({ operation, role, allowed, call })),
  );

  it.each(cases)('$operation as $role: allowed=$allowed', async ({ role, allowed, call }) => {
    const setup: Setup = {
      org,
      project: (
        await h.given.project(org.admin, { appStoreAppId: '1', playStorePackageName: 'com.example.app' })
      ).id,
      other: await h.given.member(org, 'member'),
    };
    const res = await call(actors[role], setup);
    if (allowed) {
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    } else {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
    }
  });
});
