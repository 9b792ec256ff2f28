/**
 * Scenario 8 of `npm run bench` (stores-media.md A1, A2): pushing media to both store emulators,
 * on SQLite, the service as its own process, the emulators at their default latency (no added
 * delay, App Store processing 50 ms):
 *
 * - the first push of 10 locales × 10 screenshots per store (App Store: one 6.9" set per locale;
 *   Google Play: 8 phone + 2 ten-inch screenshots per language), ~2 MB files: wall time, store
 *   calls, and the service's RSS while it uploads (files are streamed from the blob store);
 * - then 3 files replaced (two App Store locales, one Play language) and pushed again: the store
 *   writes and bytes uploaded beside what those 3 files need.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { createEmulators } from '../src/emulators/server.js';
import { textChunk } from '../test/support/media.js';
import { appStoreCredentials, serviceAccount } from '../test/support/store-keys.js';
import type { BenchTools } from './background.js';
import { enterpriseOrganization } from './media.js';

export interface StoreMediaResult {
  files: number;
  megabytes: number;
  first: { wallMs: number; calls: number; baselineRssMb: number; peakRssMb: number };
  change: {
    files: number;
    neededBytes: number;
    uploadedBytes: number;
    writes: number;
    expectedWrites: number;
  };
}

/** App Store locale → Google Play language, for 10 locales both stores have. */
const LOCALES = new Map([
  ['en-US', 'en-US'],
  ['de-DE', 'de-DE'],
  ['fr-FR', 'fr-FR'],
  ['es-ES', 'es-ES'],
  ['it', 'it-IT'],
  ['ja', 'ja-JP'],
  ['ko', 'ko-KR'],
  ['nl-NL', 'nl-NL'],
  ['pt-BR', 'pt-BR'],
  ['sv', 'sv-SE'],
]);
const FILE_PAD = 2 * 1024 * 1024;

const rssMb = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

