/**
 * The release calendar in real Chromium (design.md §20, #48): a person in New York schedules the
 * pending promotional text for 9:00 on the day after the US clocks went forward, as a campaign
 * that puts it back later; the service stores the UTC instant of 9:00 EDT, and a colleague in
 * Berlin (still on winter time then) sees the same instant on their own clock. Cancelling moves it
 * to the past. axe-core on the page.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningEmulators } from '../support/emulators.js';
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

describe('release calendar', () => {
  it('schedules a campaign in the viewer’s time zone across a daylight-saving change', async () => {
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    await org.admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, {
      promotionalText: 'Spring sale',
    });
    const newYork = await signedInContext(browser, h, org.admin.apiKey, {
      timezoneId: 'America/New_York',
      locale: 'en-US',
    });
    const berlin = await signedInContext(browser, h, org.admin.apiKey, {
      timezoneId: 'Europe/Berlin',
      locale: 'en-US',
    });
    try {
      const { page } = newYork;
      await page.goto(`/projects/${project}`);
      await page.getByRole('link', { name: /Scheduled pushes, campaigns and release controls/ }).click();
      await page.getByRole('heading', { name: 'Release calendar', level: 1 }).waitFor();
      await page.getByText('Times in America/New_York (your time zone)').waitFor();
      await page.getByText('Nothing scheduled').waitFor();
      await page.getByText('Push the pending changes (1 change)').waitFor();
      // 14 March 2027: New York goes from EST (−5) to EDT (−4).
      await page.getByLabel('When (America/New_York)').fill('2027-03-15T09:00');
      await page.getByLabel(/Put the texts back at/).fill('2027-03-20T18:00');
      await page.getByLabel('Note').fill('Spring campaign');
      await page.getByRole('button', { name: 'Schedule', exact: true }).click();
      const row = page.getByRole('row', { name: /Push promotionalText \(App Store en-US\)/ });
      await row.waitFor();
      expect(await row.textContent()).toContain('Mar 15, 2027, 9:00 AM EDT');
      expect(await row.textContent()).toContain('put back Mar 20, 2027, 6:00 PM EDT');
      await expectAccessible(page, 'release calendar');
      await screenshot(page, 'calendar');

      const listed = (await org.admin.api.get(`/api/v1/projects/${project}/schedules`)).body.data.schedules;
      expect(listed).toHaveLength(1);
      expect(listed[0]).toMatchObject({
        at: '2027-03-15T13:00:00.000Z',
        revertAt: '2027-03-20T22:00:00.000Z',
        timeZone: 'America/New_York',
        status: 'scheduled',
        note: 'Spring campaign',
      });

      // Berlin is still on winter time (+1) on 15 March: the same instant is 14:00 there.
      await berlin.page.goto(`/projects/${project}/calendar`);
      const seen = berlin.page.getByRole('row', { name: /Push promotionalText/ });
      await seen.waitFor();
      expect(await seen.textContent()).toContain('Mar 15, 2027, 2:00 PM GMT+1');

      await row.getByRole('button', { name: /Cancel the schedule of/ }).click();
      await page.getByText('Nothing scheduled').waitFor();
      const past = page.getByRole('row', { name: /cancelled/ });
      await past.waitFor();
      expect(
        (await org.admin.api.get(`/api/v1/projects/${project}/schedules`)).body.data.schedules[0].status,
      ).toBe('cancelled');
    } finally {
      await newYork.context.close();
      await berlin.context.close();
    }
  });
});
