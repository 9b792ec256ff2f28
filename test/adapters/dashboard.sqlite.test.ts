/**
 * The dashboard in real Chromium (design.md §10): joining by invite link, passkeys, sign-in links,
 * projects, the listing editor with live limits, approvals by two people, dry run and push against
 * the store emulators, conflict resolution, read-only viewers, CSRF, removed members; axe-core on
 * every page. The server side is the same on both databases; these run on SQLite.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { APP_ID, PACKAGE, type RunningEmulators } from '../support/emulators.js';
import {
  addVirtualAuthenticator,
  screenshot,
  expectAccessible,
  organizationWithStores,
  signedInContext,
  syncedProject,
  startDashboard,
} from '../support/browser.js';
import type { Harness } from '../support/harness.js';
import { buildZip, entry } from '../support/zip.js';
import { distinctColour, image } from '../support/media.js';

// A browser flow takes seconds; the first page of a run also waits for Chromium to warm up.
vi.setConfig({ testTimeout: 60_000 });

const DEEPL_KEY = 'dashboard-deepl-key';
let browser: Browser;
let emu: RunningEmulators;
let h: Harness & { url: string };
let dashboard: Awaited<ReturnType<typeof startDashboard>> | undefined;

beforeAll(async () => {
  dashboard = await startDashboard({ deepl: { keys: [{ key: DEEPL_KEY }] } }, (emu) => ({
    DEEPL_API_URL: emu.url,
  }));
  ({ emu, h, browser } = dashboard);
}, 60_000);
afterAll(() => dashboard?.close());
beforeEach(() => emu.restore());

describe('joining and signing in', () => {
  it('joins by invite link, adds a passkey, signs out, and signs in again with the passkey', async () => {
    const org = await h.given.organization({ name: 'Acme Listings' });
    const invited = await org.admin.api.post('/api/v1/organization/members', {
      email: 'writer@example.com',
      role: 'member',
    });
    const context = await browser.newContext({ baseURL: h.url });
    try {
      const page = await context.newPage();
      await addVirtualAuthenticator(context, page);
      await page.goto(`/invite/${invited.body.data.inviteId}`);
      await expect
        .poll(() => page.getByRole('heading', { name: 'Join Acme Listings' }).isVisible())
        .toBe(true);
      await expect.poll(() => page.getByText('member', { exact: true }).isVisible()).toBe(true);
      await expectAccessible(page, 'invite');
      // Once accepted, the used invite is not asked for again (it would answer 409).
      const invitesAfter: number[] = [];
      let accepted = false;
      page.on('response', (response) => {
        if (accepted && /\/api\/dashboard\/invites\/[^/]+$/.test(new URL(response.url()).pathname)) {
          invitesAfter.push(response.status());
        }
        if (response.url().endsWith('/accept')) accepted = true;
      });
      await page.getByLabel('Name').fill('Wren Writer');
      await page.getByRole('button', { name: 'Accept' }).click();
      await page.getByRole('heading', { name: 'Welcome to Acme Listings' }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(invitesAfter).toEqual([]);
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByText('Passkey added.').waitFor();
      await page.getByRole('button', { name: 'Continue to the projects' }).click();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      // The used link says so in plain words, and what to do instead.
      await page.goto(`/invite/${invited.body.data.inviteId}`);
      await page.getByRole('heading', { name: 'This invite cannot be used' }).waitFor();
      await page
        .getByText(/This invite was already used on \d{4}-\d{2}-\d{2}\. An invite works once/)
        .waitFor();
      await page.goto('/projects');
      await page.getByRole('heading', { name: 'Projects' }).waitFor();

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to appmeta' }).waitFor();
      expect((await context.cookies()).find((c) => c.name === 'appmeta_session')).toBeUndefined();
      await expectAccessible(page, 'sign-in');

      await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
      await page.getByRole('heading', { name: 'Projects' }).waitFor();
      const cookie = (await context.cookies()).find((c) => c.name === 'appmeta_session')!;
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
      const me = await h
        .client(undefined, { cookie: `appmeta_session=${cookie.value}` })
        .get('/api/dashboard/session');
      expect(me.body.data.member).toMatchObject({ email: 'writer@example.com', name: 'Wren Writer' });
      const devices = await h
        .client(undefined, { cookie: `appmeta_session=${cookie.value}` })
        .get('/api/dashboard/sessions');
      expect(devices.body.data.sessions.find((s: { current: boolean }) => s.current).method).toBe('passkey');
    } finally {
      await context.close();
    }
  });

  it('signs in once with a sign-in link an admin made; the link cannot be used again', async () => {
    const org = await h.given.organization();
    const viewer = await h.given.member(org, 'viewer');
    const admin = await signedInContext(browser, h, org.admin.apiKey);
    const other = await browser.newContext({ baseURL: h.url });
    try {
      await admin.page.getByRole('link', { name: 'Organization' }).click();
      await admin.page.getByRole('button', { name: `Sign-in link for ${viewer.email}` }).click();
      const url = (await admin.page.locator('code', { hasText: '/sign-in/' }).textContent())!;
      expect(url.startsWith(`${h.url}/sign-in/asl_`)).toBe(true);

      const page = await other.newPage();
      await page.goto(url);
      await expectAccessible(page, 'sign-in link');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Account' }).waitFor();
      await expect.poll(() => page.getByText(viewer.email).first().isVisible()).toBe(true);

      const again = await browser.newContext({ baseURL: h.url });
      try {
        const second = await again.newPage();
        await second.goto(url);
        await second.getByRole('button', { name: 'Continue' }).click();
        await second.getByRole('alert').getByText('already used').waitFor();
      } finally {
        await again.close();
      }
    } finally {
      await admin.context.close();
      await other.close();
    }
  });

  it("ends a removed member's session: the open page hears it live and sends them to sign in", async () => {
    const org = await h.given.organization();
    const member = await h.given.member(org, 'member');
    const { context, page } = await signedInContext(browser, h, member.apiKey);
    try {
      // The page listens to the organization's events before the admin acts.
      const listening = page.waitForResponse((response) => response.url().endsWith('/api/v1/events'));
      await page.reload();
      expect((await listening).status()).toBe(200);
      expect((await org.admin.api.delete(`/api/v1/organization/members/${member.id}`)).status).toBe(200);
      await page.getByRole('heading', { name: 'Sign in to appmeta' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/sign-in');
    } finally {
      await context.close();
    }
  });
});

describe('projects and listings', () => {
  it('creates a project with the keyboard alone and shows its locale × store matrix', async () => {
    const org = await organizationWithStores(h, emu);
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await expectAccessible(page, 'projects');
      await page.getByRole('button', { name: 'New project' }).focus();
      await page.keyboard.press('Enter');
      await page.getByLabel('Project name').focus();
      await page.keyboard.type('Weather Pro');
      await page.keyboard.press('Tab');
      await page.keyboard.type(APP_ID);
      await page.keyboard.press('Tab');
      await page.keyboard.type(PACKAGE);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Weather Pro' }).waitFor();
      await page.getByRole('button', { name: 'Sync from the stores' }).click();
      await page.getByText(/Synced locales: .*en-US/).waitFor();
      await page.getByRole('link', { name: 'en-US', exact: true }).waitFor();
      await expectAccessible(page, 'project');
      await screenshot(page, 'project');
      await page.getByRole('link', { name: 'Projects' }).click();
      await page.getByRole('link', { name: 'Weather Pro' }).waitFor();
      await screenshot(page, 'projects');
    } finally {
      await context.close();
    }
  });

  it('shows the limit live, refuses to save over it, then saves a valid value', async () => {
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${project}/listings/en-US`);
      const subtitle = page.getByRole('group', { name: 'App Store' }).getByLabel('Subtitle', { exact: true });
      await subtitle.waitFor();
      await expectAccessible(page, 'editor');
      await subtitle.fill('Forecasts that matter to every single traveller');
      await page.getByText('47 / 30').waitFor();
      await page.getByText('Subtitle must be at most 30 characters (has 47)').waitFor();
      expect(await page.getByRole('button', { name: 'Save' }).isDisabled()).toBe(true);
      expect(await subtitle.getAttribute('aria-invalid')).toBe('true');

      // Advice on the keywords shows at the Keywords field, not at the end of the form.
      const apple = page.getByRole('group', { name: 'App Store' });
      const keywords = apple.getByLabel('Keywords', { exact: true });
      await keywords.fill('rain, radar,rain');
      const advice = apple.getByRole('list', { name: 'Keywords warnings' });
      await advice.getByText('Keywords has spaces around commas', { exact: false }).waitFor();
      await advice.getByText('Keywords repeats "rain"', { exact: false }).waitFor();
      expect(await keywords.getAttribute('aria-describedby')).toContain('appstore-keywords-warnings');
      const field = (await keywords.boundingBox())!;
      const list = (await advice.boundingBox())!;
      expect(list.y - (field.y + field.height)).toBeLessThan(80);
      await keywords.fill('');

      await subtitle.fill('Forecasts for travellers');
      await page.getByText('24 / 30').waitFor();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      await screenshot(page, 'editor');
      const listing = await org.admin.api.get(`/api/v1/projects/${project}/listings/appstore/en-US`);
      expect(listing.body.data.listing.fields.subtitle).toMatchObject({
        value: 'Forecasts for travellers',
        state: 'modified',
      });
    } finally {
      await context.close();
    }
  });

  it('resolves a conflict after a store-side change: take the store’s value', async () => {
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    await org.admin.api.patch(`/api/v1/projects/${project}/listings/playstore/de-DE`, {
      shortDescription: 'Unsere Vorhersagen',
    });
    emu.play.apps.get(PACKAGE)!.listings.set('de-DE', {
      language: 'de-DE',
      title: 'Wetter Pro',
      shortDescription: 'Console-Text',
      fullDescription: 'Stündlich.',
    });
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${project}`);
      await page.getByRole('button', { name: 'Sync from the stores' }).click();
      await page.getByText('Conflicts: 1.').waitFor();
      await page.getByRole('link', { name: 'de-DE', exact: true }).click();
      const conflict = page.getByRole('group', { name: 'Conflict in Short description' });
      await conflict.getByText('Console-Text').waitFor();
      await conflict.getByRole('button', { name: 'Take the store’s' }).click();
      await conflict.waitFor({ state: 'detached' });
      const listing = await org.admin.api.get(`/api/v1/projects/${project}/listings/playstore/de-DE`);
      expect(listing.body.data.listing.fields.shortDescription).toMatchObject({
        value: 'Console-Text',
        state: 'unchanged',
      });
    } finally {
      await context.close();
    }
  });
});

describe('fastlane in the browser', () => {
  it('uploads a fastlane zip into the listings, and downloads them as one', async () => {
    const org = await h.given.organization();
    const { id } = await h.given.project(org.admin, { appStoreAppId: APP_ID });
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${id}`);
      const zip = buildZip([entry('fastlane/metadata/fr-FR/subtitle.txt', 'Prévisions utiles')]);
      await page.getByLabel('Import fastlane metadata (.zip or .tar.gz)').setInputFiles({
        name: 'metadata.zip',
        mimeType: 'application/zip',
        buffer: zip.buffer,
      });
      await page.getByText('Imported App Store fr-FR (1 field).').waitFor();
      await page.getByRole('link', { name: 'fr-FR', exact: true }).waitFor();
      const listing = await org.admin.api.get(`/api/v1/projects/${id}/listings/appstore/fr-FR`);
      expect(listing.body.data.listing.fields.subtitle.value).toBe('Prévisions utiles');

      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Download as fastlane metadata (zip)' }).click();
      expect((await download).suggestedFilename()).toMatch(/\.zip$/);
    } finally {
      await context.close();
    }
  });
});

describe('media in the browser', () => {
  it('uploads screenshots, reorders by dragging, removes, and uses them for all locales', async () => {
    const org = await h.given.organization();
    const { id } = await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE });
    for (const locale of ['en-US', 'de-DE', 'fr-FR']) {
      await org.admin.api.patch(`/api/v1/projects/${id}/listings/playstore/${locale}`, {
        title: `App ${locale}`,
      });
    }
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${id}`);
      await page.getByRole('link', { name: 'Google Play en-US screenshots' }).click();
      await page.getByRole('heading', { name: 'Screenshots and previews · Google Play · en-US' }).waitFor();
      await page.getByLabel('Slot').selectOption('phoneScreenshots');
      // Slots read as people call them.
      expect(await page.getByLabel('Slot').locator('option:checked').textContent()).toBe('Phone');
      await page.getByText('each side 320–3840 px').waitFor();
      const files = await Promise.all(
        ['one.png', 'two.png', 'three.png'].map(async (name) => ({
          name,
          mimeType: 'image/png',
          buffer: await image({ width: 1080, height: 1920, colour: distinctColour() }),
        })),
      );
      await page.getByLabel('Upload to phoneScreenshots').setInputFiles(files);
      const list = page.getByRole('list', { name: 'phoneScreenshots files in order' });
      await list.getByRole('img', { name: '3. three.png' }).waitFor();
      await expectAccessible(page, 'media editor');

      // A wrong size is refused with the rule and the file's values, and stores nothing.
      await page.getByLabel('Upload to phoneScreenshots').setInputFiles({
        name: 'wide.png',
        mimeType: 'image/png',
        buffer: await image({ width: 3000, height: 1000, colour: distinctColour() }),
      });
      await page
        .getByRole('alert')
        .getByText(/3000×1000/)
        .first()
        .waitFor();

      await list
        .getByRole('img', { name: '3. three.png' })
        .dragTo(list.getByRole('img', { name: '1. one.png' }));
      await list.getByRole('img', { name: '1. three.png' }).waitFor();
      await page.getByRole('button', { name: 'Move one.png later' }).click();
      await list.getByRole('img', { name: '3. one.png' }).waitFor();
      await page.getByRole('button', { name: 'Remove two.png' }).click();
      await list.getByRole('img', { name: '2. one.png' }).waitFor();
      const slot = await org.admin.api.get(`/api/v1/projects/${id}/media?store=playstore&locale=en-US`);
      expect(slot.body.data.slots[0].items.map((i: { fileName: string }) => i.fileName)).toEqual([
        'three.png',
        'one.png',
      ]);

      await page.getByRole('button', { name: 'Use these for all locales' }).click();
      await page.getByText('Copied to de-DE, fr-FR.').waitFor();
      const german = await org.admin.api.get(`/api/v1/projects/${id}/media?store=playstore&locale=de-DE`);
      expect(german.body.data.slots[0].items.map((i: { sha256: string }) => i.sha256)).toEqual(
        slot.body.data.slots[0].items.map((i: { sha256: string }) => i.sha256),
      );
    } finally {
      await context.close();
    }
  });
});

describe('approval and push', () => {
  it('needs an admin’s approval, then pushes after a dry-run preview with per-locale results', async () => {
    const org = await organizationWithStores(h, emu);
    expect(
      (await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } })).status,
    ).toBe(200);
    const member = await h.given.member(org, 'member');
    const project = await syncedProject(h, org.admin);
    const writer = await signedInContext(browser, h, member.apiKey);
    const reviewer = await signedInContext(browser, h, org.admin.apiKey);
    try {
      const page = writer.page;
      await page.goto(`/projects/${project}/listings/en-US`);
      const promo = page.getByRole('group', { name: 'App Store' }).getByLabel('Promotional text');
      await promo.fill('Storm season: alerts for every street.');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved.').waitFor();
      await page.getByRole('link', { name: '← Back to the project' }).click();
      await page.getByText('These changes need an admin’s approval before they can be pushed.').waitFor();
      expect(await page.getByRole('button', { name: 'Approve these changes' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Push to the stores…' }).click();
      const confirm = page.getByRole('dialog', { name: 'Confirm the push' });
      await confirm.getByText('It needs an admin’s approval first.').waitFor();
      expect(await confirm.getByRole('button', { name: 'Push now' }).count()).toBe(0);
      await confirm.getByRole('button', { name: 'Cancel' }).click();
      // The server is the guard, not the page.
      const refused = await page.evaluate(async (path) => {
        const res = await fetch(path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Appmeta-CSRF': '1' },
          body: '{}',
        });
        return ((await res.json()) as { error: { code: string } }).error.code;
      }, `/api/v1/projects/${project}/push`);
      expect(refused).toBe('APPROVAL_REQUIRED');

      await reviewer.page.goto(`/projects/${project}`);
      await reviewer.page.getByText('Storm season: alerts for every street.').waitFor();
      await expectAccessible(reviewer.page, 'project with pending changes');
      await reviewer.page.getByRole('button', { name: 'Approve these changes' }).click();
      await reviewer.page.getByText(/Approved by/).waitFor();

      await page.reload();
      await page.getByText(/Approved by Admin/).waitFor();
      await page.getByRole('button', { name: 'Push to the stores…' }).click();
      await page
        .getByRole('dialog', { name: 'Confirm the push' })
        .getByText('App Store: 1 text field')
        .waitFor();
      await page.getByRole('button', { name: 'Push now' }).click();
      const result = page.getByRole('status', { name: 'Push result' });
      await result.getByText('Push result: succeeded').waitFor();
      expect(await result.getByRole('row', { name: /App Store en-US 1 0 0 0 0/ }).count()).toBe(1);
      expect(emu.appStore.snapshot(APP_ID)['ver-2']!.versions['en-US']!.promotionalText).toBe(
        'Storm season: alerts for every street.',
      );
    } finally {
      await writer.context.close();
      await reviewer.context.close();
    }
  });
});

describe('release notes', () => {
  it('edits Google Play notes with a live 500-character counter, reviews them and pushes them', async () => {
    const app = emu.play.apps.get(PACKAGE)!;
    app.artifacts = new Map([['11', '1.1']]);
    app.tracks = new Map([['production', [{ name: '11 (1.1)', versionCodes: ['11'], status: 'completed' }]]]);
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${project}/releases`);
      await page
        .getByRole('list', { name: 'App Store versions' })
        .getByText('1.1 · Prepare for submission · being prepared')
        .waitFor();
      const notes = page.getByLabel('Release notes (en-US)', { exact: true });
      await notes.waitFor();
      await expectAccessible(page, 'releases');
      await notes.fill('x'.repeat(501));
      await page.getByText('501 / 500').waitFor();
      const save = page.getByRole('button', { name: 'Save Release notes (en-US)' });
      expect(await save.isDisabled()).toBe(true);
      await notes.fill('Radar maps for every street.');
      await page.getByText('28 / 500').waitFor();
      await save.click();
      await page.getByText('modified').first().waitFor();

      await page.getByRole('link', { name: '← Project' }).click();
      await page.getByText('Google Play release notes · production · version 11').waitFor();
      await page.getByRole('button', { name: 'Push to the stores…' }).click();
      await page
        .getByRole('dialog', { name: 'Confirm the push' })
        .getByText('Google Play: 1 release note')
        .waitFor();
      await page.getByRole('button', { name: 'Push now' }).click();
      await page.getByRole('status', { name: 'Push result' }).getByText('Push result: succeeded').waitFor();
      await expect
        .poll(() => emu.play.apps.get(PACKAGE)!.tracks.get('production')![0]!.releaseNotes)
        .toEqual([{ language: 'en-US', text: 'Radar maps for every street.' }]);
    } finally {
      await context.close();
    }
  });
});

describe('translations', () => {
  it('shows what went stale with the source’s changes, drafts by machine, and accepts a draft', async () => {
    const org = await organizationWithStores(h, emu);
    await org.admin.api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: DEEPL_KEY });
    const project = await syncedProject(h, org.admin);
    const edited = await org.admin.api.patch(`/api/v1/projects/${project}/listings/playstore/en-US`, {
      shortDescription: 'Forecasts you can trust',
      fullDescription: 'Hourly forecasts and radar.',
    });
    expect(edited.status).toBe(200);
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.goto(`/projects/${project}`);
      await page
        .getByRole('link', { name: 'Missing and outdated translations, XLIFF, machine drafts' })
        .click();
      const table = page.getByRole('table', { name: 'Translation states' });
      await table.waitFor();
      await expectAccessible(page, 'translations');
      await table.getByRole('link', { name: 'de-DE' }).first().click();
      const diff = page.getByLabel('Changes to the source since it was translated').first();
      await diff.waitFor();
      expect(await diff.locator('del').allTextContents()).toContain('that');
      expect(await diff.locator('ins').allTextContents()).toContain('you');
      await expectAccessible(page, 'translations of a locale');
      await screenshot(page, 'translations');

      const short = page.getByLabel('Short description (de-DE)');
      await short.fill('x'.repeat(81));
      await page.getByText('81 / 80').waitFor();
      await short.fill('Vorhersagen, denen Sie trauen');
      await page.getByText('29 / 80').waitFor();

      await page.getByRole('button', { name: 'Machine-translate missing and outdated fields' }).click();
      await page
        .getByRole('status')
        .getByText(/drafts \(\d+ characters\)/)
        .waitFor();
      await page.getByRole('button', { name: 'Accept draft' }).first().waitFor();
      const drafted = await org.admin.api.get(`/api/v1/projects/${project}/translations/de-DE`);
      const draftedFields = drafted.body.data.entries
        .filter((e: { draft: unknown }) => e.draft !== null)
        .map((e: { store: string; field: string }) => `${e.store}/${e.field}`);
      expect(draftedFields).toContain('playstore/shortDescription');
      await page.getByRole('button', { name: 'Accept draft' }).first().click();
      await expect
        .poll(async () => {
          const after = await org.admin.api.get(`/api/v1/projects/${project}/translations/de-DE`);
          return after.body.data.entries.filter((e: { draft: unknown }) => e.draft !== null).length;
        })
        .toBe(draftedFields.length - 1);
    } finally {
      await context.close();
    }
  });
});

describe('roles and forgery', () => {
  it('shows a viewer read-only pages, and the server refuses what the page would not offer', async () => {
    const org = await organizationWithStores(h, emu);
    const project = await syncedProject(h, org.admin);
    const viewer = await h.given.member(org, 'viewer');
    const { context, page } = await signedInContext(browser, h, viewer.apiKey);
    try {
      expect(await page.getByRole('button', { name: 'New project' }).count()).toBe(0);
      await page.goto(`/projects/${project}/listings/en-US`);
      const name = page.getByRole('group', { name: 'App Store' }).getByLabel('App name');
      await name.waitFor();
      expect(await name.getAttribute('readonly')).not.toBeNull();
      expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Organization' }).click();
      await page.getByRole('heading', { name: 'Organization' }).waitFor();
      await expectAccessible(page, 'organization (viewer)');

      // The viewer's own session, with the header and origin a page of the dashboard sends.
      const forged = await page.evaluate(async (path) => {
        const res = await fetch(path, {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/json', 'X-Appmeta-CSRF': '1' },
          body: JSON.stringify({ name: 'Hacked' }),
        });
        return { status: res.status, body: (await res.json()) as { error: { code: string } } };
      }, `/api/v1/projects/${project}/listings/appstore/en-US`);
      expect(forged.status).toBe(403);
      expect(forged.body.error.code).toBe('FORBIDDEN');
    } finally {
      await context.close();
    }
  });

  it('refuses a cross-site form post that carries the session cookie', async () => {
    const org = await h.given.organization();
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      const before = (await org.admin.api.get('/api/v1/projects')).body.data.total;
      // A page on another site (127.0.0.1 is another site than localhost) posts a form to the API.
      const evil = h.url.replace('localhost', '127.0.0.1');
      await page.goto(`${evil}/healthz`);
      const posted = page.waitForURL(`${h.url}/api/v1/projects`);
      // A text/plain form can carry a JSON-looking body; no page of another site can add headers.
      await page.setContent(
        `<form method="POST" action="${h.url}/api/v1/projects" enctype="text/plain">` +
          `<input name='{"name":"Forged","x":"' value='"}'><button>Win a prize</button></form>`,
      );
      await page.getByRole('button', { name: 'Win a prize' }).click();
      await posted;
      expect(await page.locator('body').textContent()).toMatch(/"success":false/);
      expect((await org.admin.api.get('/api/v1/projects')).body.data.total).toBe(before);
    } finally {
      await context.close();
    }
  });
});

describe('every page', () => {
  it('passes axe on the organization and account pages of an admin; passkeys and devices from Account', async () => {
    const org = await organizationWithStores(h, emu);
    await h.given.member(org, 'member');
    const { context, page } = await signedInContext(browser, h, org.admin.apiKey);
    try {
      await page.getByRole('link', { name: 'Organization' }).click();
      await page.getByRole('heading', { name: 'Members' }).waitFor();
      await page.getByRole('heading', { name: 'Audit log' }).waitFor();
      // The stored keys say which they are (never their secrets).
      const appleKey = page.getByLabel('App Store Connect key in use');
      await appleKey.getByText(emu.credentials.appstore.keyId, { exact: true }).waitFor();
      await appleKey.getByText(emu.credentials.appstore.issuerId, { exact: true }).waitFor();
      const account = emu.credentials.playstore.serviceAccount as { client_email: string };
      await page.getByLabel('Google Play key in use').getByText(account.client_email).waitFor();
      await expectAccessible(page, 'organization');
      await screenshot(page, 'organization');
      await page.getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Signed-in devices' }).waitFor();
      await expectAccessible(page, 'account');

      // A passkey added and removed from Account; then "sign out everywhere" ends this session too.
      await addVirtualAuthenticator(context, page);
      await page.getByLabel('Passkey name').fill('Work laptop');
      await page.getByRole('button', { name: 'Add a passkey' }).click();
      await page.getByRole('button', { name: 'Remove passkey Work laptop' }).click();
      await page.getByText('No passkey yet.').waitFor();
      // Both are in the audit log, by name (the role matrix cannot register a real passkey).
      for (const action of ['dashboard.passkeys.register', 'dashboard.passkeys.delete']) {
        const log = await org.admin.api.get(`/api/v1/organization/audit-log?action=${action}`);
        expect(log.body.data.entries, action).toHaveLength(1);
        expect(log.body.data.entries[0].actor).toMatchObject({ memberId: org.admin.id, name: 'Admin' });
      }
      await page.getByRole('button', { name: 'Sign out everywhere' }).click();
      await page.getByRole('heading', { name: 'Sign in to appmeta' }).waitFor();
      const sessions = await org.admin.api.get('/api/dashboard/sessions');
      expect(sessions.body.data.sessions.filter((s: { method: string }) => s.method === 'api-key')).toEqual(
        [],
      );
    } finally {
      await context.close();
    }
  });
});
