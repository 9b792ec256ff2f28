/**
 * Where media files live and how long: an S3 bucket end to end, collection of unused files (and
 * never of one a racing upload uses), and memory that stays flat under many large uploads.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '../../src/blobs/index.js';
import { ManualClock } from '../support/clock.js';
import { startHarness, type Harness } from '../support/harness.js';
import { distinctColour, image, textChunk, upload } from '../support/media.js';
import { startS3, type TestS3 } from '../support/s3.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const HOUR = 3600_000;

describe('on an S3 bucket', () => {
  let s3: TestS3;
  let h: Harness;
  beforeAll(async () => {
    s3 = await startS3();
    h = await startHarness({ env: { BLOB_STORE_URL: `s3://${s3.bucket}/media`, S3_ENDPOINT: s3.endpoint } });
  });
  afterAll(async () => {
    await h?.close();
    await s3?.close();
  });

  it('uploads, stores under the prefix and serves the bytes and thumbnail from the bucket', async () => {
    const org = await h.given.organization();
    const project = (await h.given.project(org.admin, { appStoreAppId: '1' })).id;
    const bytes = await image({ width: 1290, height: 2796, colour: distinctColour() });
    const res = await upload(
      h,
      org.admin.apiKey,
      `/api/v1/projects/${project}/media/appstore/en-US/APP_IPHONE_67`,
      bytes,
    );
    expect(res.status).toBe(201);
    expect(h.services.blobs.description).toBe(`s3://${s3.bucket}/media/`);
    const direct = createBlobStore({
      kind: 's3',
      bucket: s3.bucket,
      prefix: 'media/',
      endpoint: s3.endpoint,
      region: 'us-east-1',
    });
    try {
      expect(await direct.exists(`files/${sha256(bytes).slice(0, 2)}/${sha256(bytes)}`)).toBe(true);
    } finally {
      await direct.close();
    }
    const get = await h.app.inject({
      method: 'GET',
      url: res.body.data.url,
      headers: { authorization: `Bearer ${org.admin.apiKey}` },
    });
    expect(get.statusCode).toBe(200);
    expect(get.rawPayload.equals(bytes)).toBe(true);
    const thumb = await h.app.inject({
      method: 'GET',
      url: res.body.data.thumbnailUrl,
      headers: { authorization: `Bearer ${org.admin.apiKey}` },
    });
    expect((await sharp(thumb.rawPayload).metadata()).format).toBe('webp');
  });
});

describe('collection', () => {
  const clock = new ManualClock();
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ clock });
  });
  afterAll(() => h.close());

  const blobRow = (sha: string) =>
    h.db.kysely.selectFrom('blobs').selectAll().where('sha256', '=', sha).executeTakeFirst();

  it('removes a file nothing uses once the grace has passed, and gives its bytes back to the plan', async () => {
    const org = await h.given.organization({ plan: 'free' });
    const project = (await h.given.project(org.admin, { appStoreAppId: '1' })).id;
    const bytes = await image({ width: 1290, height: 2796, colour: distinctColour() });
    const res = await upload(
      h,
      org.admin.apiKey,
      `/api/v1/projects/${project}/media/appstore/en-US/APP_IPHONE_67`,
      bytes,
    );
    expect(res.status).toBe(201);
    expect((await org.admin.api.get('/api/v1/organization')).body.data.usage.mediaBytes).toBe(bytes.length);

    // Removed from its slot, it stays: the history can bring it back.
    await org.admin.api.delete(
      `/api/v1/projects/${project}/media/appstore/en-US/APP_IPHONE_67/${res.body.data.id}`,
    );
    clock.advance(2 * HOUR);
    await h.services.mediaCollection.collect(HOUR);
    expect(await blobRow(sha256(bytes))).toBeDefined();

    // With the project gone, nothing uses it: within the grace it stays, after it it goes.
    expect((await org.admin.api.delete(`/api/v1/projects/${project}`)).status).toBe(200);
    const first = await h.services.mediaCollection.collect(HOUR * 10);
    expect(first.releasedHolds).toBeGreaterThanOrEqual(1);
    expect(await blobRow(sha256(bytes))).toBeDefined();
    expect((await org.admin.api.get('/api/v1/organization')).body.data.usage.mediaBytes).toBe(0);
    clock.advance(20 * HOUR);
    await h.services.mediaCollection.collect(HOUR);
    expect(await blobRow(sha256(bytes))).toBeUndefined();
    const key = `files/${sha256(bytes).slice(0, 2)}/${sha256(bytes)}`;
    expect(await h.services.blobs.exists(key)).toBe(false);
  });

  it('never deletes a file that an upload racing it commits a reference to', async () => {
    const org = await h.given.organization();
    const bytes = await image({ width: 1290, height: 2796, colour: distinctColour() });
    const key = `files/${sha256(bytes).slice(0, 2)}/${sha256(bytes)}`;
    for (let round = 0; round < 12; round += 1) {
      // An old, unused copy of the file, collectable...
      const old = (await h.given.project(org.admin, { appStoreAppId: '1' })).id;
      await upload(h, org.admin.apiKey, `/api/v1/projects/${old}/media/appstore/en-US/APP_IPHONE_67`, bytes);
      await org.admin.api.delete(`/api/v1/projects/${old}`);
      clock.advance(2 * HOUR);
      // ...collected while an upload of the same bytes commits, in either order.
      const project = (await h.given.project(org.admin, { appStoreAppId: '1' })).id;
      const [uploaded] = await Promise.all([
        upload(h, org.admin.apiKey, `/api/v1/projects/${project}/media/appstore/en-US/APP_IPHONE_67`, bytes),
        h.services.mediaCollection.collect(HOUR),
        h.services.mediaCollection.collect(HOUR),
      ]);
      expect(uploaded.status).toBe(201);
      await h.services.mediaCollection.collect(HOUR);
      expect(await h.services.blobs.exists(key)).toBe(true);
      expect((await blobRow(sha256(bytes)))?.state).toBe('stored');
      const get = await h.app.inject({
        method: 'GET',
        url: uploaded.body.data.url,
        headers: { authorization: `Bearer ${org.admin.apiKey}` },
      });
      expect(get.statusCode).toBe(200);
      await org.admin.api.delete(`/api/v1/projects/${project}`);
    }
  });
});

describe('memory', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await startHarness();
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => h.close());

  it('stays flat while 100 uploads of 8 MB arrive at once', async () => {
    const org = await h.given.organization();
    const project = (await h.given.project(org.admin, { playStorePackageName: 'com.example.big' })).id;
    // Noise compresses to nothing: an uncompressed 1200×2300 PNG of 8.3 MB, within Play's limits.
    const png = await sharp({
      create: {
        width: 1200,
        height: 2300,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(png.length).toBeGreaterThan(8_000_000);
    const head = png.subarray(0, png.length - 12);
    const tail = png.subarray(png.length - 12);
    const locales = [
      'en-US',
      'de-DE',
      'fr-FR',
      'es-ES',
      'it-IT',
      'ja-JP',
      'ko-KR',
      'nl-NL',
      'pl-PL',
      'pt-BR',
      'ru-RU',
      'sv-SE',
      'tr-TR',
    ];

    const send = (index: number) =>
      new Promise<number>((resolve, reject) => {
        // Each body is another file (its own tEXt chunk) around slices of one buffer.
        const extra = textChunk(`upload ${index}`);
        const locale = locales[index % locales.length]!;
        const request = http.request(
          `${base}/api/v1/projects/${project}/media/playstore/${locale}/phoneScreenshots?fileName=${index}.png`,
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${org.admin.apiKey}`,
              'content-type': 'image/png',
              'content-length': head.length + extra.length + tail.length,
            },
          },
        );
        request.on('response', (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        });
        request.on('error', reject);
        Readable.from([head, extra, tail]).pipe(request);
      });

    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    try {
      const statuses = await Promise.all(Array.from({ length: 100 }, (_, index) => send(index)));
      expect(statuses.filter((s) => s === 201)).toHaveLength(100);
    } finally {
      clearInterval(sampler);
    }
    // 100 bodies of 8.3 MB held in memory would be 830 MB; streamed, growth stays far below it.
    expect(peak - before).toBeLessThan(300 * 1024 * 1024);
    const list = await org.admin.api.get(`/api/v1/projects/${project}/media?store=playstore`);
    expect(list.body.data.slots.reduce((n: number, s: { items: unknown[] }) => n + s.items.length, 0)).toBe(
      100,
    );
  }, 120_000);
});
