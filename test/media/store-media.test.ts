/**
 * Media through sync and push, end to end against both emulators (stores-media.md A1, A2): the
 * first push of a set, a second push that writes nothing, one file replaced and a reorder with
 * exactly the calls they need (and the dry run that plans them), sync that downloads a store's
 * files once and merges them three-way with conflicts, and a background push with progress per
 * file.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness } from '../support/harness.js';
import { distinctColour, image, upload, video } from '../support/media.js';

let emu: RunningEmulators;
let h: Harness;
let admin: Actor;
let other: Actor;

const connect = async (actor: Actor) => {
  for (const store of ['appstore', 'playstore'] as const) {
    const res = await actor.api.request(
      'PUT',
      `/api/v1/organization/credentials/${store}`,
      emu.credentials[store],
    );
    expect(res.status).toBe(200);
  }
};

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ env: emu.env, worker: true });
  admin = (await h.given.organization()).admin;
  other = (await h.given.organization()).admin;
  await connect(admin);
  await connect(other);
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
});
beforeEach(() => emu.restore());

const newProject = async (actor = admin) =>
  (await h.given.project(actor, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })).id;
const slotUrl = (project: string, store: string, locale: string, slot: string) =>
  `/api/v1/projects/${project}/media/${store}/${locale}/${slot}`;
const iphone = () => image({ width: 1290, height: 2796, colour: distinctColour() });
const phone = () => image({ width: 1080, height: 1920, colour: distinctColour() });

/** Uploads files to a slot; answers the items in slot order. */
async function fill(project: string, store: string, locale: string, slot: string, files: Buffer[]) {
  const items = [];
  for (const [index, bytes] of files.entries()) {
    const res = await upload(
      h,
      admin.apiKey,
      slotUrl(project, store, locale, slot),
      bytes,
      'image/png',
      `${index + 1}.png`,
    );
    expect(res.status).toBe(201);
    items.push(res.body.data as { id: string; sha256: string; md5: string });
  }
  return items;
}

const writes = () => emu.calls.filter((call) => !call.startsWith('GET '));
const appleChecksums = () => {
  const set = [...emu.appStore.media.sets.values()].find((s) => s.displayType === 'APP_IPHONE_67');
  return (set?.items ?? []).map((id) => emu.appStore.media.assets.get(id)!.checksum);
};
const playHashes = () =>
  (emu.play.apps.get(PACKAGE)!.images.get('en-US')?.get('phoneScreenshots') ?? []).map((i) => i.sha256);
const push = async (project: string, body: object = {}) => {
  const res = await admin.api.post(`/api/v1/projects/${project}/push`, body);
  expect(res.status).toBe(200);
  return res.body.data;
};

