/**
 * Scenario 9 of `npm run bench` (design.md §17): pushing product texts to both store emulators,
 * on SQLite, the service as its own process, the emulators at their default latency:
 *
 * - 50 products per store × 10 locales, every description changed (1,000 texts): the App Store
 *   has 40 in-app purchases on the v1 model and 10 on the version model (an approved version, so
 *   the push opens a draft for each); Google Play 25 one-time products and 25 subscriptions. One
 *   synchronous push: wall time, store calls, store writes against what the texts need;
 * - then 3 texts changed (two App Store products, one Play subscription) and pushed again: the
 *   writes beside the 3 the texts need.
 */
import { createEmulators } from '../src/emulators/server.js';
import { appStoreCredentials, serviceAccount } from '../test/support/store-keys.js';
import type { BenchTools } from './background.js';
import { enterpriseOrganization } from './media.js';

export interface ProductsResult {
  products: number;
  texts: number;
  first: { wallMs: number; calls: number; writes: number; expectedWrites: number; editMs: number };
  change: { texts: number; writes: number; expectedWrites: number };
}

/** 10 locales both stores have, in each store's code. */
const LOCALES: [apple: string, play: string][] = [
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
];
const PER_STORE = 50;
const VERSIONED = 10;

export async function runProducts(tools: BenchTools): Promise<ProductsResult> {
  const apple = appStoreCredentials();
  const google = serviceAccount();
  const texts = (locales: string[], title: string) =>
    Object.fromEntries(locales.map((l) => [l, { name: title, description: `${title} in ${l}` }]));
  const appleLocales = LOCALES.map(([a]) => a);
  const playLocales = LOCALES.map(([, p]) => p);
  const emulators = createEmulators({
    appstore: {
      keys: [{ issuerId: apple.issuerId, keyId: apple.keyId, publicKey: apple.publicKey }],
      apps: [
        {
          id: '1',
          bundleId: 'com.bench.products',
          name: 'Bench',
          appInfos: [{ id: 'info', state: 'PREPARE_FOR_SUBMISSION', localizations: {} }],
          versions: [],
          inAppPurchases: Array.from({ length: PER_STORE }, (_, i) => ({
            productId: `com.bench.item${i}`,
            name: `Item ${i}`,
            ...(i < VERSIONED
              ? { versions: [{ state: 'APPROVED', localizations: texts(appleLocales, `Item ${i}`) }] }
              : { localizations: texts(appleLocales, `Item ${i}`) }),
          })),
        },
      ],
    },
    playstore: {
      serviceAccounts: [{ clientEmail: google.account.client_email, publicKey: google.publicKey }],
      apps: [
        {
          packageName: 'com.bench.products',
          listings: { 'en-US': { title: 'Bench' } },
          inAppProducts: Array.from({ length: PER_STORE / 2 }, (_, i) => ({
            sku: `item_${i}`,
            status: 'active' as const,
            listings: Object.fromEntries(
              playLocales.map((l) => [l, { title: `Item ${i}`, description: `Item ${i}` }]),
            ),
          })),
          subscriptions: Array.from({ length: PER_STORE / 2 }, (_, i) => ({
            productId: `plan_${i}`,
            basePlans: [{ basePlanId: 'monthly', state: 'ACTIVE' }],
            listings: playLocales.map((l) => ({
              languageCode: l,
              title: `Plan ${i}`,
              description: `Plan ${i}`,
            })),
          })),
        },
      ],
    },
  });
  const emulatorUrl = await emulators.app.listen({ port: 0, host: '127.0.0.1' });
  const database = await tools.createDatabase('sqlite');
  const env = {
    DATABASE_URL: database.url,
    APPMETA_SECRET_KEY: tools.secret,
    APPSTORE_API_URL: emulatorUrl,
    PLAY_API_URL: emulatorUrl,
    GOOGLE_TOKEN_URL: `${emulatorUrl}/token`,
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
  };
  const apiKey = await enterpriseOrganization(env, tools.secret, 'Products bench');
  const port = await tools.freePort();
  const service = tools.startProcess(process.execPath, [tools.bin, 'serve'], { ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}/api/v1`;
  const call = async (method: string, route: string, body?: unknown) => {
    const res = await fetch(`${url}${route}`, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as { data: any };
    if (res.status >= 300)
      throw new Error(`${method} ${route} answered ${res.status}: ${JSON.stringify(json)}`);
    return json.data;
  };
  const writesOf = (calls: string[]) =>
    calls.filter((c) => !c.startsWith('GET ') && !c.startsWith('POST /token') && !c.includes('/edits'))
      .length;
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
        name: 'Products push',
        appStoreAppId: '1',
        playStorePackageName: 'com.bench.products',
      })
    ).project.id as string;
    await call('POST', `/projects/${projectId}/sync`, { include: ['products'] });

    const editStarted = performance.now();
    const product = (store: string, id: string, locale: string) =>
      `/projects/${projectId}/products/${store}/${encodeURIComponent(id)}/${locale}`;
    for (let i = 0; i < PER_STORE; i += 1) {
      const playId = i < PER_STORE / 2 ? `item_${i}` : `plan_${i - PER_STORE / 2}`;
      for (const [appleLocale, playLocale] of LOCALES) {
        await call('PATCH', product('appstore', `com.bench.item${i}`, appleLocale), {
          description: `New ${i}`,
        });
        await call('PATCH', product('playstore', playId, playLocale), { description: `New ${i}` });
      }
    }
    const editMs = Math.round(performance.now() - editStarted);

    emulators.calls.length = 0;
    const started = performance.now();
    const first = await call('POST', `/projects/${projectId}/push`, { include: ['products'] });
    const wallMs = Math.round(performance.now() - started);
    if (first.failures.length > 0)
      throw new Error(`first push failed: ${JSON.stringify(first.failures.slice(0, 3))}`);
    const firstCalls = emulators.calls.length;
    const firstWrites = writesOf(emulators.calls);

    await call('PATCH', product('appstore', 'com.bench.item3', 'ja'), { description: 'Changed' });
    await call('PATCH', product('appstore', 'com.bench.item30', 'de-DE'), { description: 'Changed' });
    await call('PATCH', product('playstore', 'plan_4', 'ko-KR'), { description: 'Changed' });
    emulators.calls.length = 0;
    const second = await call('POST', `/projects/${projectId}/push`, { include: ['products'] });
    if (second.failures.length > 0) throw new Error(`second push failed: ${JSON.stringify(second.failures)}`);
    return {
      products: PER_STORE * 2,
      texts: PER_STORE * 2 * LOCALES.length,
      first: {
        wallMs,
        calls: firstCalls,
        writes: firstWrites,
        // App Store: one PATCH per text, one new draft per versioned product. Play: one write per product.
        expectedWrites: PER_STORE * LOCALES.length + VERSIONED + PER_STORE,
        editMs,
      },
      // item3 is versioned, but its draft is open since the first push: no new version.
      change: { texts: 3, writes: writesOf(emulators.calls), expectedWrites: 3 },
    };
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
    await emulators.app.close();
    await database.drop();
  }
}
