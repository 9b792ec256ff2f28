/**
 * The App Store emulator's screenshots and app previews (stores-media.md A1 and checklist C), driven as a client
 * of Apple's API would: sets, reservations, parts without a JWT, commits, asynchronous processing
 * with Apple's failure codes, the checksum lag, the 10-per-set limit, reorder, the version gate and
 * the faults. Every request and answer passes the emulator's checks against Apple's spec.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appleToken, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { distinctColour, image, video } from '../support/media.js';
import { until } from '../support/until.js';

let emu: RunningEmulators;
let token: string;

beforeAll(async () => {
  emu = await startEmulators();
  token = await appleToken(emu);
});
afterAll(() => emu.close());
beforeEach(() => emu.restore());

async function asc(method: string, path: string, body?: unknown) {
  const res = await fetch(`${emu.url}/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

/** The id of a version's en-US localization (ver-2 is editable, ver-1 is live). */
async function localization(version = 'ver-2') {
  const res = await asc('GET', `/appStoreVersions/${version}/appStoreVersionLocalizations`);
  return res.body.data[0].id as string;
}

const createSet = async (localizationId: string, type = 'APP_IPHONE_67') =>
  asc('POST', '/appScreenshotSets', {
    data: {
      type: 'appScreenshotSets',
      attributes: { screenshotDisplayType: type },
      relationships: {
        appStoreVersionLocalization: { data: { type: 'appStoreVersionLocalizations', id: localizationId } },
      },
    },
  });

const reserve = (setId: string, bytes: Buffer, fileName = 'shot.png') =>
  asc('POST', '/appScreenshots', {
    data: {
      type: 'appScreenshots',
      attributes: { fileName, fileSize: bytes.length },
      relationships: { appScreenshotSet: { data: { type: 'appScreenshotSets', id: setId } } },
    },
  });

interface Operation {
  method: string;
  url: string;
  offset: number;
  length: number;
  requestHeaders: { name: string; value: string }[];
}

/** PUTs each part exactly as its operation says, without a JWT; in reverse order. */
async function sendParts(operations: Operation[], bytes: Buffer) {
  for (const op of [...operations].reverse()) {
    const res = await fetch(op.url, {
      method: op.method,
      headers: Object.fromEntries(op.requestHeaders.map((h) => [h.name, h.value])),
      body: bytes.subarray(op.offset, op.offset + op.length),
    });
    expect(res.status).toBe(200);
  }
}

const commit = (id: string, checksum: string) =>
  asc('PATCH', `/appScreenshots/${id}`, {
    data: { type: 'appScreenshots', id, attributes: { uploaded: true, sourceFileChecksum: checksum } },
  });

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

/** Reserve, upload, commit; answers the record once processing settled (COMPLETE or FAILED). */
async function uploadScreenshot(setId: string, bytes: Buffer, checksum = md5(bytes)) {
  const reserved = await reserve(setId, bytes);
  expect(reserved.status).toBe(201);
  const { id, attributes } = reserved.body.data;
  expect(attributes.assetDeliveryState.state).toBe('AWAITING_UPLOAD');
  await sendParts(attributes.uploadOperations, bytes);
  const committed = await commit(id, checksum);
  expect(committed.status).toBe(200);
  expect(committed.body.data.attributes.assetDeliveryState.state).toBe('UPLOAD_COMPLETE');
  expect(committed.body.data.attributes.uploadOperations).toBeUndefined();
  return until('processing', async () => {
    const res = await asc('GET', `/appScreenshots/${id}`);
    const state = res.body.data.attributes.assetDeliveryState.state;
    return state === 'COMPLETE' || state === 'FAILED' ? res.body.data : undefined;
  });
}

