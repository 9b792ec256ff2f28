/**
 * Release controls (design.md §20) through the stores' official APIs, against the emulators: the
 * App Store version's release type and its phased release (enabled, active once the version is
 * live, paused and resumed by schedules at their time, completed); Google Play's staged rollout
 * (raised, halted, resumed, completed). The stores' refusals reach the caller in their words.
 */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/clock.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness } from '../support/harness.js';

const silent = pino({ level: 'silent' });
const MINUTE = 60_000;

let emu: RunningEmulators;
let h: Harness;
let clock: ManualClock;

beforeAll(async () => {
  emu = await startEmulators();
  clock = new ManualClock(Date.parse('2027-05-03T08:00:00.000Z'));
  h = await startHarness({ env: emu.env, clock, worker: true });
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
});
beforeEach(() => {
  emu.restore();
  const app = emu.play.apps.get(PACKAGE)!;
  app.artifacts = new Map([
    ['20', '2.0'],
    ['21', '2.1'],
  ]);
  app.tracks = new Map([
    [
      'production',
      [
        { name: '21 (2.1)', versionCodes: ['21'], status: 'inProgress', userFraction: 0.1 },
        { name: '20 (2.0)', versionCodes: ['20'], status: 'completed' },
      ],
    ],
  ]);
});

async function setUp(): Promise<{ admin: Actor; viewer: Actor; project: string }> {
  const org = await h.given.organization();
  for (const store of ['appstore', 'playstore'] as const)
    await org.admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
  const project = (await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE }))
    .id;
  return { admin: org.admin, viewer: await h.given.member(org, 'viewer'), project };
}

const phasedState = () =>
  [...emu.appStore.phasedReleases.values()].find((p) => p.versionId === 'ver-2')?.state;