export async function runStoreMedia(tools: BenchTools): Promise<StoreMediaResult> {
  const apple = appStoreCredentials();
  const google = serviceAccount();
  const emulators = createEmulators({
    appstore: {
      keys: [{ issuerId: apple.issuerId, keyId: apple.keyId, publicKey: apple.publicKey }],
      apps: [
        {
          id: '1',
          bundleId: 'com.bench.media',
          name: 'Bench',
          appInfos: [{ id: 'info', state: 'PREPARE_FOR_SUBMISSION', localizations: {} }],
          versions: [
            {
              id: 'v2',
              versionString: '2.0',
              appVersionState: 'PREPARE_FOR_SUBMISSION',
              localizations: Object.fromEntries(
                [...LOCALES.keys()].map((l) => [l, { description: 'Bench' }]),
              ),
            },
          ],
        },
      ],
    },
    playstore: {
      serviceAccounts: [{ clientEmail: google.account.client_email, publicKey: google.publicKey }],
      apps: [
        {
          packageName: 'com.bench.media',
          listings: Object.fromEntries(
            [...LOCALES.values()].map((l) => [l, { title: 'Bench', shortDescription: 'Bench' }]),
          ),
        },
      ],
    },
  });
  const emulatorUrl = await emulators.app.listen({ port: 0, host: '127.0.0.1' });
  const database = await tools.createDatabase('sqlite');
  const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-bench-store-media-'));
  const env = {
    DATABASE_URL: database.url,
    APPMETA_SECRET_KEY: tools.secret,
    BLOB_STORE_URL: `file:${blobDir}`,
    APPSTORE_API_URL: emulatorUrl,
    PLAY_API_URL: emulatorUrl,
    GOOGLE_TOKEN_URL: `${emulatorUrl}/token`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
  const apiKey = await enterpriseOrganization(env, tools.secret, 'Store media bench');

  const port = await tools.freePort();
  const service = tools.startProcess(process.execPath, [tools.bin, 'serve'], { ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}/api/v1`;
  const auth = { authorization: `Bearer ${apiKey}` };
  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { ...auth, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as { data: any };
    if (res.status >= 300)
      throw new Error(`${method} ${route} answered ${res.status}: ${JSON.stringify(json)}`);
    return json.data;
  };
  try {
    await tools.waitHealthy(`http://127.0.0.1:${port}`);
    await call('PUT', '/organization/credentials/appstore', {
      issuerId: apple.issuerId,
      keyId: apple.keyId,
      privateKey: apple.privateKey,
    });
    await call('PUT', '/organization/credentials/playstore', { serviceAccount: google.account });
    const projectId = (
      await call('POST', '/projects', {
        name: 'Media push',
        appStoreAppId: '1',
        playStorePackageName: 'com.bench.media',
      })
    ).project.id as string;
    await call('POST', `/projects/${projectId}/sync`, {});

    // Distinct ~2 MB files: one image each, padded with a text chunk of noise.
    const bases = {
      appstore: await sharp({ create: { width: 1290, height: 2796, channels: 3, background: '#336699' } })
        .png()
        .toBuffer(),
      playstore: await sharp({ create: { width: 1080, height: 1920, channels: 3, background: '#669933' } })
        .png()
        .toBuffer(),
    };
    const file = (store: 'appstore' | 'playstore') => {
      const base = bases[store];
      return Buffer.concat([
        base.subarray(0, base.length - 12),
        textChunk(randomBytes(FILE_PAD / 2).toString('hex')),
        base.subarray(base.length - 12),
      ]);
    };
    const uploadFile = async (
      store: 'appstore' | 'playstore',
      locale: string,
      slot: string,
      bytes: Buffer,
    ) => {
      const res = await fetch(`${url}/projects/${projectId}/media/${store}/${locale}/${slot}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'image/png' },
        body: bytes,
      });
      if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { data: { id: string; bytes: number } }).data;
    };
    const slots: [store: 'appstore' | 'playstore', locale: string, slot: string, count: number][] = [
      ...LOCALES,
    ].flatMap(([apple, play]) => [
      ['appstore', apple, 'APP_IPHONE_67', 10] as const,
      ['playstore', play, 'phoneScreenshots', 8] as const,
      ['playstore', play, 'tenInchScreenshots', 2] as const,
    ]);
    const items = new Map<string, { id: string; bytes: number }[]>();
    let megabytes = 0;
    for (const [store, locale, slot, count] of slots) {
      const placed = [];
      for (let i = 0; i < count; i += 1) {
        const bytes = file(store);
        megabytes += bytes.length / 1e6;
        placed.push(await uploadFile(store, locale, slot, bytes));
      }
      items.set(`${store}/${locale}/${slot}`, placed);
    }

    // The first push, with the service's RSS sampled while it uploads.
    emulators.calls.length = 0;
    const baselineRssMb = rssMb(service.pid!);
    let peakRssMb = baselineRssMb;
    const sampler = setInterval(() => (peakRssMb = Math.max(peakRssMb, rssMb(service.pid!))), 100);
    const started = performance.now();
    const first = await call('POST', `/projects/${projectId}/push`, {});
    const wallMs = Math.round(performance.now() - started);
    clearInterval(sampler);
    if (first.failures.length > 0) throw new Error(`first push failed: ${JSON.stringify(first.failures)}`);
    const firstCalls = emulators.calls.length;

    // Three files replaced: the 3rd App Store screenshot of de-DE (in place: a reorder follows), the
    // last of ja-JP, and the last ten-inch screenshot of Play's fr-FR (the tail: no other upload).
    const replace = async (store: 'appstore' | 'playstore', locale: string, slot: string, index: number) => {
      const key = `${store}/${locale}/${slot}`;
      const current = items.get(key)!;
      await call('DELETE', `/projects/${projectId}/media/${store}/${locale}/${slot}/${current[index]!.id}`);
      const added = await uploadFile(store, locale, slot, file(store));
      const order = current.map((item, i) => (i === index ? added.id : item.id));
      await call('PUT', `/projects/${projectId}/media/${store}/${locale}/${slot}/order`, { items: order });
      return added.bytes;
    };
    const neededBytes =
      (await replace('appstore', 'de-DE', 'APP_IPHONE_67', 2)) +
      (await replace('appstore', 'ja', 'APP_IPHONE_67', 9)) +
      (await replace('playstore', 'fr-FR', 'tenInchScreenshots', 1));
    emulators.calls.length = 0;
    const second = await call('POST', `/projects/${projectId}/push`, {});
    if (second.failures.length > 0) throw new Error(`second push failed: ${JSON.stringify(second.failures)}`);
    const writes = emulators.calls.filter(
      (c) => !c.startsWith('GET ') && !c.startsWith('POST /token'),
    ).length;
    return {
      files: [...items.values()].reduce((n, list) => n + list.length, 0),
      megabytes: Math.round(megabytes),
      first: { wallMs, calls: firstCalls, baselineRssMb, peakRssMb },
      change: {
        files: 3,
        neededBytes,
        uploadedBytes: second.appStore.media.uploadedBytes + second.playStore.media.uploadedBytes,
        writes,
        // App Store, per file: delete, reserve, 1 part, commit; one reorder for de-DE (ja-JP's new
        // file is appended where it belongs). Play: open the edit, delete, upload, commit.
        expectedWrites: 2 * 4 + 1 + 4,
      },
    };
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    await emulators.app.close();
    await database.drop();
    fs.rmSync(blobDir, { recursive: true, force: true });
  }
}
