/**
 * App details and App Review information through both connectors against the emulators
 * (stores-more.md §C): Google Play's default language and contact details read in an edit and
 * written with one PATCH and a commit (a commit leaving no contact e-mail refused, the app
 * unchanged); App Store copyright, categories and App Review details read and written by group
 * — the review details POSTed once, then PATCHed — each group's refusal (an unknown category, a
 * phone number without its country code) failing its fields only. The store calls are compared.
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
beforeEach(() => emu.restore());

describe('Google Play app details', () => {
  it('reads them in an edit and writes only the changed fields with one PATCH and a commit', async () => {
    emu.play.apps.get(PACKAGE)!.contact = { contactEmail: 'dev@example.com' };
    const read = await google.readDetails(PACKAGE);
    expect(read.details).toEqual({
      contactEmail: 'dev@example.com',
      contactPhone: null,
      contactWebsite: null,
      defaultLanguage: 'en-US',
    });
    const report = await google.writeDetails(
      PACKAGE,
      { contactWebsite: 'https://example.com', contactPhone: '+49 30 1234567' },
      {},
    );
    expect(report).toMatchObject({ written: ['contactWebsite', 'contactPhone'], failures: [] });
    expect(emu.play.detailsCalls).toEqual(['PATCH details']);
    expect(emu.play.apps.get(PACKAGE)!.contact).toEqual({
      contactEmail: 'dev@example.com',
      contactPhone: '+49 30 1234567',
      contactWebsite: 'https://example.com',
    });
  });

  it('is refused at commit when no contact e-mail would be left, changing nothing', async () => {
    emu.play.apps.get(PACKAGE)!.contact = { contactEmail: 'dev@example.com' };
    const report = await google.writeDetails(PACKAGE, { contactEmail: null }, {});
    expect(report.written).toEqual([]);
    expect(report.failures).toEqual([
      {
        field: 'contactEmail',
        error: expect.objectContaining({ message: expect.stringContaining('contact email') }),
      },
    ]);
    expect(emu.play.apps.get(PACKAGE)!.contact.contactEmail).toBe('dev@example.com');
    const language = await google.writeDetails(PACKAGE, { defaultLanguage: 'ja-JP' }, {});
    expect(language.failures[0]!.error.message).toContain('store listing');
    expect(emu.play.openEdits()).toEqual([]);
  });
});

describe('App Store details and App Review information', () => {
  beforeEach(() => {
    emu.appStore.details.copyright.set('ver-2', '2025 Example Inc.');
    emu.appStore.details.categories.set('info-edit', { primaryCategory: 'WEATHER' });
  });
  const writes = () => emu.appStore.details.calls.map((c) => c.replace(/\/[\w-]{36}$/, '/:id'));

  it('reads copyright, categories and the review details of the version being prepared', async () => {
    const { details } = await apple.readDetails(APP_ID);
    expect(details).toMatchObject({
      copyright: '2025 Example Inc.',
      primaryCategory: 'WEATHER',
      secondaryCategory: null,
      'review.contactEmail': null,
      'review.demoAccountRequired': null,
    });
  });

  it('writes each group with its own call, the review details POSTed once then PATCHed', async () => {
    const first = await apple.writeDetails(
      APP_ID,
      {
        copyright: '2026 Example Inc.',
        secondaryCategory: 'PRODUCTIVITY',
        'review.contactFirstName': 'Dana',
        'review.contactEmail': 'dana@example.com',
        'review.contactPhone': '+49 30 1234567',
        'review.demoAccountName': 'demo',
        'review.demoAccountPassword': 'hunter2-but-longer',
        'review.demoAccountRequired': true,
      },
      {},
    );
    expect(first.failures).toEqual([]);
    expect(first.written).toHaveLength(8);
    expect(writes()).toEqual([
      'PATCH /v1/appStoreVersions/ver-2',
      'PATCH /v1/appInfos/info-edit',
      'POST /v1/appStoreReviewDetails',
    ]);
    const [review] = [...emu.appStore.details.reviewDetails.values()];
    expect(review).toMatchObject({
      versionId: 'ver-2',
      attributes: {
        contactFirstName: 'Dana',
        demoAccountPassword: 'hunter2-but-longer',
        demoAccountRequired: true,
      },
    });
    expect(emu.appStore.details.categories.get('info-edit')).toEqual({
      primaryCategory: 'WEATHER',
      secondaryCategory: 'PRODUCTIVITY',
    });

    emu.appStore.details.calls.length = 0;
    const second = await apple.writeDetails(APP_ID, { 'review.notes': 'Sign in with the demo account.' }, {});
    expect(second.written).toEqual(['review.notes']);
    expect(writes()).toEqual(['PATCH /v1/appStoreReviewDetails/:id']);
    expect((await apple.readDetails(APP_ID)).details).toMatchObject({
      copyright: '2026 Example Inc.',
      secondaryCategory: 'PRODUCTIVITY',
      'review.notes': 'Sign in with the demo account.',
      'review.demoAccountPassword': 'hunter2-but-longer',
    });
  });

  it('fails a group the store refuses (an unknown category, a phone without its country code) and writes the rest', async () => {
    const report = await apple.writeDetails(
      APP_ID,
      { primaryCategory: 'WEATHERISH', copyright: '2026 Example Inc.', 'review.contactPhone': '030 1234567' },
      {},
    );
    expect(report.written).toEqual(['copyright']);
    expect(report.failures).toEqual([
      {
        field: 'primaryCategory',
        error: expect.objectContaining({ message: expect.stringContaining('WEATHERISH') }),
      },
      {
        field: 'review.contactPhone',
        error: expect.objectContaining({ message: expect.stringContaining('phone number') }),
      },
    ]);
    expect(emu.appStore.details.categories.get('info-edit')!.primaryCategory).toBe('WEATHER');
    expect(emu.appStore.details.reviewDetails.size).toBe(0);
  });
});
