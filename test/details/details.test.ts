/**
 * App details and App Review information end to end against both emulators (design.md §19,
 * stores-more.md §C): synced from both stores; edits validated as a whole (an unknown category
 * refused with the list, a phone without its country code, the demo password for admins only);
 * bound into the diff and its approval; pushed as exactly the store calls they need; noticed when
 * changed in a store console (drift); and the demo account password never in any response, log,
 * drift record or stored value — only sent to the store.
 */
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';

const PASSWORD = 'Pa55-word-for-the-reviewers';
const NEW_PASSWORD = 'N3w-pa55-for-the-reviewers';

let emu: RunningEmulators;
let h: Harness;
/** Every response body this file saw, to scan for the password. */
const bodies: string[] = [];

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ env: emu.env });
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
});
beforeEach(() => {
  emu.restore();
  emu.appStore.details.copyright.set('ver-2', '2025 Example Inc.');
  emu.appStore.details.categories.set('info-edit', { primaryCategory: 'WEATHER' });
  emu.appStore.details.reviewDetails.set('review-1', {
    id: 'review-1',
    versionId: 'ver-2',
    attributes: {
      contactFirstName: 'Dana',
      contactLastName: 'Reviewer',
      contactPhone: '+49 30 1234567',
      contactEmail: 'dana@example.com',
      demoAccountName: 'demo',
      demoAccountPassword: PASSWORD,
      demoAccountRequired: true,
      notes: null,
    },
  });
  emu.play.apps.get(PACKAGE)!.contact = { contactEmail: 'dev@example.com' };
});

/** A client that keeps every body it receives. */
function recorded(actor: Actor) {
  const keep = async <T extends { body: unknown }>(res: Promise<T>) => {
    const answer = await res;
    bodies.push(JSON.stringify(answer.body));
    return answer;
  };
  return {
    get: (url: string) => keep(actor.api.get(url)),
    patch: (url: string, body: unknown) => keep(actor.api.patch(url, body)),
    post: (url: string, body?: unknown) => keep(actor.api.post(url, body)),
  };
}

async function setUp(settings: { requireApproval?: boolean } = {}) {
  const org: TestOrganization = await h.given.organization();
  for (const store of ['appstore', 'playstore'] as const)
    await org.admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
  if (settings.requireApproval)
    await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
  const project = (await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE }))
    .id;
  const sync = await recorded(org.admin).post(`/api/v1/projects/${project}/sync`, {});
  expect(sync.status, JSON.stringify(sync.body)).toBe(200);
  return { org, project, admin: recorded(org.admin), member: recorded(await h.given.member(org, 'member')) };
}

