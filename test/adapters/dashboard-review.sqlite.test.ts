/**
 * The dashboard in real Chromium, continued (dashboard.sqlite.test.ts has the rest): the review
 * loop (design.md §15), scoped access (§16) and small screens; axe-core on every page visited.
 * A file of its own runs its own service, so that the sign-ins of both files stay within one
 * address's budget of anonymous requests per minute. These run on SQLite.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { APP_ID, type RunningEmulators } from '../support/emulators.js';
import {
  screenshot,
  expectAccessible,
  organizationWithStores,
  signedInContext,
  syncedProject,
  startDashboard,
} from '../support/browser.js';
import type { Harness } from '../support/harness.js';
import { distinctColour, image } from '../support/media.js';

// A browser flow takes seconds; the first page of a run also waits for Chromium to warm up.
vi.setConfig({ testTimeout: 60_000 });

let browser: Browser;
let emu: RunningEmulators;
let h: Harness & { url: string };
let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;

beforeAll(async () => {
  dashboard = await startDashboard();
  ({ emu, h, browser } = dashboard);
}, 60_000);
afterAll(() => dashboard?.close());
beforeEach(() => emu.restore());

describe('the review loop', () => {
  it('walks edit → request → review with thumbnails → approve → confirm → progress → per-locale result → audit log', async () => {
    const org = await organizationWithStores(h, emu);
    await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    const translator = await h.given.member(org, 'member');
    const name = (await org.admin.api.get('/api/v1/organization/members')).body.data.members.find(
      (m: { id: string }) => m.id === translator.id,
    ).name as string;
    const project = await syncedProject(h, org.admin);
    const writer = await signedInContext(browser, h, translator.apiKey);
    const reviewer = await signedInContext(browser, h, org.admin.apiKey);
    try {
      // The translator edits a text and uploads two screenshots, then asks for an approval.
      const page = writer.page;
      await page.goto(`/projects/${project}/listings/en-US`);
      await page
        .getByRole('group', { name: 'App Store' })
        .getByLabel('Promotional text')
        .fill('Radar for every street.');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      await page.goto(`/projects/${project}`);
      await page.getByRole('link', { name: 'Google Play en-US screenshots' }).click();
      await page.getByLabel('Slot').selectOption('phoneScreenshots');
      await page.getByLabel('Upload to phoneScreenshots').setInputFiles(
        await Promise.all(
          ['first.png', 'second.png'].map(async (file) => ({
            name: file,
            mimeType: 'image/png',
            buffer: await image({ width: 1080, height: 1920, colour: distinctColour() }),
          })),
        ),
      );
      await page
        .getByRole('list', { name: 'phoneScreenshots files in order' })
        .getByRole('img', { name: '2. second.png' })
        .waitFor();
      await page.goto(`/projects/${project}`);
      await page.getByText('These changes need an admin’s approval before they can be pushed.').waitFor();
      await page.getByLabel('Note for the approver (optional)').fill('Launch copy and new screenshots');
      await page.getByRole('button', { name: 'Ask for approval' }).click();
      await page.getByText('You asked for an approval; the admins see your request.').waitFor();
      await expectAccessible(page, 'project awaiting approval (member)');

      // The admin sees the request and every change: counts per kind, the text, the thumbnails.
      const admin = reviewer.page;
      await admin.goto(`/projects/${project}`);
      await admin
        .getByRole('list', { name: 'Approval requests' })
        .getByText(`${name} asked on`, { exact: false })
        .waitFor();
      await admin.getByText('“Launch copy and new screenshots”', { exact: false }).waitFor();
      const counts = admin.getByRole('table', { name: 'Changes to push, per store and kind' });
      expect(await counts.getByRole('row', { name: 'App Store 1 0 0 0' }).count()).toBe(1);
      expect(await counts.getByRole('row', { name: 'Google Play 0 1 0 0' }).count()).toBe(1);
      await admin.getByText('Radar for every street.').waitFor();
      const after = admin.getByRole('list', { name: 'After files' });
      await expect.poll(() => after.getByRole('img').count()).toBe(2);
      await expect
        .poll(() =>
          after
            .getByRole('img')
            .first()
            .evaluate(
              (img) =>
                (img as unknown as { complete: boolean; naturalWidth: number }).complete &&
                (img as unknown as { naturalWidth: number }).naturalWidth > 0,
            ),
        )
        .toBe(true);
      await expectAccessible(admin, 'project under review (admin)');
      await screenshot(admin, 'review');
      await admin.getByRole('button', { name: 'Approve these changes' }).click();
      await admin.getByText(/Approved by Admin/).waitFor();

      // Confirm, watch the progress of a push slowed by the stores, read the result per locale.
      emu.faults.set([{ route: '* /androidpublisher/*', latencyMs: 400 }]);
      await admin.getByRole('button', { name: 'Push to the stores…' }).click();
      const confirm = admin.getByRole('dialog', { name: 'Confirm the push' });
      await confirm.getByText('App Store: 1 text field · Google Play: 1 screenshot slot').waitFor();
      await expectAccessible(admin, 'push confirmation');
      await confirm.getByRole('button', { name: 'Push now' }).click();
      await admin.getByRole('status', { name: 'Push progress' }).waitFor();
      const result = admin.getByRole('status', { name: 'Push result' });
      await result.getByText('Push result: succeeded').waitFor({ timeout: 30_000 });
      expect(await result.getByRole('row', { name: 'App Store en-US 1 0 0 0 0' }).count()).toBe(1);
      expect(await result.getByRole('row', { name: 'Google Play en-US 0 1 2 0 0' }).count()).toBe(1);
      await expectAccessible(admin, 'push result');
      await screenshot(admin, 'push-result');
      emu.faults.set([]);

      // The field's history names who wrote it.
      await admin.goto(`/projects/${project}/listings/en-US`);
      const apple = admin.getByRole('group', { name: 'App Store' });
      await apple.getByText('History of Promotional text').click();
      await apple.getByText(`${name} (edit)`, { exact: false }).waitFor();

      // The audit log holds every step by name, filterable and downloadable.
      await admin.goto('/organization');
      const log = admin.getByRole('region', { name: 'Audit log' });
      await log.getByLabel('Project').selectOption({
        label: (await org.admin.api.get(`/api/v1/projects/${project}`)).body.data.project.name,
      });
      await log.getByLabel('Member').selectOption({ label: name });
      for (const action of ['listings.update', 'media.upload', 'approvalRequests.create']) {
        await log.getByRole('cell', { name: action, exact: true }).first().waitFor();
      }
      expect(await log.getByRole('cell', { name: 'listings.approve', exact: true }).count()).toBe(0);
      await log.getByLabel('Member').selectOption({ label: 'Admin' });
      for (const action of ['listings.approve', 'projects.push']) {
        await log.getByRole('cell', { name: action, exact: true }).first().waitFor();
      }
      await expectAccessible(admin, 'audit log filtered');
      await screenshot(admin, 'audit-log');
      const href = await log
        .getByRole('link', { name: 'Download these entries as CSV' })
        .getAttribute('href');
      const csv = await admin.evaluate(async (url) => (await fetch(url!)).text(), href);
      const lines = csv.trim().split('\r\n');
      expect(lines[0]).toMatch(/^createdAt,id,action,actorName/);
      expect(lines.slice(1).map((line) => line.split(',')[2])).toEqual(
        expect.arrayContaining(['listings.approve', 'projects.push']),
      );
      expect(lines.slice(1).every((line) => line.split(',')[3] === 'Admin')).toBe(true);
    } finally {
      emu.faults.set([]);
      await writer.context.close();
      await reviewer.context.close();
    }
  });
});

describe('scoped access', () => {
  it('invites a translator for de-DE on one project, who edits de-DE there and reads the rest', async () => {
    const org = await organizationWithStores(h, emu);
    const mine = await syncedProject(h, org.admin);
    const theirs = await syncedProject(h, org.admin);
    const mineName = (await org.admin.api.get(`/api/v1/projects/${mine}`)).body.data.project.name as string;
    const admin = await signedInContext(browser, h, org.admin.apiKey);
    const translator = await browser.newContext({ baseURL: h.url });
    try {
      // The admin invites with a project and a language picked.
      await admin.page.getByRole('link', { name: 'Organization' }).click();
      const invites = admin.page.getByRole('region', { name: 'Invites' });
      await invites.getByLabel('E-mail').fill('tara@example.com');
      await invites.getByLabel('Only some projects').check();
      await invites.getByLabel('Projects', { exact: true }).selectOption({ label: mineName });
      await invites.getByLabel('Only some languages').check();
      await invites.getByLabel('Languages', { exact: true }).selectOption('de-DE');
      await expectAccessible(admin.page, 'invite with access');
      await invites.getByRole('button', { name: 'Invite' }).click();
      const link = (await invites.getByRole('status').locator('code').textContent())!;

      const page = await translator.newPage();
      await page.goto(new URL(link).pathname);
      await page.getByLabel('Name').fill('Tara');
      await page.getByRole('button', { name: 'Accept' }).click();
      await page.getByRole('button', { name: 'Continue to the projects' }).click();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      await page.getByRole('link', { name: mineName }).waitFor();
      expect(await page.getByRole('link', { name: /^Project / }).count()).toBe(1);
      await expectAccessible(page, 'projects of a translator');

      // Their language: editable.
      await page.goto(`/projects/${mine}/listings/de-DE`);
      await page
        .getByRole('group', { name: 'Google Play' })
        .getByLabel('Short description')
        .fill('Wetter für jede Straße');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();

      // Another language: read-only, and the page says why.
      await page.goto(`/projects/${mine}/listings/en-US`);
      await page
        .getByRole('note')
        .getByText('Read-only for you: your access covers de-DE, not en-US.', { exact: false })
        .waitFor();
      expect(
        await page.getByRole('group', { name: 'App Store' }).getByLabel('Subtitle').getAttribute('readonly'),
      ).not.toBeNull();
      expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
      await expectAccessible(page, 'listing editor outside the scope');

      // Their languages come first in the translations overview.
      await page.goto(`/projects/${mine}/translations`);
      const first = page.getByRole('table', { name: 'Translation states' }).getByRole('row').nth(1);
      await first.getByRole('link', { name: 'de-DE' }).waitFor();

      // Another project does not exist for them; the server refuses what the page would not offer.
      await page.goto(`/projects/${theirs}`);
      await page.getByText('Project not found').waitFor();
      const refused = await page.evaluate(async (path) => {
        const res = await fetch(path, {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/json', 'X-Appmeta-CSRF': '1' },
          body: JSON.stringify({ subtitle: 'Rain' }),
        });
        return res.status;
      }, `/api/v1/projects/${mine}/listings/appstore/en-US`);
      expect(refused).toBe(403);

      // The admin sees the scope in the member list.
      await admin.page.reload();
      await admin.page
        .getByRole('region', { name: 'Members' })
        .getByRole('cell', { name: `${mineName} · de-DE` })
        .waitFor();
    } finally {
      await admin.context.close();
      await translator.close();
    }
  });
});

describe('small screens', () => {
  it('fits every page into 390 px: no sideways scrolling, the header wraps, nothing cut off', async () => {
    // A product with a long id in several locales: the products table scrolls inside its box.
    emu.appStore.purchases.load(APP_ID, [
      {
        productId: 'com.example.weather.radar.maps.lifetime',
        name: 'Radar maps, for ever (reference name)',
        localizations: Object.fromEntries(
          ['en-US', 'de-DE', 'fr-FR', 'es-ES', 'it', 'ja'].map((l) => [
            l,
            { name: 'Radar', description: 'Maps' },
          ]),
        ),
      },
    ]);
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    await org.admin.api.patch(`/api/v1/projects/${project}/listings/playstore/de-DE`, {
      fullDescription: 'Stündliche Vorhersagen. '.repeat(20),
    });
    const context = await browser.newContext({ baseURL: h.url, viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      const fits = async (path: string) => {
        const widths = await page.evaluate(() => {
          const g = globalThis as unknown as {
            document: { documentElement: { scrollWidth: number } };
            innerWidth: number;
          };
          return { page: g.document.documentElement.scrollWidth, view: g.innerWidth };
        });
        expect(widths.page, `${path} scrolls sideways`).toBeLessThanOrEqual(widths.view);
        await expectAccessible(page, `${path} at 390 px`);
      };
      // The pages before signing in: an invite, the sign-in.
      const invite = await org.admin.api.post('/api/v1/organization/members', {
        email: 'narrow@example.com',
        role: 'member',
      });
      await page.goto(`/invite/${invite.body.data.inviteId}`);
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await fits('/invite/…');
      await page.goto('/sign-in');
      await page.getByLabel('API key', { exact: true }).waitFor();
      await fits('/sign-in');
      await page.getByLabel('API key', { exact: true }).fill(org.admin.apiKey);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      for (const path of [
        '/projects',
        `/projects/${project}`,
        `/projects/${project}/listings/de-DE`,
        `/projects/${project}/media/playstore/en-US`,
        `/projects/${project}/media/appstore`,
        `/projects/${project}/operations`,
        `/projects/${project}/releases`,
        `/projects/${project}/products`,
        `/projects/${project}/calendar`,
        `/projects/${project}/translations`,
        `/projects/${project}/translations/de-DE`,
        '/organization',
        '/organization/webhooks',
        '/organization/translation',
        '/account',
      ]) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await page.waitForLoadState('networkidle');
        const signOut = (await page.getByRole('button', { name: 'Sign out', exact: true }).boundingBox())!;
        expect(signOut.x + signOut.width, `${path}: Sign out on screen`).toBeLessThanOrEqual(390);
        await fits(path);
      }
    } finally {
      await context.close();
    }
  });
});
