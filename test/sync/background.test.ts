/**
 * Background operations, the event outbox, the live stream and webhooks (design.md §11), driven
 * over HTTP against the store emulators, with the workers running as `appmeta serve` runs them.
 * Webhooks go to a real local receiver; their signatures are checked with `standardwebhooks`, the
 * reference implementation, never with the code that signs them.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { postWebhook } from '../../src/modules/webhooks/sender.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { until } from '../support/until.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  url: string;
}

/** A local webhook receiver: records every request and answers what `answer` says. */
async function startReceiver() {
  const received: Received[] = [];
  let answer: (request: Received) => { status: number; headers?: Record<string, string> } | null = () => ({
    status: 204,
  });
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = {
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        url: request.url ?? '',
      };
      received.push(entry);
      const reply = answer(entry);
      if (reply === null) return; // never answers: the sender's timeout
      response.writeHead(reply.status, reply.headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (next: typeof answer) => {
      answer = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let emu: RunningEmulators;
let h: Harness;
let org: TestOrganization;
let admin: Actor;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  emu = await startEmulators();
  receiver = await startReceiver();
  h = await startHarness({
    env: { ...emu.env, WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '0.2,0.2' },
    worker: true,
  });
  org = await h.given.organization();
  admin = org.admin;
  for (const store of ['appstore', 'playstore'] as const) {
    const res = await admin.api.request(
      'PUT',
      `/api/v1/organization/credentials/${store}`,
      emu.credentials[store],
    );
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
  await receiver?.close();
});
beforeEach(() => {
  emu.restore();
  receiver.answer(() => ({ status: 204 }));
});

const newProject = async () =>
  (await h.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })).id;

const async = { prefer: 'respond-async' };

