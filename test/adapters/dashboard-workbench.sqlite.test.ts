/**
 * The workbench in real Chromium (design.md §10, #44): screenshots (the overview of device slots
 * × locales, bulk upload placed by file name, "same as" the source locale, keyboard reorder that
 * keeps the focus); translating (progress per locale, search
 * and filter, the next field left to do, accept all drafts with protected terms kept); the
 * settings pages: webhooks (add, test,
 * deliveries, send again, rotate the secret, pause, remove) against a real local receiver; the
 * DeepL key, do-not-translate terms and glossaries; store keys with the time they were last
 * checked; a project's history of syncs and pushes. axe-core on every page. A file of its own
 * runs its own service (each file's sign-ins stay within one address's anonymous budget).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { APP_ID, PACKAGE, type RunningEmulators } from '../support/emulators.js';
import { distinctColour, image } from '../support/media.js';
import {
  expectAccessible,
  organizationWithStores,
  screenshot,
  signedInContext,
  startDashboard,
  syncedProject,
} from '../support/browser.js';
import type { Harness } from '../support/harness.js';

vi.setConfig({ testTimeout: 60_000 });

const DEEPL_KEY = 'dashboard-deepl-key:fx';
let browser: Browser;
let emu: RunningEmulators;
let h: Harness & { url: string };
let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;
let receiver: { url: string; received: number; close(): Promise<void> } | undefined;

beforeAll(async () => {
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      receiver!.received += 1;
      response.writeHead(200).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  dashboard = await startDashboard({ deepl: { keys: [{ key: DEEPL_KEY }] } }, (emulators) => ({
    DEEPL_API_URL: emulators.url,
    WEBHOOK_ALLOW_PRIVATE: 'true',
  }));
  ({ emu, h, browser } = dashboard);
}, 60_000);
afterAll(async () => {
  await dashboard?.close();
  await receiver?.close();
});
beforeEach(() => emu.restore());

describe('in-app purchases and subscriptions', () => {
  it('shows products × locales, counts each text against its limit, and saves a new locale', async () => {
    emu.appStore.purchases.load(APP_ID, [
      {
        id: 'iap-radar',
        productId: 'com.example.radar',
        name: 'Radar (reference)',
        localizations: { 'en-US': { name: 'Radar Maps', description: 'Live radar' } },
      },
    ]);
    emu.play.apps.get(PACKAGE)!.subscriptions.set('plus', {
      packageName: PACKAGE,
      productId: 'plus',
      basePlans: [{ basePlanId: 'monthly', state: 'ACTIVE' }],
      listings: [{ languageCode: 'en-US', title: 'Plus', benefits: ['Radar'] }],
    });
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    await org.admin.api.patch(`/api/v1/projects/${project}/products/playstore/plus/de-DE`, { title: 'Plus' });
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${project}`);
      await page.getByRole('link', { name: /Product names, descriptions and benefits/ }).click();
      await page.getByRole('heading', { name: 'In-app purchases and subscriptions', level: 1 }).waitFor();
      const apple = page.getByRole('table', { name: /App Store products by locale/ });
      await apple.getByRole('rowheader', { name: /Radar \(reference\)/ }).waitFor();
      await expectAccessible(page, 'products');
      await screenshot(page, 'products');

      // A locale the product lacks: its name is required, and counted against 35 as it is typed.
      await page.getByRole('button', { name: 'Edit com.example.radar in en-US' }).click();
      const name = page.getByLabel(/^name \(required\)/);
      await expect.poll(() => name.inputValue()).toBe('Radar Maps');
      await name.fill('Radarkarten für jede einzelne Straße');
      await page.getByText('36 / 35').waitFor();
      expect(await page.getByRole('button', { name: 'Save texts' }).isDisabled()).toBe(true);
      await name.fill('Radarkarten');
      await page.getByRole('button', { name: 'Save texts' }).click();
      await page.getByText('modified').first().waitFor();
      const saved = await org.admin.api.get(
        `/api/v1/projects/${project}/products/appstore/com.example.radar/en-US`,
      );
      expect(saved.body.data.fields.name).toMatchObject({ value: 'Radarkarten', base: 'Radar Maps' });

      // Benefits: one per line, at most four, each counted.
      await page.getByRole('button', { name: 'Edit plus in de-DE' }).click();
      const benefits = page.getByLabel(/^benefits/);
      await benefits.fill('Radar\nKeine Werbung\nWarnungen\nWidgets\nMehr');
      await page.getByText('5 of 4 lines, longest 13 / 40').waitFor();
      expect(await page.getByRole('button', { name: 'Save texts' }).isDisabled()).toBe(true);
      await benefits.fill('Radar\nKeine Werbung');
      await page.getByRole('button', { name: 'Save texts' }).click();
      await expect
        .poll(async () => {
          const res = await org.admin.api.get(`/api/v1/projects/${project}/products/playstore/plus/de-DE`);
          return res.body.data.fields.benefits.value;
        })
        .toEqual(['Radar', 'Keine Werbung']);
      await expectAccessible(page, 'product editor');

      // The project's pending changes show the purchase texts, counted per store.
      await page.goto(`/projects/${project}`);
      await page.getByRole('table', { name: 'Google Play · plus · de-DE' }).waitFor();
      await page.getByRole('table', { name: 'App Store · com.example.radar · en-US' }).waitFor();
      const counts = page.getByRole('table', { name: 'Changes to push, per store and kind' });
      await counts.getByRole('columnheader', { name: 'Purchase texts' }).waitFor();

      // Translating: a product's text is a row of the locale's page, saved to the product.
      await page.goto(`/projects/${project}/translations/de-DE`);
      const german = page.getByLabel('name · com.example.radar (de-DE)');
      await german.fill('Radarkarten');
      await page.getByText('11 / 35').waitFor();
      await page.locator('tr', { has: german }).getByRole('button', { name: /^Save/ }).click();
      await expect
        .poll(async () => {
          const res = await org.admin.api.get(
            `/api/v1/projects/${project}/products/appstore/com.example.radar/de-DE`,
          );
          return res.body.data.fields.name.value;
        })
        .toBe('Radarkarten');
      await expectAccessible(page, 'translations with products');
    } finally {
      await context.close();
    }
  });
});

describe('settings that were only in the API', () => {
  it('webhooks: add with the secret shown once, test, read the delivery, send again, rotate, pause, remove', async () => {
    const org = await h.given.organization();
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto('/organization');
      await page
        .getByRole('navigation', { name: 'Organization settings' })
        .getByRole('link', { name: 'Webhooks' })
        .click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByLabel('Endpoint URL').fill(receiver!.url);
      await page.getByLabel('Description (optional)').fill('Release bot');
      await page.getByLabel('push.completed').check();
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const secret = page.getByRole('status').filter({ hasText: 'shown this once' });
      await expect.poll(async () => (await secret.locator('code').textContent()) ?? '').toMatch(/^whsec_/);
      const card = page.getByRole('listitem', { name: 'Release bot' });
      await card.getByText('push.completed', { exact: true }).waitFor();
      await expectAccessible(page, 'webhooks');
      await screenshot(page, 'webhooks');

      const before = receiver!.received;
      await card.getByRole('button', { name: 'Send a test event' }).click();
      const deliveries = card.getByRole('table', { name: 'Deliveries' });
      await expect
        .poll(
          async () => {
            await card.getByRole('button', { name: 'Hide deliveries' }).click();
            await card.getByRole('button', { name: 'Show deliveries' }).click();
            return deliveries.getByRole('row').nth(1).textContent();
          },
          { timeout: 20_000 },
        )
        .toMatch(/Succeeded.*HTTP 200/);
      expect(receiver!.received).toBeGreaterThan(before);
      await card
        .getByRole('button', { name: /^Send .* again$/ })
        .first()
        .click();
      await card.getByText('Queued to send again.').waitFor();
      await expect.poll(() => receiver!.received, { timeout: 20_000 }).toBeGreaterThan(before + 1);

      const first = await secret.locator('code').textContent();
      await card.getByRole('button', { name: 'Rotate secret' }).click();
      await card.getByText(/still accepted until/).waitFor();
      const rotated = card.getByRole('status').filter({ hasText: 'shown this once' }).locator('code');
      await expect.poll(() => rotated.textContent()).toMatch(/^whsec_/);
      expect(await rotated.textContent()).not.toBe(first);

      await card.getByRole('button', { name: 'Pause' }).click();
      await card.getByText('Paused').waitFor();
      await card.getByRole('button', { name: 'Resume' }).waitFor();
      page.once('dialog', (dialog) => void dialog.accept());
      await card.getByRole('button', { name: 'Remove' }).click();
      await page.getByText('No webhooks yet.').waitFor();
      expect((await org.admin.api.get('/api/v1/organization/webhooks')).body.data.webhooks).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('translation settings: the DeepL key checked, protected terms and a glossary; members read them', async () => {
    const org = await h.given.organization();
    const translator = await h.given.member(org, 'member');
    const admin = await signedInContext(browser, h, org.admin.apiKey);
    const member = await signedInContext(browser, h, translator.apiKey);
    try {
      const page = admin.page;
      await page.goto('/organization');
      await page.getByRole('link', { name: /^Translation settings/ }).click();
      await page.getByRole('heading', { name: 'Translation settings', level: 1 }).waitFor();
      await page.getByLabel('DeepL API key').fill(DEEPL_KEY);
      await page.getByRole('button', { name: 'Save key' }).click();
      const facts = page.getByRole('definition').filter({ hasText: 'not yet: use Verify' });
      await facts.waitFor();
      await page.getByRole('button', { name: 'Check the key with DeepL' }).click();
      await page.getByText('DeepL accepted the key.').waitFor();
      await page.getByText(/: accepted$/).waitFor();
      await page.getByText('DeepL API Free').waitFor();

      await page.getByLabel('Terms (one per line)').fill('Weather Pro\nRadarKit\n');
      await page.getByRole('button', { name: 'Save terms' }).click();
      await page.getByText('Saved.').waitFor();
      expect((await org.admin.api.get('/api/v1/organization')).body.data.settings.doNotTranslate).toEqual([
        'Weather Pro',
        'RadarKit',
      ]);

      await page.getByLabel('Into language (e.g. de)').fill('de');
      await page.getByLabel('Kept as written (one per line)').fill('Pro');
      await page.getByLabel('Translated as (one per line: term = translation)').fill('forecast = Vorhersage');
      await page.getByRole('button', { name: 'Save glossary' }).click();
      const table = page.getByRole('table', { name: 'Glossaries' });
      await table.getByRole('row', { name: /en → de Pro \(kept\); forecast = Vorhersage/ }).waitFor();
      await expectAccessible(page, 'translation settings (admin)');
      await screenshot(page, 'translation-settings');

      // Editing fills the form; a bad line names its term.
      await table.getByRole('button', { name: 'Edit the en → de glossary' }).click();
      expect(await page.getByLabel('Translated as (one per line: term = translation)').inputValue()).toBe(
        'forecast = Vorhersage',
      );
      await page.getByLabel('Translated as (one per line: term = translation)').fill('forecast =');
      await page.getByRole('button', { name: 'Save glossary' }).click();
      await page.getByRole('alert').getByText('Translated as “forecast”', { exact: true }).waitFor();

      // A member reads the terms and glossaries, changes nothing, and never sees the key.
      const reader = member.page;
      await reader.goto('/organization/translation');
      await reader.getByRole('heading', { name: 'Glossaries' }).waitFor();
      expect(await reader.getByLabel('Terms (one per line)').inputValue()).toBe('Weather Pro\nRadarKit');
      expect(await reader.getByLabel('Terms (one per line)').getAttribute('readonly')).not.toBeNull();
      expect(await reader.getByRole('heading', { name: 'DeepL key' }).count()).toBe(0);
      expect(await reader.getByRole('button', { name: 'Save glossary' }).count()).toBe(0);
      await expectAccessible(reader, 'translation settings (member)');
    } finally {
      await admin.context.close();
      await member.context.close();
    }
  });

  it('errors name each field by its label, in plain words', async () => {
    const org = await h.given.organization();
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.getByRole('button', { name: 'New project' }).click();
      await page.getByLabel('Project name').fill('Weather');
      await page.getByLabel('App Store app ID').fill('12ab');
      await page.getByRole('button', { name: 'Create project' }).click();
      const alert = page.getByRole('alert');
      await alert
        .getByText('App Store app ID is not in the right form: Numeric App Store app id, like 1234567890', {
          exact: false,
        })
        .first()
        .waitFor();
      expect(await alert.textContent()).not.toContain('appStoreAppId');
      expect(await alert.textContent()).not.toMatch(/\^\[0-9\]/);
      await expectAccessible(page, 'a refused new project');
    } finally {
      await context.close();
    }
  });

  it('store keys say when they were last checked; a project lists its syncs and pushes', async () => {
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto('/organization');
      const apple = page.getByRole('form', { name: 'App Store Connect API key' });
      await apple.getByText('not yet: use Verify').waitFor();
      await apple.getByRole('button', { name: 'Verify App Store key' }).click();
      await page.getByText('The store accepted the key.').waitFor();
      await apple.getByText(/: accepted$/).waitFor();

      await page.goto(`/projects/${project}`);
      await page.getByRole('link', { name: 'Every sync and push' }).click();
      await page.getByRole('heading', { name: 'Syncs and pushes', level: 1 }).waitFor();
      const rows = page.getByRole('table', { name: 'Syncs and pushes, newest first' }).getByRole('row');
      await expect.poll(() => rows.count()).toBe(2);
      const text = await rows.nth(1).textContent();
      expect(text).toMatch(/^SyncSucceeded/);
      expect(text).toContain('App Store, Google Play');
      await page.getByText('1–1 of 1').waitFor();
      await expectAccessible(page, 'syncs and pushes');
    } finally {
      await context.close();
    }
  });
});

describe('translating', () => {
  it('progress per locale, protected terms shown, search and filter, next untranslated, accept all drafts', async () => {
    const org = await h.given.organization();
    await org.admin.api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: DEEPL_KEY });
    await org.admin.api.patch('/api/v1/organization', { settings: { doNotTranslate: ['Weather Pro'] } });
    const translator = await h.given.member(org, 'member');
    const { id: project } = await h.given.project(org.admin, { appStoreAppId: APP_ID });
    const listing = (locale: string) => `/api/v1/projects/${project}/listings/appstore/${locale}`;
    const source = await org.admin.api.patch(listing('en-US'), {
      name: 'Weather Pro',
      subtitle: 'Weather Pro forecasts',
      promotionalText: 'Rain radar for your street',
    });
    expect(source.status, JSON.stringify(source.body)).toBe(200);
    expect((await org.admin.api.patch(listing('de-DE'), { keywords: 'wetter' })).status).toBe(200);
    const { context, page } = await signedInContext(browser, h, translator.apiKey);
    try {
      await page.goto(`/projects/${project}/translations`);
      const progress = page.getByRole('progressbar', { name: /^de-DE App Store: \d+ of \d+ current$/ });
      await progress.waitFor();
      await expectAccessible(page, 'translations overview with progress');
      await page.getByRole('link', { name: 'de-DE' }).click();
      await page.getByRole('note').getByText('Weather Pro', { exact: true }).waitFor();

      // The next field left to do, and the one after it, take the focus in turn.
      const focused = () => page.evaluate(() => (globalThis as any).document.activeElement?.id as string);
      await page.getByRole('button', { name: 'Next untranslated field' }).click();
      const first = await focused();
      expect(first).toMatch(/^appstore-/);
      await page.getByRole('button', { name: 'Next untranslated field' }).click();
      const second = await focused();
      expect(second).toMatch(/^appstore-/);
      expect(second).not.toBe(first);

      await page.getByRole('button', { name: 'Machine-translate missing and outdated fields' }).click();
      await page.getByText(/^\d+ drafts \(\d+ characters\)\.$/).waitFor();
      await page.getByLabel('Show').selectOption('draft');
      await page.getByText(/^Showing \d+ of \d+ fields\.$/).waitFor();
      await page.getByLabel('Search').fill('radar');
      await page.getByText(/^Showing 1 of \d+ fields\.$/).waitFor();
      const rows = page.getByRole('table', { name: 'Source and de-DE' }).locator('tbody tr');
      expect(await rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain('Promotional text');
      await expectAccessible(page, 'translations of a locale, filtered');
      await screenshot(page, 'translating');
      await page.getByLabel('Search').fill('');
      await page.getByLabel('Show').selectOption('all');

      await page.getByRole('button', { name: /^Accept all \d+ drafts$/ }).click();
      await page.getByText(/^Accepted \d+\.$/).waitFor();
      const german = (await org.admin.api.get(listing('de-DE'))).body.data.listing;
      expect(german.fields.name.value).toBe('Weather Pro');
      expect(german.fields.subtitle.value).toMatch(/^Weather Pro (?!forecasts)/);
      expect(german.fields.keywords.value).toBe('wetter');
      await page.goto(`/projects/${project}/translations`);
      const done = await page
        .getByRole('progressbar', { name: /^de-DE App Store:/ })
        .getAttribute('aria-label');
      const [, current, total] = /(\d+) of (\d+) current/.exec(done!)!;
      expect(Number(current)).toBeGreaterThanOrEqual(3);
      expect(Number(total)).toBeGreaterThan(0);
    } finally {
      await context.close();
    }
  });
});

describe('screenshots', () => {
  it('overview of slots × locales, bulk upload by file name, same as en-US, keyboard reorder keeping focus', async () => {
    const org = await h.given.organization();
    const { id } = await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE });
    for (const locale of ['en-US', 'de-DE', 'fr-FR']) {
      const res = await org.admin.api.patch(`/api/v1/projects/${id}/listings/playstore/${locale}`, {
        title: `App ${locale}`,
      });
      expect(res.status).toBe(200);
    }
    const png = async (name: string) => ({
      name,
      mimeType: 'image/png',
      buffer: await image({ width: 1080, height: 1920, colour: distinctColour() }),
    });
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${id}`);
      await page.getByRole('link', { name: 'Google Play overview' }).click();
      await page.getByRole('heading', { name: 'Screenshots and previews · Google Play', level: 1 }).waitFor();
      await page.getByText('No screenshots or previews yet', { exact: false }).waitFor();

      // Bulk upload: each file goes where its name says; a name that fits nowhere says why.
      await page
        .getByLabel('Files to place by name')
        .setInputFiles([
          await png('en-US_phoneScreenshots_2.png'),
          await png('en-US_phoneScreenshots_1.png'),
          await png('EN-us_PHONESCREENSHOTS_3.png'),
          await png('de-DE_sevenInchScreenshots_1.png'),
          await png('it-IT_phoneScreenshots_1.png'),
          await png('holiday.png'),
        ]);
      const plan = page.getByRole('table', { name: 'Where each file goes' });
      await plan
        .getByRole('row', { name: 'en-US_phoneScreenshots_1.png en-US · Phone · number 1' })
        .waitFor();
      await plan
        .getByRole('row', { name: /it-IT_phoneScreenshots_1\.png Not placed: it-IT is not a locale/ })
        .waitFor();
      await plan
        .getByRole('row', { name: /holiday\.png Not placed: the name is not locale_slot_number/ })
        .waitFor();
      await expectAccessible(page, 'bulk upload plan');
      await page.getByRole('button', { name: 'Upload 4 files' }).click();
      await page.getByText('Uploaded 4 files.').waitFor();
      const english = await org.admin.api.get(`/api/v1/projects/${id}/media?store=playstore&locale=en-US`);
      expect(english.body.data.slots[0].items.map((i: { fileName: string }) => i.fileName)).toEqual([
        'en-US_phoneScreenshots_1.png',
        'en-US_phoneScreenshots_2.png',
        'EN-us_PHONESCREENSHOTS_3.png',
      ]);

      // The overview: counts and thumbnails per slot and locale, what is missing where.
      const grid = page.getByRole('table', { name: 'Files per device slot and locale' });
      await grid.getByRole('link', { name: 'Phone, en-US: 3 files' }).waitFor();
      await grid
        .getByRole('link', { name: 'Phone, de-DE: missing (other locales have files here)' })
        .waitFor();
      await grid.getByRole('link', { name: '7-inch tablet, de-DE: 1 file' }).waitFor();
      await grid
        .getByRole('link', { name: '7-inch tablet, en-US: missing (other locales have files here)' })
        .waitFor();

      // Copied files read as the same as the source locale, here and in the slot's editor.
      const copied = await org.admin.api.post(`/api/v1/projects/${id}/media/copy`, {
        from: { store: 'playstore', locale: 'en-US' },
        to: { store: 'playstore', locale: 'fr-FR' },
        slotTypes: ['phoneScreenshots'],
      });
      expect(copied.status, JSON.stringify(copied.body)).toBe(200);
      await page.reload();
      await grid.getByRole('link', { name: 'Phone, fr-FR: 3 files, the same as en-US' }).click();
      await page.getByRole('heading', { name: 'Screenshots and previews · Google Play · fr-FR' }).waitFor();
      expect(await page.getByLabel('Slot').locator('option:checked').textContent()).toMatch(/^Phone/);
      await page.getByText('The same files as en-US, in the same order.').waitFor();
      await expectAccessible(page, 'media editor, same as en-US');

      // Keyboard reorder: the focus stays with the moved file, to the other button at the end.
      await page.goto(`/projects/${id}/media/playstore/en-US?slot=phoneScreenshots`);
      const list = page.getByRole('list', { name: 'phoneScreenshots files in order' });
      await list.getByRole('img', { name: '3. EN-us_PHONESCREENSHOTS_3.png' }).waitFor();
      const focusedLabel = () =>
        page.evaluate(() => (globalThis as any).document.activeElement?.getAttribute('aria-label') as string);
      await page.getByRole('button', { name: 'Move en-US_phoneScreenshots_1.png later' }).focus();
      await page.keyboard.press('Enter');
      await list.getByRole('img', { name: '2. en-US_phoneScreenshots_1.png' }).waitFor();
      expect(await focusedLabel()).toBe('Move en-US_phoneScreenshots_1.png later');
      await page.keyboard.press('Enter');
      await list.getByRole('img', { name: '3. en-US_phoneScreenshots_1.png' }).waitFor();
      expect(await focusedLabel()).toBe('Move en-US_phoneScreenshots_1.png earlier');
      await page
        .getByText('Moved en-US_phoneScreenshots_1.png to place 3 of 3.')
        .waitFor({ state: 'attached' });
      await expect
        .poll(async () =>
          (
            await org.admin.api.get(`/api/v1/projects/${id}/media?store=playstore&locale=en-US`)
          ).body.data.slots[0].items.map((i: { fileName: string }) => i.fileName),
        )
        .toEqual([
          'en-US_phoneScreenshots_2.png',
          'EN-us_PHONESCREENSHOTS_3.png',
          'en-US_phoneScreenshots_1.png',
        ]);
      // No longer the same as en-US: fr-FR kept the old order.
      await page.goto(`/projects/${id}/media/playstore`);
      await grid.getByRole('link', { name: 'Phone, fr-FR: 3 files' }).waitFor();
      await expectAccessible(page, 'media overview');
      await screenshot(page, 'media-overview');
    } finally {
      await context.close();
    }
  });
});
