/**
 * Keys found are kept between requests (src/modules/api-keys/key-cache.ts), yet a revoked key, a
 * changed role, a removed member or a changed plan takes effect on the very next request — on the
 * instance that made the change, on another instance of the same database, and after a change by
 * another process (the CLI). Two instances share one database here: a SQLite file or PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type Db } from '../../src/db/database.js';
import pino from 'pino';
import { identityVersionKey } from '../../src/db/identity-version.js';
import { createRateLimiter } from '../../src/http/rate-limiter.js';
import { createTestDatabase, testRedisUrl, type TestDatabase } from '../support/databases.js';
import { startHarness, type Harness } from '../support/harness.js';

let dir: string;
let database: TestDatabase;
let a: Harness;
let b: Harness;
/** A third connection, as the CLI or any other process would open. */
let other: Db;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-identity-'));
  database = await createTestDatabase({ file: path.join(dir, 'shared.db') });
  a = await startHarness({ database });
  b = await startHarness({ database });
  other = createDb(a.config.database);
});
afterAll(async () => {
  await other?.destroy();
  await b?.close();
  await a?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('authenticated keys kept between requests', () => {
  it('refuses a key revoked on one instance on the next request to the other', async () => {
    const org = await a.given.organization();
    const member = await a.given.member(org, 'member');
    const onB = b.client(member.apiKey);
    // Both instances have found the key (and may keep it).
    for (let i = 0; i < 2; i++) expect((await onB.get('/api/v1/projects')).status).toBe(200);
    expect((await a.client(member.apiKey).get('/api/v1/projects')).status).toBe(200);
    const keys = await member.api.get<{ data: { keys: { id: string }[] } }>('/api/v1/api-keys');
    const keyId = keys.body.data.keys[0]!.id;

    expect((await org.admin.api.delete(`/api/v1/api-keys/${keyId}`)).status).toBe(200);

    expect((await onB.get('/api/v1/projects')).status).toBe(401);
    expect((await a.client(member.apiKey).get('/api/v1/projects')).status).toBe(401);
  });

  it('refuses a dashboard sign-in on the other instance with a key revoked on one', async () => {
    const org = await a.given.organization();
    const member = await a.given.member(org, 'member');
    expect((await b.client(member.apiKey).get('/api/v1/projects')).status).toBe(200);
    const keys = await member.api.get<{ data: { keys: { id: string }[] } }>('/api/v1/api-keys');
    expect((await org.admin.api.delete(`/api/v1/api-keys/${keys.body.data.keys[0]!.id}`)).status).toBe(200);

    const signIn = await b.browser().post('/api/dashboard/session', { apiKey: member.apiKey });
    expect(signIn.status).toBe(401);
  });

  it('applies a role changed on one instance to the next request on the other', async () => {
    const org = await a.given.organization();
    const member = await a.given.member(org, 'member');
    const onB = b.client(member.apiKey);
    expect((await onB.post('/api/v1/projects', { name: 'Allowed' })).status).toBe(201);

    const changed = await org.admin.api.patch(`/api/v1/organization/members/${member.id}`, {
      role: 'viewer',
    });
    expect(changed.status).toBe(200);

    const refused = await onB.post('/api/v1/projects', { name: 'Refused' });
    expect(refused.status).toBe(403);
    expect((await onB.get('/api/v1/projects')).status).toBe(200);
  });

  it('applies a scope changed on one instance to the next request on the other (key and session)', async () => {
    const org = await a.given.organization();
    const member = await a.given.member(org, 'member');
    const kept = (await a.given.project(org.admin, { appStoreAppId: '1234567890' })).id;
    const hidden = (await a.given.project(org.admin, { appStoreAppId: '1234567890' })).id;
    const onB = b.client(member.apiKey);
    const sessionOnB = await b.given.session(member);
    for (const client of [onB, sessionOnB]) {
      expect((await client.get(`/api/v1/projects/${hidden}`)).status).toBe(200);
      expect(
        (await client.patch(`/api/v1/projects/${kept}/listings/appstore/fr-FR`, { name: 'Météo' })).status,
      ).toBe(200);
    }

    const narrowed = await org.admin.api.patch(`/api/v1/organization/members/${member.id}`, {
      access: { projects: [kept], locales: ['de-DE'] },
    });
    expect(narrowed.status).toBe(200);

    for (const client of [onB, sessionOnB]) {
      expect((await client.get(`/api/v1/projects/${hidden}`)).status).toBe(404);
      const refused = await client.patch(`/api/v1/projects/${kept}/listings/appstore/fr-FR`, { name: 'Non' });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toContain('fr-FR');
      expect(
        (await client.patch(`/api/v1/projects/${kept}/listings/appstore/de-DE`, { name: 'Wetter' })).status,
      ).toBe(200);
    }
  });

  it('refuses a member removed on one instance on the next request to the other', async () => {
    const org = await a.given.organization();
    const member = await a.given.member(org, 'viewer');
    const onB = b.client(member.apiKey);
    expect((await onB.get('/api/v1/projects')).status).toBe(200);

    expect((await org.admin.api.delete(`/api/v1/organization/members/${member.id}`)).status).toBe(200);

    expect((await onB.get('/api/v1/projects')).status).toBe(401);
  });

  it('sees a key revoked and a plan changed by another process on the next request', async () => {
    const org = await a.given.organization({ plan: 'free' });
    const member = await a.given.member(org, 'member');
    for (const h of [a, b]) {
      const response = await h.client(org.admin.apiKey).get('/api/v1/projects');
      expect(response.headers['x-ratelimit-limit']).toBe('100');
    }

    // Written by another connection, as `appmeta org set-plan` and a revocation by the CLI do.
    await other.kysely
      .updateTable('organizations')
      .set({ plan: 'enterprise' })
      .where('id', '=', org.id)
      .execute();
    await sql`UPDATE api_keys SET revoked_at = ${new Date().toISOString()} WHERE member_id = ${member.id}`.execute(
      other.kysely,
    );

    for (const h of [a, b]) {
      const response = await h.client(org.admin.apiKey).get('/api/v1/projects');
      expect(response.headers['x-ratelimit-limit']).toBe('10000');
      expect((await h.client(member.apiKey).get('/api/v1/projects')).status).toBe(401);
    }
  });
});

describe('the identity version', () => {
  it('moves with writes to keys, members and organizations, not with other writes', async () => {
    const org = await a.given.organization();
    await a.given.project(org.admin, { name: 'Not an identity change' });
    // SQLite: the version of the file. PostgreSQL: the counter in Redis that commits move.
    const version = a.dialect === 'sqlite' ? () => a.db.identityVersion!.current()! : redisVersion;
    const before = await version();
    await a.db.kysely.updateTable('projects').set({ name: 'Renamed' }).where('name', '=', 'x').execute();
    expect(await version()).toBe(before);
    await a.db.kysely.updateTable('members').set({ role: 'admin' }).where('id', '=', org.admin.id).execute();
    const afterOwnWrite = await version();
    expect(afterOwnWrite).toBeGreaterThan(before);
    // Another connection's commit, to any table on SQLite (PRAGMA data_version), is seen; on
    // PostgreSQL only its identity changes are announced.
    await other.kysely.updateTable('projects').set({ name: 'Elsewhere' }).where('name', '=', 'x').execute();
    expect(await version()).toBe(afterOwnWrite);
    await other.kysely
      .updateTable('organizations')
      .set({ name: 'Renamed elsewhere' })
      .where('id', '=', org.id)
      .execute();
    const afterOtherWrite = await version();
    expect(afterOtherWrite).toBeGreaterThan(afterOwnWrite);

    // A change inside a transaction counts once it commits, and not at all if it rolls back.
    await a.db.kysely
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('members').set({ role: 'admin' }).where('id', '=', org.admin.id).execute();
        throw new Error('rolled back');
      })
      .catch(() => undefined);
    const afterRollback = await version();
    if (a.dialect === 'postgres') expect(afterRollback).toBe(afterOtherWrite);
    await a.db.kysely.transaction().execute(async (trx) => {
      await trx.updateTable('members').set({ role: 'admin' }).where('id', '=', org.admin.id).execute();
      if (a.dialect === 'postgres') expect(await version()).toBe(afterRollback);
    });
    expect(await version()).toBeGreaterThan(afterRollback);
  });

  it('is kept only where it can be exact: SQLite, or PostgreSQL with Redis', async () => {
    expect(a.db.identityVersion).not.toBeNull();
    const withoutRedis = createDb({
      ...a.config.database,
      ...(a.dialect === 'postgres' && { redisUrl: null }),
    });
    try {
      expect(withoutRedis.identityVersion === null).toBe(a.dialect === 'postgres');
    } finally {
      await withoutRedis.destroy();
    }
  });
});

/** The identity version in Redis, as a rate-limit count reads it back. */
async function redisVersion(): Promise<number> {
  const limiter = createRateLimiter({
    redisUrl: testRedisUrl(),
    log: pino({ level: 'silent' }),
    keyPrefix: 'appmeta:test:identity-version',
    identityVersionKey: identityVersionKey(a.config.database),
  });
  try {
    for (let attempt = 0; attempt < 50; attempt++) {
      const { identityVersion } = await limiter.take('probe', 1_000_000, 0);
      if (identityVersion !== null) return identityVersion;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('Redis did not answer');
  } finally {
    await limiter.close();
  }
}