describe('push of media', () => {
  it('pushes a full set to both stores, then a second push writes nothing', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    const apple = await fill(project, 'appstore', 'en-US', 'APP_IPHONE_67', [
      await iphone(),
      await iphone(),
      await iphone(),
    ]);
    const play = await fill(project, 'playstore', 'en-US', 'phoneScreenshots', [
      await phone(),
      await phone(),
    ]);
    const preview = await push(project, { dryRun: true });
    expect(preview.counts).toEqual({
      appstore: { fields: 0, media: 1, releaseNotes: 0, products: 0, removedLocales: 0 },
      playstore: { fields: 0, media: 1, releaseNotes: 0, products: 0, removedLocales: 0 },
    });
    const result = await push(project);
    expect(result.failures).toEqual([]);
    expect(result.written).toEqual([
      {
        store: 'appstore',
        locale: 'en-US',
        fields: 0,
        mediaSlots: 1,
        mediaItems: 3,
        releaseNotes: 0,
        products: 0,
        failures: 0,
      },
      {
        store: 'playstore',
        locale: 'en-US',
        fields: 0,
        mediaSlots: 1,
        mediaItems: 2,
        releaseNotes: 0,
        products: 0,
        failures: 0,
      },
    ]);
    expect(result.appStore).toMatchObject({ pushed: true, media: { slots: 1, uploaded: 3, deleted: 0 } });
    expect(result.playStore).toMatchObject({ pushed: true, media: { slots: 1, uploaded: 2, deleted: 0 } });
    expect(appleChecksums()).toEqual(apple.map((i) => i.md5));
    expect(playHashes()).toEqual(play.map((i) => i.sha256));
    const diff = (await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(diff.mediaChangeCount).toBe(0);

    emu.calls.length = 0;
    const again = await push(project);
    expect(again.appStore).toEqual({ pushed: true, locales: 0 });
    expect(writes()).toEqual([]);
  });

  it('replaces one screenshot with exactly the calls for it, as the dry run plans them', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    const items = await fill(project, 'appstore', 'en-US', 'APP_IPHONE_67', [
      await iphone(),
      await iphone(),
      await iphone(),
    ]);
    await push(project);
    // The second screenshot is replaced: removed, a new one uploaded and moved to its place.
    await admin.api.delete(`${slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67')}/${items[1]!.id}`);
    const [added] = await fill(project, 'appstore', 'en-US', 'APP_IPHONE_67', [await iphone()]);
    const order = [items[0]!.id, added!.id, items[2]!.id];
    expect(
      (
        await admin.api.request('PUT', `${slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67')}/order`, {
          items: order,
        })
      ).status,
    ).toBe(200);

    const preview = await push(project, { dryRun: true });
    expect(preview.mediaChangeCount).toBe(1);
    const planned = preview.media.appstore['en-US'].APP_IPHONE_67;
    expect(planned).toMatchObject({
      added: [added!.sha256],
      removed: [items[1]!.sha256],
      reordered: false,
      replaced: [{ old: items[1]!.sha256, new: added!.sha256 }],
      conflict: false,
    });
    expect(preview.uploadBytes).toBe(planned.uploadBytes);
    expect(planned.calls).toEqual([
      `DELETE /v1/appScreenshots/{id} (${items[1]!.sha256.slice(0, 12)})`,
      expect.stringMatching(/^POST \/v1\/appScreenshots \(reserve /),
      'PUT 1 part(s) to the upload URLs',
      'PATCH /v1/appScreenshots/{id} (commit with the MD5)',
      'GET /v1/appScreenshots/{id} until processed',
      'PATCH /v1/appScreenshotSets/{id}/relationships/appScreenshots (order)',
    ]);

    emu.calls.length = 0;
    const result = await push(project);
    expect(result.appStore.media).toMatchObject({
      uploaded: 1,
      deleted: 1,
      uploadedBytes: planned.uploadBytes,
    });
    expect(writes().map((call) => call.replace(/[0-9a-f-]{36}/g, '{id}'))).toEqual([
      'DELETE /v1/appScreenshots/{id}',
      'POST /v1/appScreenshots',
      'PUT /emulator-uploads/{id}',
      'PATCH /v1/appScreenshots/{id}',
      'PATCH /v1/appScreenshotSets/{id}/relationships/appScreenshots',
    ]);
    expect(appleChecksums()).toEqual([items[0]!.md5, added!.md5, items[2]!.md5]);
  });

  it('reorders with one call on the App Store, and by re-uploading the tail on Google Play', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    const apple = await fill(project, 'appstore', 'en-US', 'APP_IPHONE_67', [await iphone(), await iphone()]);
    const play = await fill(project, 'playstore', 'en-US', 'phoneScreenshots', [
      await phone(),
      await phone(),
      await phone(),
    ]);
    await push(project);
    await admin.api.request('PUT', `${slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67')}/order`, {
      items: [apple[1]!.id, apple[0]!.id],
    });
    await admin.api.request('PUT', `${slotUrl(project, 'playstore', 'en-US', 'phoneScreenshots')}/order`, {
      items: [play[0]!.id, play[2]!.id, play[1]!.id],
    });
    emu.calls.length = 0;
    const result = await push(project);
    expect(result.failures).toEqual([]);
    const made = writes().map((call) =>
      call.replace(/[0-9a-f-]{36}/g, '{id}').replace(/edits\/[^/:]+/, 'edits/E'),
    );
    expect(made.filter((call) => call.includes('/v1/'))).toEqual([
      'PATCH /v1/appScreenshotSets/{id}/relationships/appScreenshots',
    ]);
    // Play has no reorder call: the first file stays, the two after it go and come back in order.
    const edits = `/androidpublisher/v3/applications/${PACKAGE}/edits`;
    expect(
      made
        .filter((call) => call.includes('androidpublisher'))
        .map((call) => call.replace(/phoneScreenshots\/[^/]+$/, 'phoneScreenshots/I')),
    ).toEqual([
      `POST ${edits}`,
      `DELETE ${edits}/E/listings/en-US/phoneScreenshots/I`,
      `DELETE ${edits}/E/listings/en-US/phoneScreenshots/I`,
      `POST /upload${edits}/E/listings/en-US/phoneScreenshots`,
      `POST /upload${edits}/E/listings/en-US/phoneScreenshots`,
      `POST ${edits}/E:commit`,
    ]);
    expect(appleChecksums()).toEqual([apple[1]!.md5, apple[0]!.md5]);
    expect(playHashes()).toEqual([play[0]!.sha256, play[2]!.sha256, play[1]!.sha256]);
    expect(result.playStore.media).toMatchObject({ uploaded: 2, deleted: 2 });
  });

  it('runs in the background with progress per file', async () => {
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    await fill(project, 'appstore', 'en-US', 'APP_IPHONE_67', [await iphone(), await iphone()]);
    await fill(project, 'playstore', 'en-US', 'phoneScreenshots', [await phone()]);
    const started = await admin.api.request(
      'POST',
      `/api/v1/projects/${project}/push`,
      {},
      { prefer: 'respond-async' },
    );
    expect(started.status).toBe(202);
    const id = started.body.data.operation.id;
    const deadline = Date.now() + 20_000;
    let operation;
    do {
      await new Promise((resolve) => setTimeout(resolve, 50));
      operation = (await admin.api.get(`/api/v1/projects/${project}/operations/${id}`)).body.data.operation;
      if (Date.now() > deadline) throw new Error(`operation still ${operation.status}`);
    } while (['queued', 'running'].includes(operation.status));
    expect(operation.status).toBe('succeeded');
    expect(operation.progress.media).toEqual({ done: 3, failed: 0, total: 3 });
    expect(operation.progress.stores.appstore.media).toEqual({ done: 2, failed: 0, total: 2 });
    expect(operation.outcome.appStore.media).toMatchObject({ uploaded: 2 });
  });
});

