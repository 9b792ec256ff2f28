/**
 * Scheduled changes (design.md §20) against both emulators, on a clock the test moves, with two
 * instances of the service on one PostgreSQL database (both running their workers): a schedule pushes
 * exactly the changeset it was given, once, at its minute; a changed diff, a store edit of a
 * scheduled field (drift) or a missing approval holds it with the reason; a campaign puts its
 * texts back at its revert time; times are entered in a zone and stored in UTC across a
 * daylight-saving change; a cancelled schedule never runs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { createTestDatabase, testDialect, type TestDatabase } from '../support/databases.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';
import { until } from '../support/until.js';

const silent = pino({ level: 'silent' });
const START = Date.parse('2027-03-20T12:00:00.000Z');
const MINUTE = 60_000;

let dir: string;
let database: TestDatabase;
let emu: RunningEmulators;
let clock: ManualClock;
let a: Harness;
let b: Harness;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-schedules-'));
  database = await createTestDatabase({ file: path.join(dir, 'schedules.db') });
  emu = await startEmulators();
  clock = new ManualClock(START);
  a = await startHarness({ database, env: emu.env, clock, worker: true });
  // SQLite is one instance's database (its queue is worked in process): there the instance's two
  // ticks race. Two processes on one SQLite file race in schedule-crash.test.ts.
  b = testDialect() === 'postgres' ? await startHarness({ database, env: emu.env, clock, worker: true }) : a;
});
afterAll(async () => {
  await a?.close();
  if (b !== a) await b?.close();
  await emu?.close();
  await database?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => emu.restore());

/** Both instances tick at once, as their workers would at the same moment. */
const tickBoth = () =>
  Promise.all([a.services.scheduleRunner.tick(silent), b.services.scheduleRunner.tick(silent)]);

async function setUp(settings: { requireApproval?: boolean } = {}) {
  const org: TestOrganization = await a.given.organization();
  for (const store of ['appstore', 'playstore'] as const)
    await org.admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
  if (settings.requireApproval)
    await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
  const project = (await a.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE }))
    .id;
  expect((await org.admin.api.post(`/api/v1/projects/${project}/sync`, {})).status).toBe(200);
  return { org, project, admin: org.admin };
}

const hashOf = async (actor: Actor, project: string) =>
  (await actor.api.get(`/api/v1/projects/${project}/diff`)).body.data.hash as string;

const promoInStore = () => {
  const snapshot = emu.appStore.snapshot(APP_ID);
  return snapshot['ver-2']?.versions['en-US']?.promotionalText ?? null;
};

const promoWrites = () =>
  emu.calls.filter((c) => c.startsWith('PATCH /v1/appStoreVersionLocalizations/')).length;

/** Ticks both instances until the schedule leaves the states in `passing`, and answers it. */
async function settled(actor: Actor, project: string, id: string, passing = ['running', 'reverting']) {
  return until(
    `schedule ${id} to settle`,
    async () => {
      await tickBoth();
      const schedule = (await actor.api.get(`/api/v1/projects/${project}/schedules/${id}`)).body.data
        .schedule;
      return passing.includes(schedule.status) ? undefined : schedule;
    },
    30_000,
  );
}

const eventsOf = async (organizationId: string, type: string) =>
  a.db.kysely
    .selectFrom('events')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('type', '=', type)
    .execute();

