/**
 * Scenario 7 of `npm run bench` (design.md §12), per database, the service as its own process on
 * the directory blob store:
 *
 * - upload throughput and latency of 8 MB screenshots (10 at a time, 100 files), beside the raw
 *   speed of writing the same bytes to the same disk in the same run;
 * - the service's peak RSS while 100 uploads of 8 MB arrive at once;
 * - reading the media of a project with 40 locales × 3 slots, 50 connections.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { createServices } from '../src/services.js';
import { systemClock } from '../src/shared/clock.js';
import { createKeyRing } from '../src/shared/key-ring.js';
import { textChunk } from '../test/support/media.js';
import type { BenchTools } from './background.js';

export interface MediaResult {
  database: string;
  diskMBps: number;
  upload: { files: number; mb: number; MBps: number; p50: number; p99: number };
  burst: { files: number; wallMs: number; peakRssMb: number; baselineRssMb: number };
  list: { locales: number; items: number; rps: number; p50: number; p99: number };
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const rssMb = (pid: number, field: 'VmRSS' | 'VmHWM') =>
  Math.round(
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) /
      1024,
  );

const PLAY_LOCALES =
  'en-US de-DE fr-FR es-ES it-IT ja-JP ko-KR nl-NL pl-PL pt-BR ru-RU sv-SE tr-TR da-DK fi-FI cs-CZ el-GR hu-HU iw-IL hi-IN id th uk vi zh-CN zh-TW ro sk hr ca bg lt lv et sl ms en-GB en-AU es-419 fr-CA'.split(
    ' ',
  );

/** Migrates the service's database and makes an enterprise organization in it; answers its admin key. */
export async function enterpriseOrganization(env: Record<string, string>, secret: string, name: string) {
  const config = loadConfig(env);
  const db = createDb(config.database);
  await migrateToLatest(db);
  const services = createServices({
    db,
    clock: systemClock,
    config,
    keyRing: createKeyRing(Buffer.from(secret, 'base64')),
  });
  const { apiKey } = await services.organizations.create(
    { name, adminEmail: `${name.toLowerCase().replaceAll(' ', '-')}@example.com`, plan: 'enterprise' },
    'cli:bench',
  );
  await services.queue.close();
  await db.destroy();
  return apiKey;
}

export async function runMedia(kind: 'sqlite' | 'postgres', tools: BenchTools): Promise<MediaResult> {
  const database = await tools.createDatabase(kind);
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-bench-blobs-'));
  const env = {
    DATABASE_URL: database.url,
    APPMETA_SECRET_KEY: tools.secret,
    BLOB_STORE_URL: `file:${blobDir}`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ...(kind === 'postgres' && { REDIS_URL: tools.redis }),
  };
  const apiKey = await enterpriseOrganization(env, tools.secret, 'Media bench');

  const port = await tools.freePort();
  const service = tools.startProcess(process.execPath, [tools.bin, 'serve'], { ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  try {
    await tools.waitHealthy(url);
    const auth = { authorization: `Bearer ${apiKey}` };
    const project = async (body: object) =>
      (
        (await (
          await fetch(`${url}/api/v1/projects`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json()) as { data: { projectId: string } }
      ).data.projectId;

    // 8.3 MB of noise in an uncompressed PNG (1200×2300, within Play's screenshot rules).
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
    const head = png.subarray(0, png.length - 12);
    const tail = png.subarray(png.length - 12);

    // The disk, in the same run: the same bytes written (and synced) as files in the blob directory.
    const diskDir = fs.mkdtempSync(path.join(blobDir, 'disk-'));
    const diskStarted = performance.now();
    for (let i = 0; i < 20; i += 1) {
      const file = path.join(diskDir, `${i}.png`);
      const fd = fs.openSync(file, 'w');
      fs.writeSync(fd, png);
      fs.fsyncSync(fd);
      fs.closeSync(fd);
    }
    const diskMBps = Math.round((20 * png.length) / 1e6 / ((performance.now() - diskStarted) / 1000));
    fs.rmSync(diskDir, { recursive: true, force: true });

    const send = (projectId: string, index: number, locale: string) =>
      new Promise<number>((resolve, reject) => {
        const extra = textChunk(`${randomBytes(8).toString('hex')} ${index}`);
        const started = performance.now();
        const request = http.request(
          `${url}/api/v1/projects/${projectId}/media/playstore/${locale}/phoneScreenshots?fileName=${index}.png`,
          {
            method: 'POST',
            headers: {
              ...auth,
              'content-type': 'image/png',
              'content-length': head.length + extra.length + tail.length,
            },
          },
        );
        request.on('response', (response) => {
          response.resume();
          response.on('end', () =>
            response.statusCode === 201
              ? resolve(performance.now() - started)
              : reject(new Error(`upload answered ${response.statusCode}`)),
          );
        });
        request.on('error', reject);
        Readable.from([head, extra, tail]).pipe(request);
      });

    // Throughput: 100 files, 10 at a time.
    const throughputProject = await project({
      name: 'Throughput',
      playStorePackageName: 'com.bench.throughput',
    });
    const latencies: number[] = [];
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < 100) {
          const index = next++;
          latencies.push(await send(throughputProject, index, PLAY_LOCALES[index % 13]!));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    const mb = (100 * png.length) / 1e6;

    // Memory: 100 at once, into a fresh project.
    const burstProject = await project({ name: 'Burst', playStorePackageName: 'com.bench.burst' });
    const baselineRssMb = rssMb(service.pid!, 'VmRSS');
    const burstStarted = performance.now();
    await Promise.all(
      Array.from({ length: 100 }, (_, index) => send(burstProject, index, PLAY_LOCALES[index % 13]!)),
    );
    const burst = {
      files: 100,
      wallMs: Math.round(performance.now() - burstStarted),
      peakRssMb: rssMb(service.pid!, 'VmHWM'),
      baselineRssMb,
    };

    // Listing: 40 locales × 3 slots (phone, seven-inch, ten-inch screenshots), 2 files each.
    const listProject = await project({ name: 'Forty locales', playStorePackageName: 'com.bench.list' });
    const small = await sharp({ create: { width: 1080, height: 1920, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    for (const locale of PLAY_LOCALES) {
      for (const slot of ['phoneScreenshots', 'sevenInchScreenshots', 'tenInchScreenshots']) {
        for (const n of [1, 2]) {
          const body = Buffer.concat([
            small.subarray(0, small.length - 12),
            textChunk(`${n}`),
            small.subarray(small.length - 12),
          ]);
          const res = await fetch(`${url}/api/v1/projects/${listProject}/media/playstore/${locale}/${slot}`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'image/png' },
            body,
          });
          if (res.status !== 201) throw new Error(`seed upload answered ${res.status}: ${await res.text()}`);
        }
      }
    }
    const listed = await tools.cannon({ url: `${url}/api/v1/projects/${listProject}/media`, headers: auth });
    if (listed.non2xx > 0) throw new Error(`listing media had ${listed.non2xx} non-2xx answers`);
    return {
      database: kind,
      diskMBps,
      upload: {
        files: 100,
        mb: Math.round(mb),
        MBps: Math.round(mb / seconds),
        p50: Math.round(percentile(latencies, 50)),
        p99: Math.round(percentile(latencies, 99)),
      },
      burst,
      list: {
        locales: PLAY_LOCALES.length,
        items: PLAY_LOCALES.length * 6,
        rps: listed.rps,
        p50: listed.p50,
        p99: listed.p99,
      },
    };
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    await database.drop();
    fs.rmSync(blobDir, { recursive: true, force: true });
  }
}