describe('app previews', () => {
  it('go to the App Store through the same reservation flow and come back through its HLS URL', async () => {
    const source = await newProject();
    await admin.api.post(`/api/v1/projects/${source}/sync`, {});
    const clip = video({ width: 886, height: 1920, seconds: 20 });
    const res = await upload(
      h,
      admin.apiKey,
      slotUrl(source, 'appstore', 'en-US', 'PREVIEW_IPHONE_67'),
      clip,
      'video/mp4',
      'clip.mp4',
    );
    expect(res.status).toBe(201);
    const result = await push(source);
    expect(result.appStore).toMatchObject({ pushed: true, media: { uploaded: 1 } });
    const set = [...emu.appStore.media.sets.values()].find((s) => s.displayType === 'IPHONE_67');
    expect(set?.kind).toBe('previews');
    expect(set!.items.map((id) => emu.appStore.media.assets.get(id)!.checksum)).toEqual([res.body.data.md5]);

    const project = await newProject(other);
    const synced = await other.api.post(`/api/v1/projects/${project}/sync`, {});
    expect(synced.body.data.failures).toEqual([]);
    const slots = (await other.api.get(`/api/v1/projects/${project}/media?store=appstore`)).body.data.slots;
    const previews = slots.find((s: { slotType: string }) => s.slotType === 'PREVIEW_IPHONE_67');
    expect(previews.items).toEqual([
      expect.objectContaining({
        kind: 'video',
        contentType: 'video/mp4',
        width: 886,
        height: 1920,
        durationMs: 20_000,
      }),
    ]);
  });
});

