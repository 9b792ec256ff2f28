/**
 * GET /metrics (design.md §21), scraped and parsed as Prometheus would after real work on a real
 * instance: a sync against both store emulators (one answer a 429, retried), a listing edit whose
 * event is delivered to a local webhook receiver by the worker, requests refused by the rate limit.
 * Without METRICS_TOKEN the route does not exist; with it, only the token opens it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../support/databases.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Harness } from '../support/harness.js';
import { parseExposition, type Exposition } from '../support/prometheus-text.js';
import { until } from '../support/until.js';

const TOKEN = 'metrics-token-0123456789';

let emu: RunningEmulators;
let h: Harness;
let receiver: http.Server;
let received = 0;

beforeAll(async () => {
  emu = await startEmulators();
  receiver = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received += 1;
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  h = await startHarness({
    env: { ...emu.env, METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE: 'true' },
    worker: true,
  });
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

const scrape = async (): Promise<Exposition> => {
  const res = await h.client(undefined, { authorization: `Bearer ${TOKEN}` }).get('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(res.body);
};

describe('GET /metrics', () => {
  it('answers only the metrics token, in the envelope otherwise', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const res = await h.client(undefined, headers).get('/metrics');
      expect(res.status).toBe(401);
      expect(res.body.success).toBe(false);
      expect(res.body.error.message).toContain('METRICS_TOKEN');
    }
  });

  it('is not there without METRICS_TOKEN', async () => {
    const plain = await startHarness();
    try {
      const res = await plain.client(undefined, { authorization: `Bearer ${TOKEN}` }).get('/metrics');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    } finally {
      await plain.close();
    }
  });

  it('reports requests, store calls with their 429s and retries, jobs, webhook deliveries, refusals and the pool', async () => {
    const org = await h.given.organization({ plan: 'pro' });
    const admin = org.admin;
    for (const store of ['appstore', 'playstore'] as const) {
      const res = await admin.api.request(
        'PUT',
        `/api/v1/organization/credentials/${store}`,
        emu.credentials[store],
      );
      expect(res.status).toBe(200);
    }
    const hook = await admin.api.post('/api/v1/organization/webhooks', {
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
    });
    expect(hook.status).toBe(201);
    const project = (await h.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE }))
      .id;
    const before = await scrape();

    // Google Play refuses its listings once with a 429: the connector waits and asks again.
    emu.faults.set([
      { route: 'GET /androidpublisher/v3/applications/*/listings', status: 429, retryAfter: 0, times: 1 },
    ]);
    expect((await admin.api.post(`/api/v1/projects/${project}/sync`, {})).status).toBe(200);
    emu.faults.set([]);
    const edit = await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Measured',
    });
    expect(edit.status).toBe(200);
    await until('the webhook deliveries', async () => (received >= 2 ? true : undefined));
    // Anonymous callers share their address's budget (the free plan's 100 a minute).
    let refused = 0;
    for (let i = 0; i < 101 && refused === 0; i++) {
      if ((await h.client().get('/api/v1/projects')).status === 429) refused += 1;
    }
    expect(refused).toBe(1);

    const after = await until('the deliveries to be counted', async () => {
      const scraped = await scrape();
      return scraped.sum('appmeta_webhook_deliveries_total', { outcome: 'delivered' }) >=
        before.sum('appmeta_webhook_deliveries_total', { outcome: 'delivered' }) + 2
        ? scraped
        : undefined;
    });
    const grew = (name: string, labels: Record<string, string>) =>
      after.sum(name, labels) - before.sum(name, labels);

    // Node.js and process metrics of prom-client.
    expect(after.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(after.sum('nodejs_heap_size_used_bytes')).toBeGreaterThan(0);

    expect(after.types.get('appmeta_http_request_duration_seconds')).toBe('histogram');
    const sync = { method: 'POST', route: '/api/v1/projects/:projectId/sync', status: '200' };
    expect(grew('appmeta_http_request_duration_seconds_count', sync)).toBe(1);
    expect(after.sum('appmeta_http_request_duration_seconds_sum', sync)).toBeGreaterThan(0);
    expect(
      grew('appmeta_http_request_duration_seconds_count', { route: '/api/v1/projects', status: '429' }),
    ).toBe(1);

    const listings = { store: 'playstore', operation: 'GET applications/edits/listings' };
    expect(grew('appmeta_store_requests_total', { ...listings, status: '429' })).toBe(1);
    expect(grew('appmeta_store_requests_total', { ...listings, status: '200' })).toBe(1);
    expect(grew('appmeta_store_retries_total', listings)).toBe(1);
    expect(grew('appmeta_store_requests_total', { store: 'appstore', status: '200' })).toBeGreaterThan(0);
    expect(grew('appmeta_store_request_duration_seconds_count', { store: 'appstore' })).toBeGreaterThan(0);
    expect(after.sum('appmeta_store_requests_total', { status: '429', store: 'appstore' })).toBe(0);

    expect(grew('appmeta_webhook_deliveries_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(2);
    expect(
      grew('appmeta_webhook_delivery_duration_seconds_count', { outcome: 'delivered' }),
    ).toBeGreaterThanOrEqual(2);
    expect(grew('appmeta_job_wait_seconds_count', { job: 'webhook.deliver' })).toBeGreaterThanOrEqual(2);
    expect(
      grew('appmeta_job_duration_seconds_count', { job: 'webhook.deliver', outcome: 'completed' }),
    ).toBeGreaterThanOrEqual(2);
    for (const job of ['operation.run', 'webhook.deliver', 'drift.check'])
      expect(after.find('appmeta_jobs_queued', { job })).toHaveLength(1);

    expect(grew('appmeta_rate_limited_requests_total', {})).toBe(1);
    expect(after.find('appmeta_rate_limit_store_errors_total')).toHaveLength(1);

    if (testDialect() === 'postgres') {
      expect(after.sum('appmeta_db_pool_connections', { state: 'max' })).toBe(10);
      expect(after.sum('appmeta_db_pool_connections', { state: 'total' })).toBeGreaterThan(0);
      expect(after.find('appmeta_db_pool_connections', { state: 'waiting' })).toHaveLength(1);
    } else {
      expect(after.find('appmeta_db_pool_connections')).toHaveLength(0);
    }
  });

  it('names a store operation by its collections, never its ids', async () => {
    const { storeOperation } = await import('../../src/metrics/index.js');
    expect(storeOperation('PATCH', 'https://api.example/v1/appStoreVersionLocalizations/abc-123')).toBe(
      'PATCH appStoreVersionLocalizations',
    );
    expect(
      storeOperation('POST', 'https://x/androidpublisher/v3/applications/com.example.app/edits/42:commit'),
    ).toBe('POST applications/edits:commit');
    expect(storeOperation('POST', 'https://oauth2.example/token')).toBe('POST token');
    expect(storeOperation('PUT', 'https://upload.example/part/7?x=1')).toBe('PUT transfer');
  });
});
