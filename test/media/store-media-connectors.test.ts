/**
 * The connectors' media writes against the emulators, with the store quirks of stores-media.md:
 * a processing failure per file, the checksum lag, a reservation that failed but was created, a
 * commit that timed out but went through, a push resumed over records an earlier run left behind
 * (App Store), and Google's commit-time refusal of more than eight screenshots. Files are given
 * straight to the connector, as the push gives them, so that files our own rules would refuse can
 * reach the store.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppStoreConnector } from '../../src/connectors/app-store-connect/connector.js';
import { createGooglePlayConnector } from '../../src/connectors/google-play/connector.js';
import type { MediaFile, StoreConnector } from '../../src/connectors/store-connector.js';
import { APP_ID, appleToken, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { distinctColour, image } from '../support/media.js';

let emu: RunningEmulators;
let token: string;
let apple: StoreConnector;
let google: StoreConnector;
const fast = { retries: 2, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5_000 };

beforeAll(async () => {
  emu = await startEmulators();
  token = await appleToken(emu);
  apple = createAppStoreConnector(
    { store: 'appstore', ...emu.credentials.appstore },
    { baseUrl: emu.url, policy: fast, processing: { initialDelayMs: 20, maxDelayMs: 100, timeoutMs: 5_000 } },
  );
  google = createGooglePlayConnector(
    { store: 'playstore', serviceAccount: emu.credentials.playstore.serviceAccount as never },
    { baseUrl: emu.url, tokenUrl: `${emu.url}/token`, policy: fast },
  );
});
afterAll(() => emu.close());
beforeEach(() => emu.restore());

/** A call to the emulator as another client of Apple's API. */
async function asc(method: string, path: string, body?: unknown) {
  const res = await fetch(`${emu.url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

const read = async (f: MediaFile) => {
  const chunks: Buffer[] = [];
  for await (const chunk of await f.open()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

const hash = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest('hex');

function file(bytes: Buffer, fileName: string): MediaFile {
  return {
    sha256: hash('sha256', bytes),
    md5: hash('md5', bytes),
    bytes: bytes.length,
    contentType: 'image/png',
    fileName,
    open: async (range) => Readable.from([range ? bytes.subarray(range.start, range.end + 1) : bytes]),
  };
}

/** A 6.9" iPhone screenshot, or one of the given size; every call another file. */
const iphone = async (name: string, size = { width: 1290, height: 2796 }) =>
  file(await image({ ...size, colour: distinctColour() }), name);
const phone = async (name: string) =>
  file(await image({ width: 1080, height: 1920, colour: distinctColour() }), name);

const slot = (files: MediaFile[], slotType = 'APP_IPHONE_67', locale = 'en-US') => ({
  locale,
  slotType,
  files,
});
const writes = () => emu.calls.filter((call) => !call.startsWith('GET '));
/** The checksums of the en-US 6.9" set in the emulator, in order. */
const appleSet = () => {
  const set = [...emu.appStore.media.sets.values()].find((s) => s.displayType === 'APP_IPHONE_67');
  return (set?.items ?? []).map((id) => emu.appStore.media.assets.get(id)!);
};

describe('App Store media writes', () => {
  it('reports a processing failure per file, deletes its record, and keeps the others', async () => {
    const good = [await iphone('1.png'), await iphone('3.png')];
    const wrongSize = await iphone('2.png', { width: 1284, height: 2778 }); // a 6.5" size in the 6.9" set
    const report = await apple.write(APP_ID, [], { media: [slot([good[0]!, wrongSize, good[1]!])] });
    expect(report.media).toHaveLength(1);
    const [result] = report.media;
    expect(result!.failures).toEqual([
      {
        locale: 'en-US',
        slotType: 'APP_IPHONE_67',
        sha256: wrongSize.sha256,
        error: { code: 'IMAGE_INCORRECT_DIMENSIONS', message: '2.png: IMAGE_INCORRECT_DIMENSIONS' },
      },
    ]);
    expect(result!.stored).toEqual(good.map((f) => f.sha256));
    expect(appleSet().map((a) => [a.checksum, a.state])).toEqual(good.map((f) => [f.md5, 'COMPLETE']));
  });

  it('puts files uploaded side by side in their order, whatever order the store took them in', async () => {
    // The first reservation is slow: the store appends the second and third files before it.
    emu.faults.set([{ route: 'POST /v1/appScreenshots', latencyMs: 300, times: 1 }]);
    const files = [await iphone('1.png'), await iphone('2.png'), await iphone('3.png')];
    const report = await apple.write(APP_ID, [], { media: [slot(files)] });
    expect(report.media[0]).toMatchObject({ reordered: true, failures: [] });
    expect(appleSet().map((a) => a.checksum)).toEqual(files.map((f) => f.md5));
  });

  it('waits for a late checksum instead of uploading the file again', async () => {
    emu.appStore.media.settings.checksumLagReads = 3;
    const files = [await iphone('a.png'), await iphone('b.png')];
    const first = await apple.write(APP_ID, [], { media: [slot(files)] });
    expect(first.media[0]).toMatchObject({ uploaded: 2, failures: [], stored: files.map((f) => f.sha256) });
    // The next push reads them while Apple still hides their checksums (A1.6).
    for (const asset of appleSet()) asset.checksumHiddenReads = 2;
    emu.calls.length = 0;
    const again = await apple.write(APP_ID, [], { media: [slot(files)] });
    expect(again.media[0]).toMatchObject({ uploaded: 0, deleted: 0, reordered: false, failures: [] });
    expect(writes()).toEqual([]);
    expect(appleSet()).toHaveLength(2);
  });

  it('uses a reservation that failed but was created, and accepts a commit that timed out but went through', async () => {
    emu.appStore.media.settings.failCreatedReservations = 1;
    emu.appStore.media.settings.timeOutAppliedCommits = 1;
    const files = [await iphone('a.png')];
    const report = await apple.write(APP_ID, [], { media: [slot(files)] });
    expect(report.media[0]).toMatchObject({ uploaded: 1, failures: [], stored: [files[0]!.sha256] });
    expect(appleSet().map((a) => [a.checksum, a.state])).toEqual([[files[0]!.md5, 'COMPLETE']]);
    // One reservation: the failed one was found and used, not made again.
    expect(writes().filter((c) => c === 'POST /v1/appScreenshots')).toHaveLength(1);
  });

  it('resumes over what an interrupted push left: keeps settled files, waits for one processing, replaces an abandoned reservation', async () => {
    const [a, b, c] = [await iphone('a.png'), await iphone('b.png'), await iphone('c.png')];
    await apple.write(APP_ID, [], { media: [slot([a])] });
    // What the interrupted run left: b reserved without its bytes, c committed and processing.
    emu.appStore.media.settings.processingDelayMs = 400;
    const setId = [...emu.appStore.media.sets.values()][0]!.id;
    const reserved = async (f: MediaFile, bytes: Buffer | null) => {
      const res = await asc('POST', '/appScreenshots', {
        data: {
          type: 'appScreenshots',
          attributes: { fileName: f.fileName, fileSize: f.bytes },
          relationships: { appScreenshotSet: { data: { type: 'appScreenshotSets', id: setId } } },
        },
      });
      const { id, attributes } = res.body.data;
      if (bytes === null) return id as string;
      for (const op of attributes.uploadOperations) {
        await fetch(op.url, {
          method: op.method,
          headers: Object.fromEntries(
            op.requestHeaders.map((h: { name: string; value: string }) => [h.name, h.value]),
          ),
          body: bytes.subarray(op.offset, op.offset + op.length),
        });
      }
      await asc('PATCH', `/appScreenshots/${id}`, {
        data: { type: 'appScreenshots', id, attributes: { uploaded: true, sourceFileChecksum: f.md5 } },
      });
      return id as string;
    };
    const abandoned = await reserved(b, null);
    await reserved(c, await read(c));
    emu.calls.length = 0;
    const report = await apple.write(APP_ID, [], { media: [slot([a, b, c])] });
    expect(report.media[0]).toMatchObject({ failures: [], stored: [a.sha256, b.sha256, c.sha256] });
    expect(appleSet().map((x) => [x.checksum, x.state])).toEqual([a, b, c].map((f) => [f.md5, 'COMPLETE']));
    // a stays, c was waited for; the abandoned reservation went and b was uploaded once.
    expect(writes().filter((call) => call === 'POST /v1/appScreenshots')).toHaveLength(1);
    expect(writes().filter((call) => call.startsWith('DELETE '))).toEqual([
      `DELETE /v1/appScreenshots/${abandoned}`,
    ]);
  });

  it('writes nothing to a version that is not editable, and says why', async () => {
    for (const version of emu.appStore.versions.values()) version.appVersionState = 'READY_FOR_DISTRIBUTION';
    const report = await apple.write(APP_ID, [], { media: [slot([await iphone('a.png')])] });
    expect(report.media[0]!.failures[0]!.error.code).toBe('NOT_EDITABLE');
    expect(report.media[0]!.failures[0]!.error.message).toMatch(/Prepare for Submission/);
    expect(writes()).toEqual([]);
  });
});

describe('Google Play media writes', () => {
  it('refuses more than eight screenshots at commit with the store reason and leaves no edit open', async () => {
    const files = await Promise.all(Array.from({ length: 9 }, (_, i) => phone(`${i}.png`)));
    const report = await google.write(PACKAGE, [], { media: [slot(files, 'phoneScreenshots')] });
    expect(report.media[0]!.failures.at(-1)!.error).toEqual({
      code: 'validateAppMessageTooManyScreenshots',
      message: expect.stringMatching(/more than 8 screenshots for language en-US/),
    });
    expect(report.media[0]!.stored).toEqual([]);
    expect(report.uploadedBytes).toBe(0);
    expect(emu.play.openEdits()).toEqual([]);
    expect(emu.play.apps.get(PACKAGE)!.images.get('en-US')?.get('phoneScreenshots') ?? []).toEqual([]);
  });

  it('keeps the unchanged prefix, deletes the rest and uploads the new tail in order', async () => {
    const [a, b, c, d] = await Promise.all(['a', 'b', 'c', 'd'].map((n) => phone(`${n}.png`)));
    await google.write(PACKAGE, [], { media: [slot([a!, b!, c!], 'phoneScreenshots')] });
    emu.calls.length = 0;
    const report = await google.write(PACKAGE, [], { media: [slot([a!, d!, c!], 'phoneScreenshots')] });
    expect(report.media[0]).toMatchObject({
      uploaded: 2,
      deleted: 2,
      stored: [a!.sha256, d!.sha256, c!.sha256],
    });
    const stored = emu.play.apps.get(PACKAGE)!.images.get('en-US')!.get('phoneScreenshots')!;
    expect(stored.map((i) => i.sha256)).toEqual([a!.sha256, d!.sha256, c!.sha256]);
    const pathOf = (call: string) =>
      call.replace(/edits\/[^/:]+/, 'edits/E').replace(/phoneScreenshots\/[^/]+$/, 'phoneScreenshots/I');
    const app = `/androidpublisher/v3/applications/${PACKAGE}/edits`;
    expect(writes().map(pathOf)).toEqual([
      `POST ${app}`,
      `DELETE ${app}/E/listings/en-US/phoneScreenshots/I`,
      `DELETE ${app}/E/listings/en-US/phoneScreenshots/I`,
      `POST /upload${app}/E/listings/en-US/phoneScreenshots`,
      `POST /upload${app}/E/listings/en-US/phoneScreenshots`,
      `POST ${app}/E:commit`,
    ]);
  });
});
