/**
 * The App Store connector's custom product pages and in-app events against the emulator
 * (stores-more.md §B), as store items beside the purchases: pages read with their newest
 * version's texts, state and screenshots, events with theirs; texts written only where they
 * differ, a new locale created, a page's draft opened when its newest version is approved (and
 * not while one is in review), an event in review refused on its own; a page's screenshots
 * uploaded into its draft's localization. Google Play has no API for any of it: none are read.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppStoreConnector } from '../../src/connectors/app-store-connect/connector.js';
import { createGooglePlayConnector } from '../../src/connectors/google-play/connector.js';
import type { MediaFile, StoreConnector, StoreProduct } from '../../src/connectors/store-connector.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { distinctColour, image } from '../support/media.js';

let emu: RunningEmulators;
let apple: StoreConnector;
let google: StoreConnector;
const fast = { retries: 2, baseDelayMs: 5, maxDelayMs: 20, timeoutMs: 5_000 };

beforeAll(async () => {
  emu = await startEmulators();
  apple = createAppStoreConnector(
    { store: 'appstore', ...emu.credentials.appstore },
    { baseUrl: emu.url, policy: fast },
  );
  google = createGooglePlayConnector(
    { store: 'playstore', serviceAccount: emu.credentials.playstore.serviceAccount as never },
    { baseUrl: emu.url, tokenUrl: `${emu.url}/token`, policy: fast },
  );
});
afterAll(() => emu.close());
beforeEach(() => {
  emu.restore();
  emu.appStore.marketing.load(
    APP_ID,
    [
      {
        id: 'page-draft',
        name: 'Winter',
        versions: [
          { id: 'draft-1', state: 'PREPARE_FOR_SUBMISSION', localizations: { 'en-US': 'Snow on the radar' } },
        ],
      },
      {
        id: 'page-live',
        name: 'Live',
        versions: [{ id: 'live-1', state: 'APPROVED', localizations: { 'en-US': 'Live radar' } }],
      },
      {
        id: 'page-review',
        name: 'Review',
        versions: [{ id: 'review-1', state: 'IN_REVIEW', localizations: { 'en-US': 'Wait' } }],
      },
    ],
    [
      {
        id: 'event-storm',
        referenceName: 'Storm week',
        badge: 'SPECIAL_EVENT',
        localizations: { 'en-US': { name: 'Storm week' } },
      },
      {
        id: 'event-review',
        referenceName: 'Review',
        eventState: 'IN_REVIEW',
        localizations: { 'en-US': { name: 'Review' } },
      },
    ],
  );
});

const writes = () => emu.appStore.marketing.calls.filter((c) => !c.startsWith('GET'));
const marketingOf = (items: StoreProduct[]) =>
  items.filter((p) => p.kind === 'customProductPage' || p.kind === 'appEvent');

async function screenshot(): Promise<MediaFile> {
  const bytes = await image({ width: 1320, height: 2868, colour: distinctColour() });
  return {
    sha256: createHash('sha256').update(bytes).digest('hex'),
    md5: createHash('md5').update(bytes).digest('hex'),
    bytes: bytes.length,
    contentType: 'image/png',
    fileName: 'page.png',
    open: async (range) =>
      Readable.from([range === undefined ? bytes : bytes.subarray(range.start, range.end + 1)]),
  };
}

describe('custom product pages and in-app events through the App Store connector', () => {
  it('reads pages with their newest version and events with their texts, beside the purchases', async () => {
    const items = marketingOf((await apple.readProducts(APP_ID)).products);
    expect(
      items.map((p) => [p.kind, p.productId, p.state, p.locked ?? null, Object.fromEntries(p.texts)]),
    ).toEqual([
      [
        'customProductPage',
        'page-draft',
        'PREPARE_FOR_SUBMISSION',
        null,
        { 'en-US': { promotionalText: 'Snow on the radar' } },
      ],
      ['customProductPage', 'page-live', 'APPROVED', null, { 'en-US': { promotionalText: 'Live radar' } }],
      [
        'customProductPage',
        'page-review',
        'IN_REVIEW',
        expect.stringContaining('IN_REVIEW'),
        { 'en-US': { promotionalText: 'Wait' } },
      ],
      [
        'appEvent',
        'event-storm',
        'DRAFT',
        null,
        { 'en-US': { name: 'Storm week', shortDescription: null, longDescription: null } },
      ],
      [
        'appEvent',
        'event-review',
        'IN_REVIEW',
        expect.stringContaining('IN_REVIEW'),
        { 'en-US': { name: 'Review', shortDescription: null, longDescription: null } },
      ],
    ]);
    expect(items[0]!.referenceName).toBe('Winter');
    expect(items[0]!.details).toMatchObject({ visible: true, version: { state: 'PREPARE_FOR_SUBMISSION' } });
    expect(items[3]!.details).toMatchObject({ badge: 'SPECIAL_EVENT' });
    // A page's localization has its sets read (none yet).
    expect(items[0]!.media?.get('en-US')).toEqual(new Map());
    // One list per kind, then per page its versions and the newest's localizations, per event its localizations.
    expect(emu.appStore.marketing.calls.filter((c) => c.startsWith('GET'))).toHaveLength(2 + 3 * 2 + 2);
    expect(writes()).toEqual([]);
  });

  it('writes what differs, opens a draft beside an approved version, and isolates refusals', async () => {
    const text = (kind: string, productId: string, locales: Record<string, Record<string, string>>) => ({
      kind,
      productId,
      storeRef: null,
      locales,
    });
    const { results } = await apple.writeProducts(
      APP_ID,
      [
        text('customProductPage', 'page-draft', {
          'en-US': { promotionalText: 'Snow on the radar' },
          'de-DE': { promotionalText: 'Schnee' },
        }),
        text('customProductPage', 'page-live', { 'en-US': { promotionalText: 'Live radar, every street' } }),
        text('customProductPage', 'page-review', { 'en-US': { promotionalText: 'No' } }),
        text('appEvent', 'event-storm', { 'en-US': { shortDescription: 'Track every storm' } }),
        text('appEvent', 'event-review', { 'en-US': { name: 'Changed' } }),
      ],
      {},
    );
    expect(results.map((r) => [r.productId, r.written, r.failures.map((f) => f.error.code)])).toEqual([
      ['page-draft', ['en-US', 'de-DE'], []],
      ['page-live', ['en-US'], []],
      ['page-review', [], ['NOT_EDITABLE']],
      ['event-storm', ['en-US'], []],
      ['event-review', [], ['STATE_ERROR']],
    ]);
    // en-US of the draft was already right: nothing written for it.
    expect(
      writes()
        .map((c) => c.replace(/\/[\w-]{36}$/, '/:id'))
        .sort(),
    ).toEqual(
      [
        'POST /v1/appCustomProductPageLocalizations', // page-draft de-DE
        'POST /v1/appCustomProductPageVersions', // page-live: a new draft
        'PATCH /v1/appCustomProductPageLocalizations/:id', // page-live en-US, on the draft
        'PATCH /v1/appEventLocalizations/:id', // event-storm
        'PATCH /v1/appEventLocalizations/:id', // event-review, refused
      ].sort(),
    );
    const live = emu.appStore.marketing.versionsOf('page-live');
    expect(live.map((v) => v.state)).toEqual(['APPROVED', 'PREPARE_FOR_SUBMISSION']);
    expect(emu.appStore.marketing.pageLocalizationsOf(live[1]!.id)[0]!.promotionalText).toBe(
      'Live radar, every street',
    );
    expect(emu.appStore.marketing.pageLocalizationsOf('live-1')[0]!.promotionalText).toBe('Live radar');
  });

  it("uploads a page's screenshots into its draft's localization, creating the locale they need", async () => {
    const [first, second] = [await screenshot(), await screenshot()];
    const { results } = await apple.writeProducts(
      APP_ID,
      [
        {
          kind: 'customProductPage',
          productId: 'page-draft',
          storeRef: null,
          locales: {},
          media: [
            { locale: 'en-US', slotType: 'APP_IPHONE_67', files: [first, second] },
            { locale: 'fr-FR', slotType: 'APP_IPHONE_67', files: [second] },
          ],
        },
      ],
      {},
    );
    expect(results[0]!.failures).toEqual([]);
    expect(results[0]!.media?.map((m) => [m.locale, m.stored, m.uploaded])).toEqual([
      ['en-US', [first.sha256, second.sha256], 2],
      ['fr-FR', [second.sha256], 1],
    ]);
    // Read back: the page's sets hold them, in order, known by their checksums.
    const page = marketingOf((await apple.readProducts(APP_ID)).products).find(
      (p) => p.productId === 'page-draft',
    )!;
    expect(
      page.media
        ?.get('en-US')
        ?.get('APP_IPHONE_67')
        ?.map((f) => f.checksum),
    ).toEqual([first.md5, second.md5]);
    expect(
      page.media
        ?.get('fr-FR')
        ?.get('APP_IPHONE_67')
        ?.map((f) => f.checksum),
    ).toEqual([second.md5]);
    expect([...page.texts.keys()].sort()).toEqual(['en-US', 'fr-FR']);
  });

  it('reads no pages or events from Google Play, which has no API for custom store listings', async () => {
    const { products } = await google.readProducts(PACKAGE);
    expect(marketingOf(products)).toEqual([]);
  });
});