/** Polls the operation until it has finished. */
async function finished(project: string, operationId: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await admin.api.get(`/api/v1/projects/${project}/operations/${operationId}`);
    expect(res.status).toBe(200);
    const operation = res.body.data.operation;
    if (!['queued', 'running'].includes(operation.status)) return operation;
    if (Date.now() > deadline) throw new Error(`operation still ${operation.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const edit = (project: string) =>
  Promise.all([
    admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Now with radar',
    }),
    admin.api.patch(`/api/v1/projects/${project}/listings/appstore/fr-FR`, {
      name: 'Météo Pro',
      description: 'Prévisions.',
    }),
    admin.api.patch(`/api/v1/projects/${project}/listings/playstore/en-US`, { shortDescription: 'Radar' }),
  ]);

describe('background sync and push', () => {
  it('reaches the same store state as a synchronous push, with the same result, progress and Location', async () => {
    const direct = await newProject();
    await admin.api.post(`/api/v1/projects/${direct}/sync`, {});
    await edit(direct);
    const synchronous = await admin.api.post(`/api/v1/projects/${direct}/push`, {});
    expect(synchronous.status).toBe(200);
    const expected = { apple: emu.appStore.snapshot(APP_ID), play: emu.play.snapshot(PACKAGE) };

    emu.restore();
    const project = await newProject();
    const synced = await admin.api.request('POST', `/api/v1/projects/${project}/sync`, {}, async);
    expect(synced.status).toBe(202);
    expect((await finished(project, synced.body.data.operation.id)).status).toBe('succeeded');
    await edit(project);
    const started = await admin.api.request('POST', `/api/v1/projects/${project}/push`, {}, async);
    expect(started.status).toBe(202);
    const { operation } = started.body.data;
    expect(operation).toMatchObject({ kind: 'push', status: 'queued', stores: ['appstore', 'playstore'] });
    expect(started.headers.location).toBe(`/api/v1/projects/${project}/operations/${operation.id}`);
    const done = await finished(project, operation.id);
    expect(done.status).toBe('succeeded');
    expect(done.outcome).toEqual(synchronous.body.data);
    expect(done.progress).toMatchObject({ done: 3, total: 3 });
    expect(done.progress.stores.appstore).toEqual({
      done: 2,
      total: 2,
      locales: expect.arrayContaining(['en-US', 'fr-FR']),
    });
    expect({ apple: emu.appStore.snapshot(APP_ID), play: emu.play.snapshot(PACKAGE) }).toEqual(expected);
    const diff = await admin.api.get(`/api/v1/projects/${project}/diff`);
    expect(diff.body.data.inSync).toBe(true);
  });

  it('replays a background push by its Idempotency-Key: one operation, written once', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    await edit(project);
    const headers = { ...async, 'idempotency-key': `push-${project}` };
    const first = await admin.api.request('POST', `/api/v1/projects/${project}/push`, {}, headers);
    expect(first.status).toBe(202);
    await finished(project, first.body.data.operation.id);
    const writes = emu.appStore.counters.writes;
    const again = await admin.api.request('POST', `/api/v1/projects/${project}/push`, {}, headers);
    expect(again.status).toBe(202);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.data.operation.id).toBe(first.body.data.operation.id);
    const other = await admin.api.request(
      'POST',
      `/api/v1/projects/${project}/push`,
      { store: 'appstore' },
      headers,
    );
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(emu.appStore.counters.writes).toBe(writes);
    const log = await admin.api.get(`/api/v1/projects/${project}/operations`);
    expect(log.body.data.operations.filter((o: { kind: string }) => o.kind === 'push')).toHaveLength(1);
  });

  it('cancels: a queued one never runs; a running one stops before its next store write and says what was written', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    await edit(project);
    const playBefore = emu.play.snapshot(PACKAGE);
    // Google Play's listing write is slow: the App Store part finishes while Play's edit is open.
    emu.faults.set([{ route: 'PATCH */listings/*', latencyMs: 1_500 }]);
    const running = await admin.api.request('POST', `/api/v1/projects/${project}/push`, {}, async);
    const runningId = running.body.data.operation.id;
    // The push holds the project before the sync is asked for, so the sync waits behind it.
    await until('the push running', async () => {
      const op = (await admin.api.get(`/api/v1/projects/${project}/operations/${runningId}`)).body.data
        .operation;
      return op.status === 'running' ? op : undefined;
    });
    const queued = await admin.api.request('POST', `/api/v1/projects/${project}/sync`, {}, async);
    await until('the App Store part', async () => {
      const op = (await admin.api.get(`/api/v1/projects/${project}/operations/${runningId}`)).body.data
        .operation;
      return op.progress?.stores?.appstore?.done === 2 ? op : undefined;
    });
    const cancelQueued = await admin.api.post(
      `/api/v1/projects/${project}/operations/${queued.body.data.operation.id}/cancel`,
    );
    expect(cancelQueued.body.data.operation.status).toBe('cancelled');
    const cancelRunning = await admin.api.post(`/api/v1/projects/${project}/operations/${runningId}/cancel`);
    expect(cancelRunning.status).toBe(200);
    expect(cancelRunning.body.data.operation.cancelRequested).toBe(true);

    const done = await finished(project, runningId);
    expect(done.status).toBe('cancelled');
    expect(done.outcome.appStore).toEqual({ pushed: true, locales: 2 });
    expect(done.outcome.playStore.pushed).toBe(false);
    expect(done.outcome.failures).toContainEqual(
      expect.objectContaining({ store: 'playstore', error: expect.objectContaining({ code: 'CANCELLED' }) }),
    );
    expect(emu.play.snapshot(PACKAGE)).toEqual(playBefore);
    expect(emu.play.openEdits()).toEqual([]);
    const skipped = await finished(project, queued.body.data.operation.id);
    expect(skipped).toMatchObject({ status: 'cancelled', outcome: { cancelled: 'before it started' } });
    const again = await admin.api.post(`/api/v1/projects/${project}/operations/${runningId}/cancel`);
    expect(again.status).toBe(409);
  });

  it('fails a queued push that may no longer run when its turn comes, and leaves a cancelled one alone', async () => {
    // Its own app without workers: the jobs wait until this test runs them as a worker would.
    const paused = await startHarness({ env: emu.env });
    try {
      const team = await paused.given.organization();
      const member = await paused.given.member(team, 'member');
      const project = (await paused.given.project(team.admin, { appStoreAppId: APP_ID })).id;
      await member.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { subtitle: 'Queued' });
      const queue = async () =>
        (await member.api.request('POST', `/api/v1/projects/${project}/push`, {}, async)).body.data.operation
          .id as string;
      const refused = await queue();
      const cancelled = await queue();
      await member.api.post(`/api/v1/projects/${project}/operations/${cancelled}/cancel`);
      // Meanwhile the organization starts requiring an admin's approval.
      await team.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
      const log = pino({ level: 'silent' });
      for (const id of [refused, cancelled]) await paused.services.background.runJob(id, log);
      const read = async (id: string) =>
        (await member.api.get(`/api/v1/projects/${project}/operations/${id}`)).body.data.operation;
      expect(await read(refused)).toMatchObject({
        status: 'failed',
        outcome: { code: 'APPROVAL_REQUIRED' },
        finishedAt: expect.any(String),
      });
      expect((await read(cancelled)).status).toBe('cancelled');
      const events = await paused.db.kysely
        .selectFrom('events')
        .select('type')
        .where('organization_id', '=', team.id)
        .execute();
      expect(events.map((e) => e.type)).toEqual(
        expect.arrayContaining(['approval.requested', 'push.failed']),
      );
      expect(emu.appStore.counters.writes).toBe(0);
    } finally {
      await paused.close();
    }
  });

  it('refuses what the synchronous call refuses, before queuing anything', async () => {
    const project = await newProject();
    const bad = await admin.api.request(
      'POST',
      `/api/v1/projects/${project}/push`,
      { locales: ['en_US'] },
      async,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('locales[0]');
    const missing = await admin.api.get(`/api/v1/projects/${project}/operations/op_missing`);
    expect(missing.status).toBe(404);
    const log = await admin.api.get(`/api/v1/projects/${project}/operations`);
    expect(log.body.data.total).toBe(0);
  });
});

describe('events', () => {
  it('are written with their cause and never for a rolled-back change', async () => {
    const project = await newProject();
    const before = await h.db.kysely
      .selectFrom('events')
      .select('id')
      .where('organization_id', '=', org.id)
      .execute();
    await expect(
      h.db.kysely.transaction().execute(async (trx) => {
        await h.services.outbox.emit(trx, org.id, 'listing.updated', { projectId: project });
        throw new Error('the change fails after its event was written');
      }),
    ).rejects.toThrow('fails');
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { subtitle: 'Rain radar' });
    const after = await h.db.kysely
      .selectFrom('events')
      .selectAll()
      .where('organization_id', '=', org.id)
      .orderBy('seq')
      .execute();
    const added = after.slice(before.length);
    expect(added.map((e) => [e.type, JSON.parse(e.data)])).toEqual([
      [
        'listing.updated',
        expect.objectContaining({ projectId: project, fields: ['subtitle'], locale: 'en-US' }),
      ],
    ]);
    // Numbered in commit order without gaps from the rollback.
    expect(after.map((e) => Number(e.seq))).toEqual(after.map((_e, i) => i + 1));
  });

  it('stream live over SSE and resume with Last-Event-ID', async () => {
    const project = await newProject();
    const stream = await openStream(admin.apiKey);
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { subtitle: 'One' });
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { subtitle: 'Two' });
    const live = await stream.next(2);
    stream.close();
    expect(live.map((e) => e.type)).toEqual(['listing.updated', 'listing.updated']);
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { subtitle: 'Three' });
    const resumed = await openStream(admin.apiKey, live[0]!.id);
    const missed = await resumed.next(2);
    resumed.close();
    expect(missed[0]).toEqual(live[1]);
    expect(Number(missed[1]!.id)).toBe(Number(live[1]!.id) + 1);
    expect(missed[1]!.data.data).toMatchObject({ projectId: project, fields: ['subtitle'] });
    const bad = await h
      .client(admin.apiKey)
      .request('GET', '/api/v1/events', undefined, { 'last-event-id': 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('Last-Event-ID');
  });
});

describe('the live stream of a removed member', () => {
  it('tells them, then ends', async () => {
    const member = await h.given.member(org, 'member');
    const stream = await openStream(member.apiKey);
    expect((await admin.api.delete(`/api/v1/organization/members/${member.id}`)).status).toBe(200);
    const [removed] = await stream.next(1);
    expect(removed).toMatchObject({ type: 'member.removed', data: { data: { memberId: member.id } } });
    await until('the end of the stream', async () => (stream.ended() ? true : undefined));
  });
});

/** An SSE stream read through inject as it arrives. */
async function openStream(apiKey: string, lastEventId?: string) {
  const res = await h.app.inject({
    method: 'GET',
    url: '/api/v1/events',
    headers: {
      authorization: `Bearer ${apiKey}`,
      ...(lastEventId !== undefined && { 'last-event-id': lastEventId }),
    },
    payloadAsStream: true,
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
  const stream = res.stream();
  const events: { id: string; type: string; data: any }[] = [];
  let buffer = '';
  stream.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const id = /^id: (.*)$/m.exec(block)?.[1];
      const type = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (id !== undefined && type !== undefined && data !== undefined)
        events.push({ id, type, data: JSON.parse(data) });
    }
  });
  let ended = false;
  stream.on('end', () => (ended = true));
  return {
    ended: () => ended,
    next: (count: number) =>
      until(`${count} events`, async () => (events.length >= count ? events.slice(0, count) : undefined)),
    close: () => stream.destroy(),
  };
}

describe('webhooks', () => {
  const createHook = async (path: string, body: Record<string, unknown> = {}) => {
    const res = await admin.api.post('/api/v1/organization/webhooks', {
      url: `${receiver.url}${path}`,
      ...body,
    });
    expect(res.status).toBe(201);
    expect(res.body.data.secret).toMatch(/^whsec_/);
    return res.body.data as { webhook: { id: string }; secret: string };
  };
  const deliveries = async (webhookId: string) =>
    (await admin.api.get(`/api/v1/organization/webhooks/${webhookId}/deliveries`)).body.data.deliveries;
  const remove = (webhookId: string) => admin.api.delete(`/api/v1/organization/webhooks/${webhookId}`);

  it('delivers every event of the outbox, signed per Standard Webhooks', async () => {
    const { webhook, secret } = await createHook('/hook', { events: ['listing.updated', 'push.completed'] });
    const start = receiver.received.length;
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { subtitle: 'Signed' });
    await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'appstore' });
    const wanted = await h.db.kysely
      .selectFrom('events')
      .select(['id', 'type'])
      .where('organization_id', '=', org.id)
      .where('type', 'in', ['listing.updated', 'push.completed'])
      .where('data', 'like', `%${project}%`)
      .execute();
    expect(wanted.map((e) => e.type).sort()).toEqual(['listing.updated', 'push.completed']);
    const got = await until('the deliveries', async () => {
      const mine = receiver.received.slice(start).filter((r) => r.url === '/hook');
      return mine.length >= wanted.length ? mine : undefined;
    });
    const verifier = new Webhook(secret);
    const payloads = got.map(
      (r) => verifier.verify(r.body, r.headers as Record<string, string>) as { id: string },
    );
    expect(payloads.map((p) => p.id).sort()).toEqual(wanted.map((e) => e.id).sort());
    expect(got.every((r) => r.headers['webhook-id'] === JSON.parse(r.body).id)).toBe(true);
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another secret key!!').toString('base64')}`).verify(
        got[0]!.body,
        got[0]!.headers as Record<string, string>,
      ),
    ).toThrow();
    const log = await until('the delivery log', async () => {
      const list = await deliveries(webhook.id);
      return list.length === wanted.length && list.every((d: { status: string }) => d.status === 'succeeded')
        ? list
        : undefined;
    });
    expect(log[0].attempts[0]).toMatchObject({ status: 204, error: null, durationMs: expect.any(Number) });
    await remove(webhook.id);
  });

  it('retries after a 500 with the same webhook-id, follows no redirect, and redelivers on request', async () => {
    // Subscribed to no event of this test: only the test message goes there.
    const { webhook } = await createHook('/retry', { events: ['drift.detected'] });
    let calls = 0;
    receiver.answer((request) => {
      if (request.url !== '/retry') return { status: 204 };
      calls += 1;
      return calls === 1
        ? { status: 500 }
        : { status: 302, headers: { location: `${receiver.url}/elsewhere` } };
    });
    const start = receiver.received.length;
    const test = await admin.api.post(`/api/v1/organization/webhooks/${webhook.id}/test`);
    expect(test.status).toBe(202);
    const deliveryId = test.body.data.delivery.id;
    const failed = await until('the attempts', async () => {
      const d = (await deliveries(webhook.id)).find((x: { id: string }) => x.id === deliveryId);
      return d?.status === 'failed' ? d : undefined;
    });
    expect(failed.attempts.map((a: { status: number }) => a.status)).toEqual([500, 302, 302]);
    expect(failed.attempts[1].error).toMatch(/redirect to .*\/elsewhere not followed/);
    const hits = receiver.received.slice(start).filter((r) => r.url === '/retry');
    expect(receiver.received.slice(start).some((r) => r.url === '/elsewhere')).toBe(false);
    expect(new Set(hits.map((r) => r.headers['webhook-id'])).size).toBe(1);

    receiver.answer(() => ({ status: 200 }));
    const again = await admin.api.post(
      `/api/v1/organization/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`,
    );
    expect(again.status).toBe(202);
    const redelivered = await until('the redelivery', async () => {
      const d = (await deliveries(webhook.id)).find((x: { id: string }) => x.id === deliveryId);
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(redelivered.attempts.at(-1).status).toBe(200);
    const last = receiver.received.filter((r) => r.url === '/retry').at(-1)!;
    expect(last.headers['webhook-id']).toBe(hits[0]!.headers['webhook-id']);
    await remove(webhook.id);
  });

  it('sends again a delivery whose instance died while sending it, once the attempt is stale', async () => {
    const { webhook } = await createHook('/orphan', { events: ['drift.detected'] });
    const test = await admin.api.post(`/api/v1/organization/webhooks/${webhook.id}/test`);
    const deliveryId = test.body.data.delivery.id;
    await until('the test delivery', async () =>
      (await deliveries(webhook.id))[0]?.status === 'succeeded' ? true : undefined,
    );
    const start = receiver.received.length;
    // What a kill -9 in the middle of an attempt leaves: the row says `sending`, nobody sends.
    const setSending = (ago: number) =>
      h.db.kysely
        .updateTable('webhook_deliveries')
        .set({ status: 'sending', updated_at: new Date(Date.now() - ago).toISOString() })
        .where('id', '=', deliveryId)
        .execute();
    await setSending(5_000);
    await h.services.webhooks.attempt(deliveryId); // the queue's retry, too early: left alone
    expect(receiver.received.length).toBe(start);
    await setSending(31_000);
    await h.services.webhooks.attempt(deliveryId);
    const sent = receiver.received.slice(start).filter((r) => r.url === '/orphan');
    expect(sent).toHaveLength(1);
    expect((await deliveries(webhook.id))[0]).toMatchObject({ status: 'succeeded', attemptCount: 2 });
    await remove(webhook.id);
  });

  it('signs with both secrets for a day after a rotation', async () => {
    const { webhook, secret: old } = await createHook('/rotated', { events: ['drift.detected'] });
    const rotated = await admin.api.post(`/api/v1/organization/webhooks/${webhook.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    expect(fresh).not.toBe(old);
    expect(Date.parse(rotated.body.data.webhook.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(
      23 * 3600_000,
    );
    const start = receiver.received.length;
    await admin.api.post(`/api/v1/organization/webhooks/${webhook.id}/test`);
    const [got] = await until('the test delivery', async () => {
      const mine = receiver.received.slice(start).filter((r) => r.url === '/rotated');
      return mine.length > 0 ? mine : undefined;
    });
    expect(String(got!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, fresh]) {
      expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toMatchObject({
        type: 'webhook.test',
      });
    }
    await remove(webhook.id);
  });

  it('checks what an admin gives and refuses private addresses unless allowed', async () => {
    const bad = await admin.api.post('/api/v1/organization/webhooks', { url: 'ftp://example.com/x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('url');
    const unknown = await admin.api.post('/api/v1/organization/webhooks', {
      url: 'https://example.com/x',
      events: ['listing.updated', 'listing.eaten'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0].field).toBe('events[1]');

    const strict = await startHarness();
    try {
      const strictOrg = await strict.given.organization();
      for (const url of [
        'http://127.0.0.1:9/x',
        'http://[::1]/x',
        'http://169.254.169.254/latest',
        'http://localhost/x',
      ]) {
        const res = await strictOrg.admin.api.post('/api/v1/organization/webhooks', { url });
        expect(res.status, url).toBe(400);
        expect(res.body.error.message).toMatch(/private, loopback or link-local/);
      }
    } finally {
      await strict.close();
    }
    // At connect time: a name is resolved first, and an address inside is refused.
    const start = receiver.received.length;
    const port = new URL(receiver.url).port;
    const attempt = await postWebhook(`http://localhost:${port}/hook`, {}, '{}', {
      allowPrivate: false,
      now: () => new Date(),
    });
    expect(attempt).toMatchObject({
      status: null,
      error: expect.stringMatching(/localhost resolves to .*private/),
    });
    expect(receiver.received.length).toBe(start);
  });

  it('gives up on an endpoint that does not answer within the timeout', async () => {
    receiver.answer((request) => (request.url === '/slow' ? null : { status: 204 }));
    const attempt = await postWebhook(`${receiver.url}/slow`, {}, '{}', {
      allowPrivate: true,
      timeoutMs: 300,
      now: () => new Date(),
    });
    expect(attempt).toMatchObject({ status: null, error: 'no answer within 0.3 s' });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(250);
  });

  it('are an admin matter: a member may neither list nor add them', async () => {
    const member = await h.given.member(org, 'member');
    expect((await member.api.get('/api/v1/organization/webhooks')).status).toBe(403);
    expect(
      (await member.api.post('/api/v1/organization/webhooks', { url: 'https://example.com/x' })).status,
    ).toBe(403);
  });
});

describe('the queue', () => {
  it('holds a job enqueued in a committed transaction, and none from a rolled-back one', async () => {
    const enqueue = (trx: typeof h.db.kysely, projectId: string) =>
      h.services.queue.enqueue(trx, 'drift.check', { projectId }, { delayMs: 60_000 });
    await expect(
      h.db.kysely.transaction().execute(async (trx) => {
        await enqueue(trx, 'proj_rolled_back');
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await h.db.kysely.transaction().execute((trx) => enqueue(trx, 'proj_committed'));
    const count = async (projectId: string) => {
      const jobs =
        h.dialect === 'postgres'
          ? sql<{ n: number }>`select count(*) as n from pgboss.job where data->>'projectId' = ${projectId}`
          : sql<{ n: number }>`select count(*) as n from jobs where data like ${`%${projectId}%`}`;
      return Number((await jobs.execute(h.db.kysely)).rows[0]!.n);
    };
    expect(await count('proj_rolled_back')).toBe(0);
    expect(await count('proj_committed')).toBe(1);
  });
});
