/**
 * Credentials never reach the log: not in headers, not in query strings (a key sent as ?api_key=
 * by mistake), not in paths (invite links). Every harness also checks its whole log when it closes
 * (test/support/log-capture.ts); this file sends the cases on purpose and reads the lines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sanitizeUrl } from '../../src/logger.js';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

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

describe('request ids in the log', () => {
  it("binds the request id to every line of a request, the caller's own X-Request-Id included", async () => {
    const traced = await h
      .client(org.admin.apiKey, { 'x-request-id': 'trace.log-7' })
      .get('/api/v1/projects/nope');
    expect(traced.status).toBe(404);
    const own = await h.client(org.admin.apiKey).get('/api/v1/projects/nope-either');
    const lines = h.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    const ofRequest = (id: unknown) => lines.filter((line) => line.reqId === id);
    for (const id of ['trace.log-7', own.headers['x-request-id']]) {
      const messages = ofRequest(id).map((line) => line.msg);
      expect(messages).toEqual(expect.arrayContaining(['incoming request', 'request completed']));
      // Bound once, beside the service's own bindings.
      const completed = h.logs.find(
        (line) => line.includes(`"reqId":"${String(id)}"`) && line.includes('request completed'),
      )!;
      expect(completed.split('"reqId"')).toHaveLength(2);
      expect(JSON.parse(completed).pid).toBe(process.pid);
    }
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
