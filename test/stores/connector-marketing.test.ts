/**
 * The App Store connector's custom product pages and in-app events against the emulator
 * (stores-more.md §B): pages read with their newest version's texts and its state, events with
 * theirs; texts written only where they differ, a new locale created, a page's draft opened when
 * its newest version is approved (and not while one is in review), an event in review refused on
 * its own. Google Play says it has no API for any of it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAppStoreConnector } from '../../src/connectors/app-store-connect/connector.js';
import { createGooglePlayConnector } from '../../src/connectors/google-play/connector.js';
import type { StoreConnector } from '../../src/connectors/store-connector.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';

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

describe('custom product pages and in-app events through the App Store connector', () => {
  it('reads pages with their newest version and events with their texts', async () => {
    const { pages, events, calls } = await apple.readMarketing(APP_ID);
    expect(
      pages.map((p) => [p.pageId, p.version?.state, p.version?.editable, Object.fromEntries(p.texts)]),
    ).toEqual([
      ['page-draft', 'PREPARE_FOR_SUBMISSION', true, { 'en-US': { promotionalText: 'Snow on the radar' } }],
      ['page-live', 'APPROVED', false, { 'en-US': { promotionalText: 'Live radar' } }],
      ['page-review', 'IN_REVIEW', false, { 'en-US': { promotionalText: 'Wait' } }],
    ]);
    expect(events.map((e) => [e.eventId, e.badge, e.state, e.editable, e.texts.get('en-US')])).toEqual([
      [
        'event-storm',
        'SPECIAL_EVENT',
        'DRAFT',
        true,
        { name: 'Storm week', shortDescription: null, longDescription: null },
      ],
      [
        'event-review',
        null,
        'IN_REVIEW',
        false,
        { name: 'Review', shortDescription: null, longDescription: null },
      ],
    ]);
    // One list per kind, then per page its versions and the newest's localizations, per event its localizations.
    expect(calls).toBe(2 + 3 * 2 + 2);
    expect(writes()).toEqual([]);
  });

  it('writes what differs, opens a draft beside an approved version, and isolates refusals', async () => {
    const { results } = await apple.writeMarketing(
      APP_ID,
      [
        {
          kind: 'productPage',
          id: 'page-draft',
          locales: {
            'en-US': { promotionalText: 'Snow on the radar' },
            'de-DE': { promotionalText: 'Schnee' },
          },
        },
        {
          kind: 'productPage',
          id: 'page-live',
          locales: { 'en-US': { promotionalText: 'Live radar, every street' } },
        },
        { kind: 'productPage', id: 'page-review', locales: { 'en-US': { promotionalText: 'No' } } },
        {
          kind: 'appEvent',
          id: 'event-storm',
          locales: { 'en-US': { shortDescription: 'Track every storm' } },
        },
        { kind: 'appEvent', id: 'event-review', locales: { 'en-US': { name: 'Changed' } } },
      ],
      {},
    );
    expect(results.map((r) => [r.id, r.written, r.failures.map((f) => f.error.code)])).toEqual([
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

  it('is refused by Google Play, which has no API for custom store listings', async () => {
    await expect(google.readMarketing(PACKAGE)).rejects.toMatchObject({ code: 'UNSUPPORTED' });
  });
});
