/**
 * Idempotency-Key on POST (design.md §11), on both databases: the same key and request within
 * 24 hours replays the first response without running again (a push never writes twice); another
 * request with the key is 422 IDEMPOTENCY_KEY_REUSED; a request still running is 409; keys belong
 * to their caller (never replayed to another, even in the same organization), a replay checks the
 * caller's role again, and stored responses never hold a one-time secret in plaintext; failures
 * worth retrying free the key.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

const clock = new ManualClock();
let h: Harness;
let emu: RunningEmulators;
let org: TestOrganization;

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ clock, env: emu.env, lockWaitMs: 50 });
  org = await h.given.organization();
  await org.admin.api.request('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore);
  await org.admin.api.request('PUT', '/api/v1/organization/credentials/playstore', emu.credentials.playstore);
});
afterAll(async () => {
  await h.close();
  await emu.close();
});
beforeEach(() => emu.restore());

const withKey = (key: string) => ({ 'idempotency-key': key });
const projectCount = async () => (await org.admin.api.get('/api/v1/projects')).body.data.total as number;

describe('Idempotency-Key', () => {
  it('replays the first response to the same request, without running it again', async () => {
    const before = await projectCount();
    const first = await org.admin.api.request(
      'POST',
      '/api/v1/projects',
      { name: 'Once' },
      withKey('create-once'),
    );
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await org.admin.api.request(
      'POST',
      '/api/v1/projects',
      { name: 'Once' },
      withKey('create-once'),
    );
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(again.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(await projectCount()).toBe(before + 1);
  });

  it('refuses the key with another body, path or query: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    await org.admin.api.request('POST', '/api/v1/projects', { name: 'First' }, withKey('reused'));
    const other = await org.admin.api.request(
      'POST',
      '/api/v1/projects',
      { name: 'Second' },
      withKey('reused'),
    );
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(other.body.error.message).toContain('another request');
    const { id } = await h.given.project(org.admin);
    const elsewhere = await org.admin.api.request(
      'POST',
      `/api/v1/projects/${id}/sync`,
      {},
      withKey('reused'),
    );
    expect(elsewhere.status).toBe(422);
  });

  it('never pushes twice: a retried push replays the first outcome, and the store is written once', async () => {
    const { id } = await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE });
    await org.admin.api.post(`/api/v1/projects/${id}/sync`, {});
    await org.admin.api.patch(`/api/v1/projects/${id}/listings/appstore/en-US`, {
      promotionalText: 'Once only',
    });
    const first = await org.admin.api.request(
      'POST',
      `/api/v1/projects/${id}/push`,
      {},
      withKey(`push-${id}`),
    );
    expect(first.status).toBe(200);
    expect(first.body.data.pushedLocales).toEqual(['en-US']);
    const writes = emu.appStore.counters.requests;
    // Someone edits again; the retry must not push this newer value either.
    await org.admin.api.patch(`/api/v1/projects/${id}/listings/appstore/en-US`, {
      promotionalText: 'Twice?',
    });
    const retry = await org.admin.api.request(
      'POST',
      `/api/v1/projects/${id}/push`,
      {},
      withKey(`push-${id}`),
    );
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toEqual(first.body);
    expect(emu.appStore.counters.requests).toBe(writes);
    expect(emu.appStore.snapshot(APP_ID)['ver-2']!.versions['en-US']!.promotionalText).toBe('Once only');
  });

  it('answers 409 while the first request with the key is still running', async () => {
    const { id } = await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE });
    emu.faults.set([{ route: '* /v1/*', latencyMs: 300 }]);
    const slow = org.admin.api.request('POST', `/api/v1/projects/${id}/sync`, {}, withKey(`sync-${id}`));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const meanwhile = await org.admin.api.request(
      'POST',
      `/api/v1/projects/${id}/sync`,
      {},
      withKey(`sync-${id}`),
    );
    expect(meanwhile.status).toBe(409);
    expect(meanwhile.body.error.message).toContain('still running');
    expect((await slow).status).toBe(200);
    const after = await org.admin.api.request(
      'POST',
      `/api/v1/projects/${id}/sync`,
      {},
      withKey(`sync-${id}`),
    );
    expect(after.headers['idempotent-replayed']).toBe('true');
  });

  it('keeps keys per organization, and forgets them after 24 hours', async () => {
    const other = await h.given.organization();
    const mine = await org.admin.api.request(
      'POST',
      '/api/v1/projects',
      { name: 'Shared key' },
      withKey('per-org'),
    );
    const theirs = await other.admin.api.request(
      'POST',
      '/api/v1/projects',
      { name: 'Shared key' },
      withKey('per-org'),
    );
    expect(theirs.status).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.body.data.projectId).not.toBe(mine.body.data.projectId);

    clock.advance(24 * 3600_000 + 1000);
    const later = await org.admin.api.request(
      'POST',
      '/api/v1/projects',
      { name: 'Shared key' },
      withKey('per-org'),
    );
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.data.projectId).not.toBe(mine.body.data.projectId);
  });

  it('replays a refusal (4xx), but frees the key after a conflict so that the retry runs', async () => {
    // Blank passes the schema, and the service refuses it: the refusal is the stored answer.
    const bad = await org.admin.api.request('POST', '/api/v1/projects', { name: '   ' }, withKey('bad-body'));
    expect(bad.status).toBe(400);
    const badAgain = await org.admin.api.request(
      'POST',
      '/api/v1/projects',
      { name: '   ' },
      withKey('bad-body'),
    );
    expect(badAgain.status).toBe(400);
    expect(badAgain.headers['idempotent-replayed']).toBe('true');

    // A busy project (409 after the lock wait) is worth retrying with the same key.
    const { id } = await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE });
    emu.faults.set([{ route: '* /v1/*', latencyMs: 400 }]);
    const holder = org.admin.api.post(`/api/v1/projects/${id}/sync`, {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    const busy = await org.admin.api.request(
      'POST',
      `/api/v1/projects/${id}/sync`,
      {},
      withKey(`busy-${id}`),
    );
    expect(busy.status).toBe(409);
    await holder;
    emu.faults.set([]);
    const retry = await org.admin.api.request(
      'POST',
      `/api/v1/projects/${id}/sync`,
      {},
      withKey(`busy-${id}`),
    );
    expect(retry.status).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });

  it("never replays another caller's response: the key belongs to the API key that sent it", async () => {
    const viewer = await h.given.member(org, 'viewer');
    const member = await h.given.member(org, 'member');
    const created = await org.admin.api.request('POST', '/api/v1/api-keys', { name: 'ci' }, withKey('mine'));
    expect(created.status).toBe(201);
    const secret = created.body.data.apiKey as string;
    // The same request and key from a viewer runs as the viewer's own request: a key of their own.
    const viewers = await viewer.api.request('POST', '/api/v1/api-keys', { name: 'ci' }, withKey('mine'));
    expect(viewers.status).toBe(201);
    expect(viewers.headers['idempotent-replayed']).toBeUndefined();
    expect(viewers.body.data.apiKey).not.toBe(secret);
    expect(viewers.body.data.key.memberId).toBe(viewer.id);
    // An admin-only request with another caller's key is refused for the role, not replayed.
    const link = await org.admin.api.request(
      'POST',
      '/api/dashboard/sign-in-links',
      { memberId: member.id },
      withKey('link'),
    );
    expect(link.status).toBe(201);
    const stolen = await viewer.api.request(
      'POST',
      '/api/dashboard/sign-in-links',
      { memberId: member.id },
      withKey('link'),
    );
    expect(stolen.status).toBe(403);
    expect(JSON.stringify(stolen.body)).not.toContain(link.body.data.url);
    // The caller who lost the response gets it again, secret included.
    const again = await org.admin.api.request('POST', '/api/v1/api-keys', { name: 'ci' }, withKey('mine'));
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.apiKey).toBe(secret);
  });

  it("checks the caller's current role before a replay", async () => {
    const member = await h.given.member(org, 'member');
    const first = await member.api.request('POST', '/api/v1/projects', { name: 'Demoted' }, withKey('role'));
    expect(first.status).toBe(201);
    const demoted = await org.admin.api.patch(`/api/v1/organization/members/${member.id}`, {
      role: 'viewer',
    });
    expect(demoted.status).toBe(200);
    const replay = await member.api.request('POST', '/api/v1/projects', { name: 'Demoted' }, withKey('role'));
    expect(replay.status).toBe(403);
    expect(replay.headers['idempotent-replayed']).toBeUndefined();
    expect(replay.body.error.message).toContain('viewer');
  });

  it('keeps no one-time secret in plaintext anywhere in the database', async () => {
    const member = await h.given.member(org, 'member');
    const key = await org.admin.api.request(
      'POST',
      '/api/v1/api-keys',
      { name: 'scan' },
      withKey('scan-key'),
    );
    const link = await org.admin.api.request(
      'POST',
      '/api/dashboard/sign-in-links',
      { memberId: member.id },
      withKey('scan-link'),
    );
    const hook = await org.admin.api.request(
      'POST',
      '/api/v1/organization/webhooks',
      { url: 'https://hooks.example.com/appmeta', events: ['listing.updated'] },
      withKey('scan-hook'),
    );
    expect([key.status, link.status, hook.status]).toEqual([201, 201, 201]);
    const secrets = [
      key.body.data.apiKey as string,
      (link.body.data.url as string).split('/').pop()!,
      hook.body.data.secret as string,
    ];
    expect(secrets.map((secret) => secret.slice(0, 4))).toEqual(['amk_', 'asl_', 'whse']);
    const replayed = await org.admin.api.request(
      'POST',
      '/api/v1/organization/webhooks',
      { url: 'https://hooks.example.com/appmeta', events: ['listing.updated'] },
      withKey('scan-hook'),
    );
    expect(replayed.body.data.secret).toBe(secrets[2]);
    const found = await textColumnsHolding(secrets);
    expect(found).toEqual([]);
  });

  it('runs a request once when ten arrive at the same time with one key; the others replay or wait', async () => {
    const before = await projectCount();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        org.admin.api.request('POST', '/api/v1/projects', { name: 'Ten at once' }, withKey('ten')),
      ),
    );
    const ran = answers.filter((a) => a.status === 201 && a.headers['idempotent-replayed'] === undefined);
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer === ran[0]) continue;
      if (answer.status === 409) expect(answer.body.error.message).toContain('still running');
      else expect([answer.status, answer.headers['idempotent-replayed']]).toEqual([201, 'true']);
    }
    expect(await projectCount()).toBe(before + 1);
  });

  it('checks the key, and says where it cannot be honoured', async () => {
    const long = await org.admin.api.request(
      'POST',
      '/api/v1/projects',
      { name: 'X' },
      withKey('k'.repeat(256)),
    );
    expect(long.status).toBe(400);
    expect(long.body.error.details[0].field).toBe('Idempotency-Key');
    const { id } = await h.given.project(org.admin);
    const res = await h.app.inject({
      method: 'POST',
      url: `/api/v1/projects/${id}/import`,
      headers: {
        authorization: `Bearer ${org.admin.apiKey}`,
        'content-type': 'application/zip',
        'idempotency-key': 'import-1',
      },
      payload: Buffer.from('PK'),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toContain('Idempotency-Key: is not accepted here');
    // Without a caller there is nothing to scope the key to: the header does not change a sign-in.
    const signIn = await h
      .browser()
      .request('POST', '/api/dashboard/session', { apiKey: org.admin.apiKey }, withKey('sign-in'));
    expect(signIn.status).toBe(201);
  });
});

/** `table.column` of every text cell in the database that contains one of `needles`. */
async function textColumnsHolding(needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const table of await h.db.kysely.introspection.getTables()) {
    const rows = (await h.db.kysely
      .selectFrom(table.name as never)
      .selectAll()
      .execute()) as Record<string, unknown>[];
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const text =
          typeof value === 'string' ? value : Buffer.isBuffer(value) ? value.toString('latin1') : '';
        if (needles.some((needle) => text.includes(needle))) found.push(`${table.name}.${column}`);
      }
    }
  }
  return found;
}