/** Schedules a release control a minute ahead, moves the clock there and ticks; answers the ended schedule. */
async function atItsTime(admin: Actor, project: string, release: Record<string, unknown>) {
  const created = await admin.api.post(`/api/v1/projects/${project}/schedules`, {
    at: new Date(clock.now().getTime() + MINUTE).toISOString(),
    release,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  clock.advance(MINUTE);
  await h.services.scheduleRunner.tick(silent);
  return (await admin.api.get(`/api/v1/projects/${project}/schedules/${created.body.data.schedule.id}`)).body
    .data.schedule;
}

describe('App Store release controls', () => {
  it('sets the release type, and pauses and resumes a phased release at scheduled times', async () => {
    const { admin, viewer, project } = await setUp();
    const apply = (body: Record<string, unknown>) =>
      admin.api.post(`/api/v1/projects/${project}/release-controls`, { store: 'appstore', ...body });

    const scheduled = await apply({
      action: 'setReleaseType',
      releaseType: 'SCHEDULED',
      earliestReleaseDate: '2027-05-10T09:00:00+02:00',
    });
    expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200);
    expect(scheduled.body.data.controls.appStore).toMatchObject({
      versionString: '1.1',
      releaseType: 'SCHEDULED',
      earliestReleaseDate: '2027-05-10T07:00:00Z',
      phasedRelease: null,
    });
    const offHour = await apply({
      action: 'setReleaseType',
      releaseType: 'SCHEDULED',
      earliestReleaseDate: '2027-05-10T09:30:00Z',
    });
    expect(offHour.status).toBe(400);
    expect(offHour.body.error.message).toMatch(/earliestReleaseDate/);
    expect(
      (await apply({ action: 'setReleaseType', releaseType: 'MANUAL' })).body.data.controls.appStore,
    ).toMatchObject({
      releaseType: 'MANUAL',
      earliestReleaseDate: null,
    });
    expect(
      (
        await viewer.api.post(`/api/v1/projects/${project}/release-controls`, {
          store: 'appstore',
          action: 'enablePhasedRelease',
        })
      ).status,
    ).toBe(403);

    const enabled = await apply({ action: 'enablePhasedRelease' });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    expect(enabled.body.data.controls.appStore.phasedRelease).toMatchObject({ state: 'INACTIVE' });
    // Not live yet: nothing to pause; Apple says why.
    const early = await apply({ action: 'pausePhasedRelease' });
    expect(early.status).toBe(409);
    expect(early.body.error.message).toMatch(/App Store refused it: .*INACTIVE cannot be changed to PAUSED/);
    // Again: one phased release per version.
    expect((await apply({ action: 'enablePhasedRelease' })).status).toBe(409);

    emu.appStore.releaseVersion('ver-2');
    expect(phasedState()).toBe('ACTIVE');
    const paused = await atItsTime(admin, project, { store: 'appstore', action: 'pausePhasedRelease' });
    expect(paused).toMatchObject({ status: 'completed', kind: 'release' });
    expect(phasedState()).toBe('PAUSED');
    const resumed = await atItsTime(admin, project, { store: 'appstore', action: 'resumePhasedRelease' });
    expect(resumed.status, resumed.reason).toBe('completed');
    expect(phasedState()).toBe('ACTIVE');
    const read = (await admin.api.get(`/api/v1/projects/${project}/release-controls`)).body.data;
    expect(read.appStore.phasedRelease).toMatchObject({ state: 'ACTIVE', currentDayNumber: 1 });
    expect(read.playStore[0]).toMatchObject({ track: 'production', status: 'inProgress', userFraction: 0.1 });

    expect(
      (await apply({ action: 'completePhasedRelease' })).body.data.controls.appStore.phasedRelease.state,
    ).toBe('COMPLETE');
    // A schedule whose control the store refuses at its time fails with the store's words.
    const refused = await atItsTime(admin, project, { store: 'appstore', action: 'pausePhasedRelease' });
    expect(refused.status).toBe('failed');
    expect(refused.reason).toMatch(/COMPLETE cannot be changed to PAUSED/);
    // The released version takes no new release type.
    expect((await apply({ action: 'setReleaseType', releaseType: 'MANUAL' })).status).toBe(409);
  });
});

describe('Google Play staged rollout', () => {
  it('raises, halts, resumes and completes the production rollout, leaving the other releases alone', async () => {
    const { admin, project } = await setUp();
    const apply = (body: Record<string, unknown>) =>
      admin.api.post(`/api/v1/projects/${project}/release-controls`, {
        store: 'playstore',
        track: 'production',
        ...body,
      });
    const production = () => emu.play.apps.get(PACKAGE)!.tracks.get('production')!;

    const raised = await atItsTime(admin, project, {
      store: 'playstore',
      action: 'setRolloutFraction',
      track: 'production',
      fraction: 0.5,
    });
    expect(raised.status, raised.reason).toBe('completed');
    expect(production().find((r) => r.versionCodes?.includes('21'))).toMatchObject({
      status: 'inProgress',
      userFraction: 0.5,
    });
    expect(production().find((r) => r.versionCodes?.includes('20'))).toMatchObject({ status: 'completed' });

    const lower = await apply({ action: 'setRolloutFraction', fraction: 0.2 });
    expect(lower.status).toBe(409);
    expect(lower.body.error.message).toMatch(/only increases: it is at 0.5/);
    for (const [fraction, message] of [
      [1, /between 0 and 1/],
      [0, /between 0 and 1/],
    ] as const) {
      const bad = await apply({ action: 'setRolloutFraction', fraction });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(message);
    }
    expect((await apply({ action: 'setRolloutFraction', track: '', fraction: 0.6 })).status).toBe(400);
    expect((await apply({ action: 'pausePhasedRelease' })).body.error.message).toMatch(
      /Google Play takes setRolloutFraction/,
    );

    expect((await apply({ action: 'haltRollout' })).body.data.controls.playStore[0]).toMatchObject({
      status: 'halted',
      userFraction: 0.5,
    });
    expect((await apply({ action: 'setRolloutFraction', fraction: 0.8 })).body.error.message).toMatch(
      /halted/,
    );
    expect((await apply({ action: 'resumeRollout' })).body.data.controls.playStore[0]).toMatchObject({
      status: 'inProgress',
    });
    const completed = (await apply({ action: 'completeRollout' })).body.data.controls.playStore;
    expect(completed).toEqual([
      {
        track: 'production',
        name: '21 (2.1)',
        versionCodes: ['21'],
        status: 'completed',
        userFraction: null,
      },
    ]);
    expect((await apply({ action: 'haltRollout' })).body.error.message).toMatch(/no staged rollout/);
    // Each edit was committed: the store holds what was sent.
    expect(emu.calls.filter((c) => c.endsWith(':commit')).length).toBeGreaterThanOrEqual(4);
  });
});
