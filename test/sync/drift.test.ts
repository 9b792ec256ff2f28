/**
 * Drift detection and the disabling of a failing webhook: both follow time (the organization's
 * interval, five days of failures), so the app runs on a clock the test moves, with its workers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { ManualClock } from '../support/clock.js';
import { until } from '../support/until.js';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

let emu: RunningEmulators;
let h: Harness;
let org: TestOrganization;
const clock = new ManualClock(Date.parse('2026-11-23T10:00:00.000Z'));

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({
    env: { ...emu.env, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0.1' },
    clock,
    worker: true,
  });
  org = await h.given.organization();
  for (const store of ['appstore', 'playstore'] as const) {
    await org.admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
  }
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
});

const eventsOf = (type: string) =>
  h.db.kysely
    .selectFrom('events')
    .selectAll()
    .where('organization_id', '=', org.id)
    .where('type', '=', type)
    .orderBy('seq')
    .execute();

describe('drift detection', () => {
  it('notices an edit made in the store within the interval, reports it once, and writes nothing', async () => {
    const admin = org.admin;
    expect(
      (await admin.api.patch('/api/v1/organization', { settings: { driftCheckMinutes: 5 } })).body.data
        .settings.driftCheckMinutes,
    ).toBe(5);
    const project = (await h.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE }))
      .id;
    expect((await admin.api.post(`/api/v1/projects/${project}/sync`, {})).status).toBe(200);
    const listingBefore = (await admin.api.get(`/api/v1/projects/${project}/listings/appstore/en-US`)).body
      .data;

    // Someone edits the subtitle in App Store Connect: through the store's own API.
    const connector = await h.services.credentials.connectorFor(org.id, 'appstore');
    const report = await connector!.write(
      APP_ID,
      [{ locale: 'en-US', fields: { subtitle: 'Edited in the console' }, create: false }],
      {},
    );
    expect(report.written).toEqual(['en-US']);
    const writes = emu.appStore.counters.writes;

    // The first look only places the project in the interval; its check comes within 5 minutes.
    expect(await h.services.drift.schedule()).toBe(0);
    clock.advance(5 * 60_000 + 1);
    emu.calls.length = 0;
    expect(await h.services.drift.schedule()).toBe(1);
    const [event] = await until('drift.detected', async () => {
      const found = await eventsOf('drift.detected');
      return found.length > 0 ? found : undefined;
    });
    // A drift check reads texts only: no screenshot or preview sets, no Play images or tracks.
    expect(
      emu.calls.filter((c) =>
        /ScreenshotSets|PreviewSets|Screenshots$|\/tracks|\/icon$|featureGraphic|tvBanner/.test(c),
      ),
    ).toEqual([]);
    expect(JSON.parse(event!.data)).toEqual({
      projectId: project,
      store: 'appstore',
      fields: [
        {
          locale: 'en-US',
          field: 'subtitle',
          base: 'Forecasts that matter',
          storeValue: 'Edited in the console',
        },
      ],
    });
    const diff = (await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(diff.inSync).toBe(true);
    expect(diff.storeDrift).toEqual([
      expect.objectContaining({
        store: 'appstore',
        locale: 'en-US',
        field: 'subtitle',
        storeValue: 'Edited in the console',
      }),
    ]);
    // Nothing written: not here, not in the store.
    expect((await admin.api.get(`/api/v1/projects/${project}/listings/appstore/en-US`)).body.data).toEqual(
      listingBefore,
    );
    expect(emu.appStore.counters.writes).toBe(writes);

    // Found again at the next check: not reported twice.
    clock.advance(5 * 60_000);
    expect(await h.services.drift.schedule()).toBe(1);
    await until('the second check', async () => {
      const row = await h.db.kysely
        .selectFrom('store_drift')
        .select('detected_at')
        .where('project_id', '=', project)
        .executeTakeFirst();
      return row?.detected_at === clock.now().toISOString() ? row : undefined;
    });
    expect(await eventsOf('drift.detected')).toHaveLength(1);

    // A sync merges it, and the diff no longer shows it.
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.storeDrift).toEqual([]);

    // 0 turns the checks off.
    await admin.api.patch('/api/v1/organization', { settings: { driftCheckMinutes: 0 } });
    clock.advance(60 * 60_000);
    expect(await h.services.drift.schedule()).toBe(0);
  });
});

describe('a webhook that keeps failing', () => {
  it('is disabled after five days of failures, with a webhook.disabled event', async () => {
    const server = http.createServer((_request, response) => response.writeHead(500).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/down`;
      const created = await org.admin.api.post('/api/v1/organization/webhooks', { url });
      const id = created.body.data.webhook.id as string;
      const failedDeliveries = async (count: number) =>
        until(`${count} failed deliveries`, async () => {
          const list = (await org.admin.api.get(`/api/v1/organization/webhooks/${id}/deliveries`)).body.data
            .deliveries;
          return list.filter((d: { status: string }) => d.status === 'failed').length >= count
            ? list
            : undefined;
        });
      await org.admin.api.post(`/api/v1/organization/webhooks/${id}/test`);
      await failedDeliveries(1);
      const failing = (await org.admin.api.get(`/api/v1/organization/webhooks/${id}`)).body.data.webhook;
      expect(failing).toMatchObject({ enabled: true, failingSince: clock.now().toISOString() });

      clock.advance(5 * 24 * 3600_000);
      await org.admin.api.post(`/api/v1/organization/webhooks/${id}/test`);
      await failedDeliveries(2);
      const disabled = (await org.admin.api.get(`/api/v1/organization/webhooks/${id}`)).body.data.webhook;
      expect(disabled.enabled).toBe(false);
      expect(disabled.disabledReason).toMatch(/failed continuously since/);
      const [event] = await eventsOf('webhook.disabled');
      expect(JSON.parse(event!.data)).toMatchObject({ webhookId: id, url });
      const audit = await org.admin.api.get('/api/v1/organization/audit-log');
      expect(audit.body.data.entries.map((e: { action: string }) => e.action)).toContain('webhooks.disable');

      // Re-enabled by an admin, it starts afresh.
      const enabled = await org.admin.api.patch(`/api/v1/organization/webhooks/${id}`, { enabled: true });
      expect(enabled.body.data.webhook).toMatchObject({
        enabled: true,
        disabledReason: null,
        failingSince: null,
      });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('is failing no longer once a delivery succeeds', async () => {
    let answer = 500;
    const server = http.createServer((_request, response) => response.writeHead(answer).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/flaky`;
      const created = await org.admin.api.post('/api/v1/organization/webhooks', { url });
      const id = created.body.data.webhook.id as string;
      const webhook = async () =>
        (await org.admin.api.get(`/api/v1/organization/webhooks/${id}`)).body.data.webhook;
      const settled = (deliveryId: string, status: string) =>
        until(`delivery ${deliveryId} ${status}`, async () => {
          const list = (await org.admin.api.get(`/api/v1/organization/webhooks/${id}/deliveries`)).body.data
            .deliveries as { id: string; status: string }[];
          return list.some((d) => d.id === deliveryId && d.status === status) ? true : undefined;
        });
      const failed = await org.admin.api.post(`/api/v1/organization/webhooks/${id}/test`);
      await settled(failed.body.data.delivery.id, 'failed');
      expect(await webhook()).toMatchObject({ failingSince: clock.now().toISOString() });

      answer = 204;
      const delivered = await org.admin.api.post(`/api/v1/organization/webhooks/${id}/test`);
      await settled(delivered.body.data.delivery.id, 'succeeded');
      expect(await webhook()).toMatchObject({ enabled: true, failingSince: null });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
