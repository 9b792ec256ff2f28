/**
 * Credentials never reach the log: not in headers, not in query strings (a key sent as ?api_key=
 * by mistake), not in paths (invite links). Every harness also checks its whole log when it closes
 * (test/support/log-capture.ts); this file sends the cases on purpose and reads the lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeUrl } from '../src/logger.js';
import { startHarness, type Harness, type TestOrganization } from './support/harness.js';

let h: Harness;
let org: TestOrganization;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
});
afterAll(() => h.close());

const logged = () => h.logs.join('\n');

describe('what the log keeps of a request', () => {
  it('redacts a key sent in the query string, and keeps the rest of the URL', async () => {
    await h
      .client(org.admin.apiKey)
      .get(`/api/v1/projects?limit=5&api_key=${org.admin.apiKey}&access_token=abc`);
    expect(logged()).not.toContain(org.admin.apiKey);
    expect(logged()).toContain('/api/v1/projects?limit=5&api_key=[REDACTED]&access_token=[REDACTED]');
  });

  it('redacts invite ids in invite links, and a key pasted into a path', async () => {
    const { inviteId } = (
      await org.admin.api.post('/api/v1/organization/members', { email: 'x@example.com' })
    ).body.data;
    await h.client().get(`/api/dashboard/invites/${inviteId}`);
    await h.client().get(`/some/${org.admin.apiKey}`);
    expect(logged()).not.toContain(inviteId);
    expect(logged()).not.toContain(org.admin.apiKey);
    expect(logged()).toContain('/api/dashboard/invites/[REDACTED]');
  });

  it('logs no header value of Authorization, Cookie or X-Api-Key', async () => {
    await h
      .client(org.admin.apiKey, { cookie: 'appmeta_session=s3cr3t-session-value', 'x-api-key': 'k3y-value' })
      .get('/api/v1/organization');
    for (const secret of [org.admin.apiKey, 's3cr3t-session-value', 'k3y-value'])
      expect(logged()).not.toContain(secret);
  });
});

describe('sanitizeUrl', () => {
  it.each([
    ['/api/v1/projects?limit=20', '/api/v1/projects?limit=20'],
    [
      '/api/v1/media/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
      '/api/v1/media/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    ],
    ['/sign-in/abcdef', '/sign-in/[REDACTED]'],
    [
      '/x?token=1&code=2&signature=3&page=4',
      '/x?token=[REDACTED]&code=[REDACTED]&signature=[REDACTED]&page=4',
    ],
    ['/x?next=eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJ4In0.sig', '/x?next=[REDACTED]'],
    ['/x?q=whsec_abcdefghijklmnop', '/x?q=[REDACTED]'],
  ])('%s → %s', (url, safe) => {
    expect(sanitizeUrl(url)).toBe(safe);
  });
});
