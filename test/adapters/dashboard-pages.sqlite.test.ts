/**
 * Custom product pages and in-app events in real Chromium (design.md §18, #46): the pages list
 * with each page's first screenshots, a page's promotional text counted against its limit and
 * saved, a screenshot uploaded into the page's own slot, a page in review shown read-only with
 * the store's reason; the events table and an event's texts saved; app details (a category from
 * Apple's list, the demo password only replaced). axe-core on every page. A
 * file of its own runs its own service (each file's sign-ins stay within one address's budget).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { APP_ID, type RunningEmulators } from '../support/emulators.js';
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

let browser: Browser;
let emu: RunningEmulators;
let h: Harness & { url: string };
let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;

beforeAll(async () => {
  dashboard = await startDashboard();
  ({ emu, h, browser } = dashboard);
}, 60_000);
afterAll(async () => {
  await dashboard?.close();
});
beforeEach(() => {
  emu.restore();
  emu.appStore.marketing.load(
    APP_ID,
    [
      {
        id: 'page-spring',
        name: 'Spring campaign',
        versions: [
          { id: 'spring-1', state: 'PREPARE_FOR_SUBMISSION', localizations: { 'en-US': 'Spring showers' } },
        ],
      },
      {
        id: 'page-review',
        name: 'Autumn campaign',
        versions: [{ id: 'autumn-1', state: 'IN_REVIEW', localizations: { 'en-US': 'Autumn storms' } }],
      },
    ],
    [{ id: 'event-storm', referenceName: 'Storm week', localizations: { 'en-US': { name: 'Storm week' } } }],
  );
});

describe('custom product pages and in-app events', () => {
  it('edits a page’s promotional text and screenshots, shows a page in review read-only, edits an event', async () => {
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${project}`);
      await page.getByRole('link', { name: /App Store custom product pages/ }).click();
      await page.getByRole('heading', { name: 'Custom product pages', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Spring campaign' }).waitFor();
      await expectAccessible(page, 'product pages');

      // The promotional text, counted against 170 as it is typed.
      await page.getByRole('button', { name: 'en-US of Spring campaign' }).click();
      const text = page.getByLabel(/^promotional text/);
      await expect.poll(() => text.inputValue()).toBe('Spring showers');
      await text.fill('x'.repeat(171));
      await page.getByText('171 / 170').waitFor();
      expect(await page.getByRole('button', { name: 'Save texts' }).isDisabled()).toBe(true);
      await text.fill('Spring storms, minute by minute');
      await page.getByRole('button', { name: 'Save texts' }).click();
      await expect
        .poll(async () => {
          const res = await org.admin.api.get(`/api/v1/projects/${project}/product-pages/page-spring/en-US`);
          return res.body.data.fields.promotionalText.value;
        })
        .toBe('Spring storms, minute by minute');

      // A screenshot into the page's own slot; the card previews it.
      await page.getByLabel('Add screenshots').setInputFiles([
        {
          name: 'spring.png',
          mimeType: 'image/png',
          buffer: await image({ width: 1320, height: 2868, colour: distinctColour() }),
        },
      ]);
      await page.getByRole('img', { name: '1. spring.png' }).waitFor();
      await page.getByRole('img', { name: /Spring campaign: screenshot 1/ }).waitFor();
      const slots = (
        await org.admin.api.get(`/api/v1/projects/${project}/media?store=appstore&productPage=page-spring`)
      ).body.data.slots;
      expect(slots.map((s: any) => [s.locale, s.slotType, s.items.length])).toEqual([
        ['en-US', 'APP_IPHONE_67', 1],
      ]);
      await expectAccessible(page, 'product page editor');
      await screenshot(page, 'product-pages');

      // A page in review: read-only, with App Store Connect's reason.
      await page.getByRole('button', { name: 'en-US of Autumn campaign' }).click();
      await page.getByRole('note').filter({ hasText: 'IN_REVIEW' }).waitFor();
      expect(await page.getByRole('button', { name: 'Save texts' }).count()).toBe(0);
      expect(await page.getByLabel('Add screenshots').count()).toBe(0);

      // The pending changes are in the project's diff.
      const diff = (await org.admin.api.get(`/api/v1/projects/${project}/diff`)).body.data;
      expect(diff.products.appstore['page-spring']['en-US'].promotionalText.new).toBe(
        'Spring storms, minute by minute',
      );
      expect(Object.keys(diff.media.appstore['en-US'])).toEqual(['page:page-spring:APP_IPHONE_67']);

      // Events: a table of events × locales, an event's texts saved.
      await page.goto(`/projects/${project}/app-events`);
      await page.getByRole('heading', { name: 'In-app events', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Edit Storm week in en-US' }).click();
      const short = page.getByLabel(/^short description/);
      await short.fill('Every storm, tracked live');
      await page.getByText('25 / 50').waitFor();
      await page.getByRole('button', { name: 'Save texts' }).click();
      await expect
        .poll(async () => {
          const res = await org.admin.api.get(`/api/v1/projects/${project}/app-events/event-storm/en-US`);
          return res.body.data.fields.shortDescription.value;
        })
        .toBe('Every storm, tracked live');
      await expectAccessible(page, 'app events');
    } finally {
      await context.close();
    }
  });

  it('edits app details: a category from Apple’s list, the review notes, the password only replaced', async () => {
    emu.appStore.details.categories.set('info-edit', { primaryCategory: 'WEATHER' });
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${project}`);
      await page.getByRole('link', { name: /Copyright, categories, App Review information/ }).click();
      await page.getByRole('heading', { name: 'App details', level: 1 }).waitFor();
      const category = page.getByLabel(/^Primary category/);
      await expect.poll(() => category.inputValue()).toBe('WEATHER');
      await page.getByLabel(/^Secondary category/).selectOption('PRODUCTIVITY');
      await page.getByLabel(/^Notes/).fill('Sign in with the demo account.');
      await page.getByLabel(/^Demo account password/).fill('dashboard-secret-1');
      await page.getByRole('button', { name: 'Save App Store details' }).click();
      await page.getByText('modified').first().waitFor();
      const saved = (await org.admin.api.get(`/api/v1/projects/${project}/details/appstore`)).body.data;
      expect(saved.details).toMatchObject({
        secondaryCategory: 'PRODUCTIVITY',
        review: { notes: 'Sign in with the demo account.', demoAccountPassword: { set: true } },
      });
      // The password is never shown back: the field is empty, its placeholder says it is set.
      await expect.poll(() => page.getByLabel(/^Demo account password/).inputValue()).toBe('');
      expect(await page.getByLabel(/^Demo account password/).getAttribute('placeholder')).toContain('Set');
      expect(await page.content()).not.toContain('dashboard-secret-1');
      await expectAccessible(page, 'app details');
      await screenshot(page, 'details');
    } finally {
      await context.close();
    }
  });
});
