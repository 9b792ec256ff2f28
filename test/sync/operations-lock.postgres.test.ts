/** Two service instances on one PostgreSQL database: sync and push of one project never interleave. */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createDb } from '../../src/db/database.js';
import { createRateLimiter } from '../../src/http/rate-limiter.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Harness } from '../support/harness.js';

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

describe('operation lock across instances (PostgreSQL)', () => {
  it('runs syncs and pushes sent to two instances one after the other', async () => {
    const logger = pino({ level: 'silent' });
    const instances = await Promise.all(
      [0, 1].map(async () => {
        const db = createDb(h.config.database);
        const { app } = await buildApp({
          config: h.config,
          db,
          logger,
          rateLimiter: createRateLimiter({ redisUrl: null, log: logger }),
        });
        const url = await app.listen({ port: 0, host: '127.0.0.1' });
        return { app, db, url };
      }),
    );
    try {
      const org = await h.given.organization();
      const headers = { authorization: `Bearer ${org.admin.apiKey}`, 'content-type': 'application/json' };
      await org.admin.api.request(
        'PUT',
        '/api/v1/organization/credentials/appstore',
        emu.credentials.appstore,
      );
      await org.admin.api.request(
        'PUT',
        '/api/v1/organization/credentials/playstore',
        emu.credentials.playstore,
      );
      const project = (
        await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })
      ).id;
      await org.admin.api.post(`/api/v1/projects/${project}/sync`, {});
      await org.admin.api.patch(`/api/v1/projects/${project}/listings/playstore/en-US`, {
        fullDescription: 'Two instances.',
      });
      emu.faults.set([
        { route: '* /androidpublisher/*', latencyMs: 50 },
        { route: '* /v1/*', latencyMs: 50 },
      ]);
      const calls = [0, 1, 2, 3].map((i) =>
        fetch(`${instances[i % 2]!.url}/api/v1/projects/${project}/${i % 2 === 0 ? 'sync' : 'push'}`, {
          method: 'POST',
          headers,
          body: '{}',
        }).then((r) => r.status),
      );
      expect(await Promise.all(calls)).toEqual([200, 200, 200, 200]);
      const { operations } = (await org.admin.api.get(`/api/v1/projects/${project}/operations`)).body.data;
      expect(operations).toHaveLength(5);
      expect(operations.map((o: any) => o.status)).toEqual(Array(5).fill('succeeded'));
      const spans = operations.map((o: any) => [o.startedAt, o.finishedAt]).sort();
      for (let i = 1; i < spans.length; i++) expect(spans[i][0] >= spans[i - 1][1]).toBe(true);
      expect(emu.play.snapshot(PACKAGE)['en-US']!.fullDescription).toBe('Two instances.');
    } finally {
      emu.faults.clear();
      for (const instance of instances) {
        await instance.app.close();
        await instance.db.destroy();
      }
    }
  });
});