describe('scheduled pushes', () => {
  it('pushes exactly the scheduled changeset once, at its minute, with two instances running', async () => {
    const { org, project, admin } = await setUp();
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Spring sale',
    });
    const hash = await hashOf(admin, project);
    const at = new Date(clock.now().getTime() + 30 * MINUTE).toISOString();
    const created = await admin.api.post(`/api/v1/projects/${project}/schedules`, {
      at,
      hash,
      note: 'Spring',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const schedule = created.body.data.schedule;
    expect(schedule).toMatchObject({ status: 'scheduled', kind: 'push', at, hash, note: 'Spring' });
    expect(schedule.summary.fields).toEqual([
      { store: 'appstore', locale: 'en-US', field: 'promotionalText', new: 'Spring sale' },
    ]);
    const writesBefore = promoWrites();

    // A second before its minute: nothing.
    clock.advance(30 * MINUTE - 1_000);
    await tickBoth();
    expect(
      (await admin.api.get(`/api/v1/projects/${project}/schedules/${schedule.id}`)).body.data.schedule.status,
    ).toBe('scheduled');
    expect(promoInStore()).toBeNull();

    clock.advance(1_000);
    const done = await settled(admin, project, schedule.id, ['scheduled', 'running']);
    expect(done.status, done.reason).toBe('completed');
    expect(done.operationId).toMatch(/^op_/);
    expect(promoInStore()).toBe('Spring sale');
    expect(promoWrites() - writesBefore).toBe(1);

    // Nothing more on later ticks of either instance.
    clock.advance(5 * MINUTE);
    await tickBoth();
    await tickBoth();
    expect(promoWrites() - writesBefore).toBe(1);
    const operations = await a.db.kysely
      .selectFrom('operations')
      .select(['id', 'status'])
      .where('project_id', '=', project)
      .where('kind', '=', 'push')
      .execute();
    expect(operations).toEqual([{ id: done.operationId, status: 'succeeded' }]);
    expect(await eventsOf(org.id, 'schedule.completed')).toHaveLength(1);
    expect(await eventsOf(org.id, 'push.completed')).toHaveLength(1);
    // Audited like any push, as its author's; and its run, with how it ended.
    const audit = (await admin.api.get(`/api/v1/organization/audit-log?limit=50`)).body.data.entries as {
      action: string;
      actor: { memberId: string };
      details: Record<string, unknown>;
    }[];
    expect(audit.find((e) => e.action === 'projects.push')?.actor.memberId).toBe(admin.id);
    expect(audit.find((e) => e.action === 'schedules.run')?.details).toMatchObject({
      phase: 'push',
      status: 'completed',
    });
    expect(audit.some((e) => e.action === 'schedules.create')).toBe(true);
    // The diff is empty: what was scheduled is what the store has.
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.changeCount).toBe(0);
  });

  it('holds when the changes moved after scheduling, or the store changed a scheduled field', async () => {
    const { org, project, admin } = await setUp();
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Easter',
    });
    const at = new Date(clock.now().getTime() + 10 * MINUTE).toISOString();
    const edited = (
      await admin.api.post(`/api/v1/projects/${project}/schedules`, {
        at,
        hash: await hashOf(admin, project),
      })
    ).body.data.schedule;
    // Someone edits after it was scheduled: what would go out is no longer what was scheduled.
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      keywords: 'rain,radar,easter',
    });
    clock.advance(10 * MINUTE);
    const held = await settled(admin, project, edited.id, ['scheduled', 'running']);
    expect(held.status).toBe('held');
    expect(held.reason).toMatch(/no longer the ones scheduled/);
    expect(held.operationId).toBeNull();
    expect(promoInStore()).toBeNull();
    const [event] = await eventsOf(org.id, 'schedule.held');
    expect(JSON.parse(event!.data)).toMatchObject({
      scheduleId: edited.id,
      projectId: project,
      phase: 'push',
    });

    // The store's own console changes the scheduled field: drift holds it.
    const drifted = (
      await admin.api.post(`/api/v1/projects/${project}/schedules`, {
        at: new Date(clock.now().getTime() + 10 * MINUTE).toISOString(),
        hash: await hashOf(admin, project),
      })
    ).body.data.schedule;
    const connector = await a.services.credentials.connectorFor(org.id, 'appstore');
    await connector!.write(
      APP_ID,
      [{ locale: 'en-US', fields: { promotionalText: 'From the console' }, create: false }],
      {},
    );
    clock.advance(10 * MINUTE);
    const heldByDrift = await settled(admin, project, drifted.id, ['scheduled', 'running']);
    expect(heldByDrift.status).toBe('held');
    expect(heldByDrift.reason).toMatch(
      /store changed fields this schedule pushes: App Store en-US promotionalText/,
    );
    expect(promoInStore()).toBe('From the console');
  });

  it('holds a member’s schedule that no admin approved, and pushes one that was approved', async () => {
    const { org, project } = await setUp({ requireApproval: true });
    const member = await a.given.member(org, 'member');
    await member.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Approved?',
    });
    const at = () => new Date(clock.now().getTime() + 5 * MINUTE).toISOString();
    const created = await member.api.post(`/api/v1/projects/${project}/schedules`, {
      at: at(),
      hash: await hashOf(member, project),
    });
    expect(created.status).toBe(201);
    expect(created.body.data.approval).toEqual({ required: true, approved: false });
    clock.advance(5 * MINUTE);
    const held = await settled(member, project, created.body.data.schedule.id, ['scheduled', 'running']);
    expect(held).toMatchObject({ status: 'held' });
    expect(held.reason).toMatch(/not approved/);

    const hash = await hashOf(member, project);
    expect((await org.admin.api.post(`/api/v1/projects/${project}/approvals`, { hash })).status).toBe(201);
    const approved = (await member.api.post(`/api/v1/projects/${project}/schedules`, { at: at(), hash })).body
      .data;
    expect(approved.approval).toEqual({ required: true, approved: true });
    clock.advance(5 * MINUTE);
    expect((await settled(member, project, approved.schedule.id, ['scheduled', 'running'])).status).toBe(
      'completed',
    );
    expect(promoInStore()).toBe('Approved?');
  });

  it('runs a campaign: pushes at its time and puts the texts back at its revert time', async () => {
    const { org, project, admin } = await setUp();
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Holiday sale: 50% off',
      keywords: 'rain,radar,sale',
    });
    const at = new Date(clock.now().getTime() + 60 * MINUTE).toISOString();
    const revertAt = new Date(clock.now().getTime() + 3 * 24 * 60 * MINUTE).toISOString();
    const created = await admin.api.post(`/api/v1/projects/${project}/schedules`, {
      at,
      revertAt,
      hash: await hashOf(admin, project),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.schedule.id;
    clock.advance(60 * MINUTE);
    const live = await settled(admin, project, id, ['scheduled', 'running']);
    expect(live.status, live.reason).toBe('live');
    expect(promoInStore()).toBe('Holiday sale: 50% off');
    expect(emu.appStore.snapshot(APP_ID)['ver-2']!.versions['en-US']!.keywords).toBe('rain,radar,sale');

    clock.advance(3 * 24 * 60 * MINUTE);
    const reverted = await settled(admin, project, id, ['live', 'reverting']);
    expect(reverted.status, reverted.reason).toBe('completed');
    expect(reverted.revertOperationId).toMatch(/^op_/);
    expect(promoInStore()).toBeNull();
    expect(emu.appStore.snapshot(APP_ID)['ver-2']!.versions['en-US']!.keywords).toBe('rain,radar');
    // The working copy went back with the store: nothing pending, and the history says who.
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.changeCount).toBe(0);
    const listing = (await admin.api.get(`/api/v1/projects/${project}/listings/appstore/en-US`)).body.data
      .listing;
    expect(listing.fields.keywords).toMatchObject({
      value: 'rain,radar',
      base: 'rain,radar',
      state: 'unchanged',
    });
    const completed = (await eventsOf(org.id, 'schedule.completed')).map((e) => JSON.parse(e.data).phase);
    expect(completed.sort()).toEqual(['push', 'revert']);
  });

  it('holds a campaign’s revert when its texts were edited since it went live', async () => {
    const { project, admin } = await setUp();
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Week deal',
    });
    const created = (
      await admin.api.post(`/api/v1/projects/${project}/schedules`, {
        at: new Date(clock.now().getTime() + MINUTE).toISOString(),
        revertAt: new Date(clock.now().getTime() + 10 * MINUTE).toISOString(),
        hash: await hashOf(admin, project),
      })
    ).body.data.schedule;
    clock.advance(MINUTE);
    expect((await settled(admin, project, created.id, ['scheduled', 'running'])).status).toBe('live');
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Week deal, extended',
    });
    clock.advance(9 * MINUTE);
    const held = await settled(admin, project, created.id, ['live', 'reverting']);
    expect(held.status).toBe('held');
    expect(held.reason).toMatch(/edited since it went live: appstore en-US promotionalText/);
    expect(promoInStore()).toBe('Week deal');
  });

  it('never runs a cancelled schedule', async () => {
    const { project, admin } = await setUp();
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Never',
    });
    const created = (
      await admin.api.post(`/api/v1/projects/${project}/schedules`, {
        at: new Date(clock.now().getTime() + MINUTE).toISOString(),
        hash: await hashOf(admin, project),
      })
    ).body.data.schedule;
    const cancelled = await admin.api.delete(`/api/v1/projects/${project}/schedules/${created.id}`);
    expect(cancelled.body.data.schedule.status).toBe('cancelled');
    clock.advance(2 * MINUTE);
    await tickBoth();
    expect(promoInStore()).toBeNull();
    const again = await admin.api.delete(`/api/v1/projects/${project}/schedules/${created.id}`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/already ended \(cancelled\)/);
    const listed = (await admin.api.get(`/api/v1/projects/${project}/schedules?status=cancelled`)).body.data;
    expect(listed.schedules.map((s: { id: string }) => s.id)).toEqual([created.id]);
  });
});

