import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulators, type RunningEmulators, APP_ID, PACKAGE } from '../support/emulators.js';
import { startHarness, type Harness } from '../support/harness.js';
import { appStoreCredentials, serviceAccount } from '../support/store-keys.js';

let emu: RunningEmulators;
let h: Harness;

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ env: emu.env });
});
afterAll(async () => {
  await h.close();
  await emu.close();
});
beforeEach(() => emu.restore());

const put = (api: any, store: string, body: unknown) =>
  api.request('PUT', `/api/v1/organization/credentials/${store}`, body);

describe('/api/v1/organization/credentials', () => {
  it('sets, lists (metadata only), verifies and deletes credentials of both stores', async () => {
    const { admin } = await h.given.organization();
    expect((await admin.api.get('/api/v1/organization/credentials')).body.data.credentials).toEqual([
      { store: 'appstore', configured: false },
      { store: 'playstore', configured: false },
      { store: 'deepl', configured: false },
    ]);
    const apple = await put(admin.api, 'appstore', emu.credentials.appstore);
    expect(apple.status).toBe(200);
    expect(apple.body.data).toEqual({
      store: 'appstore',
      configured: true,
      issuerId: emu.credentials.appstore.issuerId,
      keyId: emu.credentials.appstore.keyId,
      updatedAt: expect.stringMatching(/Z$/),
      lastVerification: null,
    });
    const google = await put(admin.api, 'playstore', {
      serviceAccount: JSON.stringify(emu.credentials.playstore.serviceAccount),
    });
    expect(google.body.data).toMatchObject({
      store: 'playstore',
      configured: true,
      clientEmail: emu.credentials.playstore.serviceAccount.client_email,
    });
    const listed = await admin.api.get('/api/v1/organization/credentials');
    expect(listed.body.data.credentials.map((c: any) => c.configured)).toEqual([true, true, false]);

    expect((await admin.api.post('/api/v1/organization/credentials/appstore/verify')).body.data).toEqual({
      store: 'appstore',
      verified: true,
    });
    expect((await admin.api.post('/api/v1/organization/credentials/playstore/verify')).body.data).toEqual({
      store: 'playstore',
      verified: true,
    });
    // The list says when each was last checked, and the answer; a new key has not been checked.
    const checked = (await admin.api.get('/api/v1/organization/credentials')).body.data.credentials;
    expect(checked[0].lastVerification).toEqual({ at: expect.stringMatching(/Z$/), verified: true });
    await put(admin.api, 'appstore', emu.credentials.appstore);
    const replaced = (await admin.api.get('/api/v1/organization/credentials')).body.data.credentials;
    expect(replaced[0].lastVerification).toBeNull();
    expect(replaced[1].lastVerification).toEqual(checked[1].lastVerification);

    expect((await admin.api.delete('/api/v1/organization/credentials/playstore')).body.data).toEqual({
      deleted: true,
    });
    expect((await admin.api.delete('/api/v1/organization/credentials/playstore')).status).toBe(404);
    expect((await admin.api.post('/api/v1/organization/credentials/playstore/verify')).status).toBe(404);
  });

  it('answers verified false with the store error when the store refuses the key', async () => {
    const { admin } = await h.given.organization();
    const unknown = appStoreCredentials(); // a well-formed key the emulator never registered
    await put(admin.api, 'appstore', {
      issuerId: unknown.issuerId,
      keyId: unknown.keyId,
      privateKey: unknown.privateKey,
    });
    const res = await admin.api.post('/api/v1/organization/credentials/appstore/verify');
    expect(res.body.data).toEqual({
      store: 'appstore',
      verified: false,
      error: {
        code: 'NOT_AUTHORIZED',
        message: expect.stringContaining('Authentication credentials are missing or invalid'),
      },
    });
    const stranger = serviceAccount();
    await put(admin.api, 'playstore', { serviceAccount: stranger.account });
    const google = await admin.api.post('/api/v1/organization/credentials/playstore/verify');
    expect(google.body.data).toMatchObject({ verified: false, error: { code: 'invalid_grant' } });
    const listed = (await admin.api.get('/api/v1/organization/credentials')).body.data.credentials;
    expect(listed[0].lastVerification).toEqual({
      at: expect.stringMatching(/Z$/),
      verified: false,
      error: res.body.data.error,
    });
  });

  it.each([
    ['appstore', { issuerId: 'not-a-uuid', keyId: 'ABCDEFGHIJ', privateKey: 'x' }, 'issuerId'],
    [
      'appstore',
      { issuerId: '6f1d3c1e-8a7b-4c1d-9e2f-0a1b2c3d4e5f', keyId: 'short', privateKey: 'x' },
      'keyId',
    ],
    [
      'appstore',
      {
        issuerId: '6f1d3c1e-8a7b-4c1d-9e2f-0a1b2c3d4e5f',
        keyId: 'ABCDEFGHIJ',
        privateKey: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----',
      },
      'privateKey',
    ],
    [
      'appstore',
      {
        issuerId: '6f1d3c1e-8a7b-4c1d-9e2f-0a1b2c3d4e5f',
        keyId: 'ABCDEFGHIJ',
        privateKey: serviceAccount().account.private_key,
      },
      'privateKey',
    ], // RSA, not P-256
    ['playstore', { serviceAccount: '{not json' }, 'serviceAccount'],
    ['playstore', { serviceAccount: { private_key: 'x' } }, 'serviceAccount.client_email'],
    [
      'playstore',
      { serviceAccount: { client_email: 'a@b.c', private_key: 'nope' } },
      'serviceAccount.private_key',
    ],
    [
      'playstore',
      { serviceAccount: { type: 'authorized_user', client_email: 'a@b.c' } },
      'serviceAccount.type',
    ],
  ])('answers 400 naming the field for bad %s credentials (%#)', async (store, body, field) => {
    const { admin } = await h.given.organization();
    const res = await put(admin.api, store, body);
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].field).toBe(field);
  });

  it('keeps secrets encrypted at rest, bound to their organization', async () => {
    const { admin, id } = await h.given.organization();
    await put(admin.api, 'appstore', emu.credentials.appstore);
    const rows = await h.db.kysely
      .selectFrom('store_credentials')
      .selectAll()
      .where('organization_id', '=', id)
      .execute();
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain('PRIVATE KEY');
    expect(stored).not.toContain(emu.credentials.appstore.privateKey.split('\n')[1]);
    // Moving the sealed secret to another organization does not make it usable there.
    const other = await h.given.organization();
    await h.db.kysely
      .insertInto('store_credentials')
      .values({ ...rows[0]!, organization_id: other.id })
      .execute();
    const res = await other.admin.api.post('/api/v1/organization/credentials/appstore/verify');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain('cannot be decrypted');
  });

  it("never writes a secret to logs or responses, and never uses the key's token_uri", async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'trace', redact: ['req.headers.authorization'] }, sink);
    const logged = await startHarness({ env: emu.env, logger });
    try {
      const org = await logged.given.organization();
      const send = (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, body?: unknown) =>
        logged.app.inject({
          method,
          url,
          headers: {
            authorization: `Bearer ${org.admin.apiKey}`,
            ...(body !== undefined && { 'content-type': 'application/json' }),
          },
          ...(body !== undefined && { payload: JSON.stringify(body) }),
        });
      const bodies: string[] = [];
      // token_uri points at a host that does not exist: using it would fail the verification.
      const account = { ...emu.credentials.playstore.serviceAccount, token_uri: 'http://127.0.0.1:9/stolen' };
      for (const res of [
        await send('PUT', '/api/v1/organization/credentials/appstore', emu.credentials.appstore),
        await send('PUT', '/api/v1/organization/credentials/playstore', { serviceAccount: account }),
        await send('GET', '/api/v1/organization/credentials'),
        await send('POST', '/api/v1/organization/credentials/playstore/verify'),
        await send('POST', '/api/v1/organization/credentials/appstore/verify'),
      ]) {
        bodies.push(res.body);
      }
      expect(JSON.parse(bodies[3]!).data.verified).toBe(true);
      const project = JSON.parse(
        (
          await send('POST', '/api/v1/projects', {
            name: 'Logs',
            appStoreAppId: APP_ID,
            playStorePackageName: PACKAGE,
          })
        ).body,
      ).data.projectId;
      bodies.push((await send('POST', `/api/v1/projects/${project}/sync`, {})).body);
      await send('PATCH', `/api/v1/projects/${project}/listings/playstore/en-US`, { title: 'Logged?' });
      bodies.push((await send('POST', `/api/v1/projects/${project}/push`, {})).body);
      const everything = [...lines, ...bodies].join('\n');
      const secrets = [
        emu.credentials.appstore.privateKey.split('\n')[1]!,
        String((account as Record<string, unknown>).private_key).split('\n')[1]!,
        org.admin.apiKey,
      ];
      for (const secret of secrets) expect(everything).not.toContain(secret);
      expect(lines.length).toBeGreaterThan(10);
    } finally {
      await logged.close();
    }
  });
});