describe('app details and App Review information', () => {
  it('syncs both stores’ details, the password only as whether it is set', async () => {
    const { project, admin } = await setUp();
    const apple = (await admin.get(`/api/v1/projects/${project}/details/appstore`)).body.data;
    expect(apple).toMatchObject({
      store: 'appstore',
      details: {
        copyright: '2025 Example Inc.',
        primaryCategory: 'WEATHER',
        secondaryCategory: null,
        review: {
          contactFirstName: 'Dana',
          contactPhone: '+49 30 1234567',
          demoAccountName: 'demo',
          demoAccountPassword: { set: true },
          demoAccountRequired: true,
          notes: null,
        },
      },
      pending: 0,
    });
    const play = (await admin.get(`/api/v1/projects/${project}/details/playstore`)).body.data;
    expect(play.details).toEqual({
      contactEmail: 'dev@example.com',
      contactPhone: null,
      contactWebsite: null,
      defaultLanguage: 'en-US',
    });
    expect((await admin.get(`/api/v1/projects/${project}/diff`)).body.data.detailChangeCount).toBe(0);
  });

  it('refuses what the stores would: an unknown category with the list, a bad phone, all at once', async () => {
    const { project, admin, member } = await setUp();
    const url = `/api/v1/projects/${project}/details/appstore`;
    const bad = await admin.patch(url, {
      primaryCategory: 'WEATHERISH',
      review: { contactPhone: '030 1234567', contactEmail: 'not-an-address' },
    });
    expect(bad.status).toBe(400);
    const details = bad.body.error.details;
    expect(details.map((d: any) => d.field)).toEqual([
      'primaryCategory',
      'review.contactPhone',
      'review.contactEmail',
    ]);
    expect(details[0].message).toMatch(/one of BOOKS, .*, WEATHER$/);
    expect(
      (await admin.patch(`/api/v1/projects/${project}/details/playstore`, { defaultLanguage: 'xx-XX' }))
        .status,
    ).toBe(400);
    // The password is an admin's to set.
    const denied = await member.patch(url, { review: { demoAccountPassword: NEW_PASSWORD } });
    expect(denied.status).toBe(403);
    expect((await admin.get(`/api/v1/projects/${project}/diff`)).body.data.detailChangeCount).toBe(0);
  });

  it('pushes exactly the changed details after approval, the new password sent to the store only', async () => {
    const { org, project, admin, member } = await setUp({ requireApproval: true });
    const apple = `/api/v1/projects/${project}/details/appstore`;
    const edited = await member.patch(apple, {
      copyright: '2026 Example Inc.',
      secondaryCategory: 'PRODUCTIVITY',
      review: { notes: 'Sign in with the demo account; the radar needs location.' },
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(edited.body.data.states).toMatchObject({
      copyright: 'modified',
      'review.notes': 'modified',
    });
    expect((await admin.patch(apple, { review: { demoAccountPassword: NEW_PASSWORD } })).status).toBe(200);
    expect(
      (
        await member.patch(`/api/v1/projects/${project}/details/playstore`, {
          contactWebsite: 'https://example.com',
        })
      ).status,
    ).toBe(200);

    const diff = (await member.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(diff.detailChangeCount).toBe(5);
    expect(diff.counts.appstore.details).toBe(4);
    expect(diff.details.appstore.copyright).toEqual({ old: '2025 Example Inc.', new: '2026 Example Inc.' });
    expect(diff.details.appstore['review.demoAccountPassword']).toEqual({
      old: 'set',
      new: expect.stringMatching(/^set \(changed /),
    });
    expect((await member.post(`/api/v1/projects/${project}/push`, {})).status).toBe(403);
    const approval = await org.admin.api.post(`/api/v1/projects/${project}/approvals`);
    expect(approval.body.data.hash).toBe(diff.hash);

    emu.appStore.details.calls.length = 0;
    emu.play.detailsCalls.length = 0;
    const push = await member.post(`/api/v1/projects/${project}/push`, {});
    expect(push.status, JSON.stringify(push.body)).toBe(200);
    const result = push.body.data;
    expect(result.failures).toEqual([]);
    expect(result.appStore).toMatchObject({ pushed: true, details: 4 });
    expect(result.playStore).toMatchObject({ pushed: true, details: 1 });
    expect(emu.appStore.details.calls).toEqual([
      'PATCH /v1/appStoreVersions/ver-2',
      'PATCH /v1/appInfos/info-edit',
      'PATCH /v1/appStoreReviewDetails/review-1',
    ]);
    expect(emu.play.detailsCalls).toEqual(['PATCH details']);
    expect(emu.appStore.details.reviewDetails.get('review-1')!.attributes).toMatchObject({
      demoAccountPassword: NEW_PASSWORD,
      notes: 'Sign in with the demo account; the radar needs location.',
    });
    expect(emu.appStore.details.copyright.get('ver-2')).toBe('2026 Example Inc.');
    expect(emu.play.apps.get(PACKAGE)!.contact.contactWebsite).toBe('https://example.com');

    const after = (await member.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(after.detailChangeCount).toBe(0);
    // A sync finds what was pushed: nothing pending, nothing in conflict.
    const sync = await member.post(`/api/v1/projects/${project}/sync`, {});
    expect(sync.body.data.conflicts).toEqual([]);
    expect((await member.get(apple)).body.data.pending).toBe(0);
    const history = (await member.get(`${apple}/history`)).body.data.entries;
    expect(history.find((e: any) => e.field === 'review.demoAccountPassword')).toMatchObject({
      old: 'set',
      new: 'set',
    });
    await member.get(`/api/v1/projects/${project}/operations`);
    await admin.get('/api/v1/organization/audit-log');

    // The password was never answered, logged or stored in the clear.
    for (const secret of [PASSWORD, NEW_PASSWORD]) {
      expect(bodies.filter((b) => b.includes(secret))).toEqual([]);
      expect(h.logs.filter((line) => line.includes(secret))).toEqual([]);
    }
    const stored = await h.db.kysely
      .selectFrom('app_details')
      .selectAll()
      .where('project_id', '=', project)
      .execute();
    expect(stored.find((r) => r.field === 'review.demoAccountPassword')?.value).toMatch(/"ciphertext"/);
    expect(JSON.stringify(stored)).not.toContain(NEW_PASSWORD);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
  });

  it('notices a detail changed in a store console (never the password) until a sync takes it in', async () => {
    const { project, admin } = await setUp();
    emu.appStore.details.copyright.set('ver-2', '2026 Changed in the console');
    emu.appStore.details.reviewDetails.get('review-1')!.attributes.demoAccountPassword =
      'changed-in-console-9';
    emu.play.apps.get(PACKAGE)!.contact = { contactEmail: 'console@example.com' };
    await h.services.drift.check(project, pino({ level: 'silent' }));
    const drift = (await admin.get(`/api/v1/projects/${project}/diff`)).body.data.storeDrift;
    expect(drift.map((d: any) => [d.store, d.locale, d.field, d.base, d.storeValue])).toEqual([
      ['appstore', '', 'details.copyright', '2025 Example Inc.', '2026 Changed in the console'],
      ['playstore', '', 'details.contactEmail', 'dev@example.com', 'console@example.com'],
    ]);
    expect(JSON.stringify(drift)).not.toContain('changed-in-console-9');
    await admin.post(`/api/v1/projects/${project}/sync`, {});
    expect((await admin.get(`/api/v1/projects/${project}/diff`)).body.data.storeDrift).toEqual([]);
    expect(
      (await admin.get(`/api/v1/projects/${project}/details/appstore`)).body.data.details.copyright,
    ).toBe('2026 Changed in the console');
  });
});