describe('times', () => {
  it('takes a wall-clock time in a zone and stores the instant it names, across a daylight-saving change', async () => {
    const { project, admin } = await setUp();
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { promotionalText: 'DST' });
    const hash = await hashOf(admin, project);
    const post = (body: Record<string, unknown>) =>
      admin.api.post(`/api/v1/projects/${project}/schedules`, { hash, ...body });
    // It is 20 March (Berlin on +01:00); on 28 March the clocks go forward: 09:00 is 07:00 UTC then.
    const created = await post({ at: '2027-03-28T09:00', timeZone: 'Europe/Berlin' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.schedule).toMatchObject({
      at: '2027-03-28T07:00:00.000Z',
      timeZone: 'Europe/Berlin',
      atLocal: '2027-03-28T09:00:00+02:00',
    });
    const before = await post({
      at: '2027-03-27T09:00',
      timeZone: 'Europe/Berlin',
      revertAt: '2027-03-28T09:00',
    });
    expect(before.body.data.schedule).toMatchObject({
      at: '2027-03-27T08:00:00.000Z',
      revertAt: '2027-03-28T07:00:00.000Z',
      revertAtLocal: '2027-03-28T09:00:00+02:00',
    });
    // New York changed a fortnight earlier: 09:00 on 28 March is 13:00 UTC.
    expect((await post({ at: '2027-03-28T09:00', timeZone: 'America/New_York' })).body.data.schedule.at).toBe(
      '2027-03-28T13:00:00.000Z',
    );
    const refusals: [Record<string, unknown>, string, RegExp][] = [
      [{ at: '2027-03-28T02:30', timeZone: 'Europe/Berlin' }, 'at', /does not exist in Europe\/Berlin/],
      [{ at: '2027-03-28T09:00' }, 'at', /has no offset/],
      [{ at: '2027-03-28T09:00', timeZone: 'Mars/Olympus' }, 'timeZone', /not an IANA time zone/],
      [{ at: '2027-03-19T09:00:00Z' }, 'at', /must be after now/],
      [{ at: '2027-03-28T09:00:00Z', revertAt: '2027-03-28T08:00:00Z' }, 'revertAt', /must be after at/],
      [{ at: 'tomorrow' }, 'at', /must be a time like/],
      [{ at: '2027-03-28T09:00:00Z', hash: 'f'.repeat(64) }, '', /no longer the ones you read/],
    ];
    for (const [body, field, message] of refusals) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
      if (field !== '') expect(JSON.stringify(res.body.error), JSON.stringify(body)).toContain(field);
    }
    const both = await post({
      at: '2027-03-28T09:00:00Z',
      release: { store: 'appstore', action: 'pausePhasedRelease' },
    });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toMatch(/either hash .* or release/);
    // Listed by time, with the zone each was entered in.
    const listed = (await admin.api.get(`/api/v1/projects/${project}/schedules?from=2027-03-28T00:00:00Z`))
      .body.data;
    expect(listed.schedules.map((s: { at: string }) => s.at)).toEqual([
      '2027-03-28T07:00:00.000Z',
      '2027-03-28T13:00:00.000Z',
    ]);
  });
});
