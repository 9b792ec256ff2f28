/**
 * Webhook deliveries share the instance's workers fairly (design.md §11): an organization whose
 * endpoints hang holds at most its share of them, so another organization's delivery goes out at
 * once instead of waiting behind 10-second timeouts.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';
import { until } from '../support/until.js';

let h: Harness;
let server: http.Server;
let base: string;
const arrivals: { path: string; at: number }[] = [];

beforeAll(async () => {
  // /hang never answers (the sender gives up after 10 s); /ok answers at once.
  server = http.createServer((request, response) => {
    arrivals.push({ path: request.url ?? '', at: Date.now() });
    request.resume();
    if (request.url?.startsWith('/ok')) request.on('end', () => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await startHarness({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' }, worker: true });
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await h?.close();
});

async function editsOf(org: TestOrganization, count: number) {
  const { id } = await h.given.project(org.admin, { appStoreAppId: '1234567890' });
  for (let i = 0; i < count; i += 1) {
    const res = await org.admin.api.patch(`/api/v1/projects/${id}/listings/appstore/en-US`, {
      promotionalText: `Edit ${i}`,
    });
    expect(res.status).toBe(200);
  }
}

async function webhook(org: TestOrganization, path: string) {
  const res = await org.admin.api.post('/api/v1/organization/webhooks', {
    url: `${base}${path}`,
    events: ['listing.updated'],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

it(
  "an organization's hanging endpoints delay another organization's delivery by under 2 s",
  { timeout: 60_000 },
  async () => {
    const stuck = await h.given.organization({ plan: 'enterprise' });
    for (let i = 0; i < 5; i += 1) await webhook(stuck, `/hang/${i}`);
    await editsOf(stuck, 4);
    // 20 deliveries to endpoints that never answer; the first ones are under way.
    await until('the first hanging deliveries', async () =>
      arrivals.filter((a) => a.path.startsWith('/hang')).length >= 2 ? true : undefined,
    );

    const other = await h.given.organization({ plan: 'enterprise' });
    await webhook(other, '/ok');
    const sent = Date.now();
    await editsOf(other, 1);
    await until(
      'the other delivery',
      async () => (arrivals.some((a) => a.path === '/ok') ? true : undefined),
      15_000,
    );
    const delay = arrivals.find((a) => a.path === '/ok')!.at - sent;
    expect(delay).toBeLessThan(2_000);
    // The stuck organization held no more than its share at once.
    expect(arrivals.filter((a) => a.path.startsWith('/hang')).length).toBeLessThanOrEqual(3);
  },
);