describe('App Store screenshots in the emulator', () => {
  it('reserves, takes parts in any order without a JWT, commits and processes to COMPLETE', async () => {
    emu.appStore.media.settings.partSize = 16 * 1024;
    const set = await createSet(await localization());
    expect(set.status).toBe(201);
    const bytes = await image({ width: 1290, height: 2796, colour: distinctColour() });
    const reserved = await reserve(set.body.data.id, bytes);
    const operations = reserved.body.data.attributes.uploadOperations as Operation[];
    expect(operations.length).toBe(Math.ceil(bytes.length / (16 * 1024)));
    expect(operations[0]!.url).toMatch(/Expires=\d+/);
    expect(operations[0]!.requestHeaders).toEqual([{ name: 'Content-Type', value: 'image/png' }]);

    // A commit before every byte arrived is refused; a part may be sent again.
    await sendParts(operations.slice(1), bytes);
    expect((await commit(reserved.body.data.id, md5(bytes))).status).toBe(409);
    await sendParts(operations, bytes);
    expect((await commit(reserved.body.data.id, md5(bytes))).status).toBe(200);
    // After the commit no part is taken.
    const late = await fetch(operations[0]!.url, {
      method: 'PUT',
      headers: { 'Content-Type': 'image/png' },
      body: bytes.subarray(0, operations[0]!.length),
    });
    expect(late.status).toBe(403);

    const done = await until('processing', async () => {
      const res = await asc('GET', `/appScreenshots/${reserved.body.data.id}`);
      return res.body.data.attributes.assetDeliveryState.state === 'COMPLETE' ? res.body.data : undefined;
    });
    expect(done.attributes).toMatchObject({
      sourceFileChecksum: md5(bytes),
      imageAsset: { width: 1290, height: 2796, templateUrl: expect.stringContaining('{w}x{h}bb.{f}') },
    });
  });

  it('fails processing as Apple does: alpha, a size of another slot, a wrong checksum — never as HTTP errors', async () => {
    const set = (await createSet(await localization())).body.data.id;
    const alpha = await uploadScreenshot(set, await image({ width: 1290, height: 2796, alpha: true }));
    expect(alpha.attributes.assetDeliveryState).toMatchObject({
      state: 'FAILED',
      errors: [{ code: 'IMAGE_ALPHA_NOT_ALLOWED' }],
    });
    const size = await uploadScreenshot(
      set,
      await image({ width: 1284, height: 2778, colour: distinctColour() }),
    );
    expect(size.attributes.assetDeliveryState.errors[0].code).toBe('IMAGE_INCORRECT_DIMENSIONS');
    const checksum = await uploadScreenshot(
      set,
      await image({ width: 1290, height: 2796, colour: distinctColour() }),
      '0'.repeat(32),
    );
    expect(checksum.attributes.assetDeliveryState.state).toBe('FAILED');
  });

  it('keeps the checksum back for a few reads after COMPLETE (the checksum-lag knob)', async () => {
    emu.appStore.media.settings.checksumLagReads = 2;
    const set = (await createSet(await localization())).body.data.id;
    const bytes = await image({ width: 1320, height: 2868, format: 'jpeg', colour: distinctColour() });
    const first = await uploadScreenshot(set, bytes);
    expect(first.attributes.assetDeliveryState.state).toBe('COMPLETE');
    expect(first.attributes.sourceFileChecksum).toBeUndefined();
    const second = await asc('GET', `/appScreenshots/${first.id}`);
    expect(second.body.data.attributes.sourceFileChecksum).toBeUndefined();
    const third = await asc('GET', `/appScreenshots/${first.id}`);
    expect(third.body.data.attributes.sourceFileChecksum).toBe(md5(bytes));
  });

  it('holds one set per display type, at most 10 records per set, and reorders only by an exact permutation', async () => {
    const loc = await localization();
    const set = (await createSet(loc)).body.data.id;
    const again = await createSet(loc);
    expect(again.status).toBe(409);
    expect(again.body.errors[0].detail).toBe('Screenshot Set Already Exists!');
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) ids.push((await reserve(set, Buffer.alloc(100))).body.data.id);
    const eleventh = await reserve(set, Buffer.alloc(100));
    expect(eleventh.status).toBe(409);

    const partial = await asc('PATCH', `/appScreenshotSets/${set}/relationships/appScreenshots`, {
      data: ids.slice(1).map((id) => ({ type: 'appScreenshots', id })),
    });
    expect(partial.status).toBe(409);
    expect(partial.body.errors[0].code).toBe('ENTITY_ERROR.RELATIONSHIP.INVALID');
    const reversed = [...ids].reverse();
    const reordered = await asc('PATCH', `/appScreenshotSets/${set}/relationships/appScreenshots`, {
      data: reversed.map((id) => ({ type: 'appScreenshots', id })),
    });
    expect(reordered.status).toBe(204);
    const listed = await asc('GET', `/appScreenshotSets/${set}/appScreenshots?limit=50`);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toEqual(reversed);

    const sets = await asc(
      'GET',
      `/appStoreVersionLocalizations/${loc}/appScreenshotSets?include=appScreenshots`,
    );
    expect(sets.body.data[0].relationships.appScreenshots.data).toHaveLength(10);
    expect(sets.body.included).toHaveLength(10);
    expect((await asc('DELETE', `/appScreenshotSets/${set}`)).status).toBe(204);
    expect((await asc('GET', `/appScreenshots/${ids[0]}`)).status).toBe(404);
  });

  it('takes app previews the same way, at most 3 per set, with the video state and a video URL', async () => {
    const loc = await localization();
    const set = await asc('POST', '/appPreviewSets', {
      data: {
        type: 'appPreviewSets',
        attributes: { previewType: 'IPHONE_67' },
        relationships: {
          appStoreVersionLocalization: { data: { type: 'appStoreVersionLocalizations', id: loc } },
        },
      },
    });
    expect(set.status).toBe(201);
    const bytes = video({ width: 886, height: 1920, seconds: 20 });
    const reserve = () =>
      asc('POST', '/appPreviews', {
        data: {
          type: 'appPreviews',
          attributes: { fileName: 'demo.mp4', fileSize: bytes.length, mimeType: 'video/mp4' },
          relationships: { appPreviewSet: { data: { type: 'appPreviewSets', id: set.body.data.id } } },
        },
      });
    const reserved = await reserve();
    expect(reserved.status).toBe(201);
    const { id, attributes } = reserved.body.data;
    expect(attributes.videoDeliveryState.state).toBe('AWAITING_UPLOAD');
    expect(attributes.uploadOperations[0].requestHeaders).toEqual([
      { name: 'Content-Type', value: 'video/mp4' },
    ]);
    await sendParts(attributes.uploadOperations, bytes);
    const committed = await asc('PATCH', `/appPreviews/${id}`, {
      data: { type: 'appPreviews', id, attributes: { uploaded: true, sourceFileChecksum: md5(bytes) } },
    });
    expect(committed.status).toBe(200);
    const done = await until('processing', async () => {
      const res = await asc('GET', `/appPreviews/${id}`);
      return res.body.data.attributes.videoDeliveryState.state === 'COMPLETE' ? res.body.data : undefined;
    });
    expect(done.attributes.videoUrl).toMatch(/^http/);
    expect((await reserve()).status).toBe(201);
    expect((await reserve()).status).toBe(201);
    expect((await reserve()).status).toBe(409);
    const listed = await asc(
      'GET',
      `/appStoreVersionLocalizations/${loc}/appPreviewSets?include=appPreviews`,
    );
    expect(listed.body.data[0].attributes.previewType).toBe('IPHONE_67');
    expect(listed.body.included).toHaveLength(3);
    // Screenshots and previews are apart: a preview set is no screenshot set.
    expect((await asc('GET', `/appScreenshotSets/${set.body.data.id}`)).status).toBe(404);
  });

  it('keeps refusing a set just deleted for a while (the set-recreate knob)', async () => {
    emu.appStore.media.settings.setRecreateBlockMs = 60_000;
    const loc = await localization();
    const set = (await createSet(loc)).body.data.id;
    expect((await asc('DELETE', `/appScreenshotSets/${set}`)).status).toBe(204);
    const again = await createSet(loc);
    expect(again.status).toBe(409);
    expect(again.body.errors[0].detail).toBe('Screenshot Set Already Exists!');
    expect((await createSet(loc, 'APP_IPHONE_65')).status).toBe(201);
  });

  it('refuses media writes on a version that is not editable', async () => {
    const res = await createSet(await localization('ver-1'));
    expect(res.status).toBe(409);
    expect(res.body.errors[0].code).toBe('STATE_ERROR');
  });

  it('creates the record of a reservation it answers 503 to, and applies a commit it answers 504 to', async () => {
    const loc = await localization();
    const set = (await createSet(loc)).body.data.id;
    emu.appStore.media.settings.failCreatedReservations = 1;
    const bytes = await image({ width: 1290, height: 2796, colour: distinctColour() });
    const failed = await reserve(set, bytes);
    expect(failed.status).toBe(503);
    const listed = await asc('GET', `/appScreenshotSets/${set}/appScreenshots`);
    const record = listed.body.data[0];
    expect(record.attributes).toMatchObject({
      fileSize: bytes.length,
      assetDeliveryState: { state: 'AWAITING_UPLOAD' },
    });

    await sendParts(record.attributes.uploadOperations, bytes);
    emu.appStore.media.settings.timeOutAppliedCommits = 1;
    expect((await commit(record.id, md5(bytes))).status).toBe(504);
    const settled = await until('processing', async () => {
      const res = await asc('GET', `/appScreenshots/${record.id}`);
      return res.body.data.attributes.assetDeliveryState.state === 'COMPLETE' ? res.body.data : undefined;
    });
    expect(settled.attributes.sourceFileChecksum).toBe(md5(bytes));
  });
});