describe('sync of media', () => {
  it("downloads another team's store files once, keeps Apple's checksum beside them, and merges three-way", async () => {
    // The first organization puts files in the stores.
    const source = await newProject();
    await admin.api.post(`/api/v1/projects/${source}/sync`, {});
    const apple = await fill(source, 'appstore', 'en-US', 'APP_IPHONE_67', [await iphone(), await iphone()]);
    const play = await fill(source, 'playstore', 'en-US', 'phoneScreenshots', [await phone()]);
    await push(source);

    // Another organization syncs them: Apple serves re-encoded copies, Google the files.
    const project = await newProject(other);
    const synced = await other.api.post(`/api/v1/projects/${project}/sync`, {});
    expect(synced.body.data.failures).toEqual([]);
    const slots = (await other.api.get(`/api/v1/projects/${project}/media`)).body.data.slots;
    const slotOf = (store: string, type: string) =>
      slots.find(
        (s: { store: string; locale: string; slotType: string }) =>
          s.store === store && s.locale === 'en-US' && s.slotType === type,
      );
    const appleSlot = slotOf('appstore', 'APP_IPHONE_67');
    expect(appleSlot.state).toBe('unchanged');
    expect(appleSlot.items).toHaveLength(2);
    expect(appleSlot.items.map((i: { md5: string }) => i.md5)).not.toEqual(apple.map((i) => i.md5));
    expect(appleSlot.items.map((i: { width: number }) => i.width)).toEqual([1290, 1290]);
    expect(slotOf('playstore', 'phoneScreenshots').items.map((i: { sha256: string }) => i.sha256)).toEqual(
      play.map((i) => i.sha256),
    );

    // A second sync downloads nothing and changes nothing; a push writes nothing.
    emu.calls.length = 0;
    await other.api.post(`/api/v1/projects/${project}/sync`, {});
    expect(emu.calls.filter((call) => call.startsWith('GET /emulator-'))).toEqual([]);
    expect((await other.api.get(`/api/v1/projects/${project}/diff`)).body.data.mediaChangeCount).toBe(0);

    // Both sides change the same slot: a conflict, reported like a text conflict; push leaves it.
    await fill(source, 'appstore', 'en-US', 'APP_IPHONE_67', [await iphone()]);
    await push(source);
    const mine = await upload(
      h,
      other.apiKey,
      slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67'),
      await iphone(),
    );
    expect(mine.status).toBe(201);
    const conflicted = (await other.api.post(`/api/v1/projects/${project}/sync`, {})).body.data;
    expect(conflicted.conflicts).toEqual([
      expect.objectContaining({ store: 'appstore', locale: 'en-US', field: 'media.APP_IPHONE_67' }),
    ]);
    expect(conflicted.conflicts[0].storeMedia).toHaveLength(3);
    expect(conflicted.conflicts[0].localMedia).toHaveLength(3);
    const pushed = (await other.api.post(`/api/v1/projects/${project}/push`, { store: 'appstore' })).body
      .data;
    expect(pushed.failures).toEqual([
      expect.objectContaining({
        store: 'appstore',
        field: 'media.APP_IPHONE_67',
        error: expect.objectContaining({ code: 'CONFLICT' }),
      }),
    ]);
    expect(appleChecksums()).toHaveLength(3);

    // Keeping our files as they are resolves it: the store's files become the base, a push writes ours.
    const slotPath = slotUrl(project, 'appstore', 'en-US', 'APP_IPHONE_67');
    const ours = (
      await other.api.get(`/api/v1/projects/${project}/media?store=appstore&locale=en-US`)
    ).body.data.slots.find((s: { slotType: string }) => s.slotType === 'APP_IPHONE_67');
    expect(ours).toMatchObject({ state: 'conflict', conflict: conflicted.conflicts[0].storeMedia });
    const kept = await other.api.request('PUT', `${slotPath}/order`, {
      items: ours.items.map((i: { id: string }) => i.id),
    });
    expect(kept.body.data.slot).toMatchObject({
      state: 'modified',
      conflict: null,
      base: conflicted.conflicts[0].storeMedia,
    });
    const resolved = (await other.api.post(`/api/v1/projects/${project}/push`, { store: 'appstore' })).body
      .data;
    expect(resolved.failures).toEqual([]);
    expect(appleChecksums()).toEqual(ours.items.map((i: { md5: string }) => i.md5));
  });
});
