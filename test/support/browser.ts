/**
 * Real Chromium for the dashboard's tests: Debian's /usr/bin/chromium driven by playwright-core
 * (no browser is ever downloaded), headless, with the flags a machine without network needs.
 * Also: the service listening on a real port with PUBLIC_URL = that address, and axe-core.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { EmulatorSeed } from '../../src/emulators/server.js';
import { launchChromium } from './chromium.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from './emulators.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from './harness.js';
import { freePort } from './ports.js';

export { launchChromium } from './chromium.js';

/** The service on http://localhost:<port>, the address its PUBLIC_URL names (cookies, CSRF, WebAuthn). */
export async function startListeningHarness(
  env: Record<string, string> = {},
  options: { worker?: boolean } = {},
): Promise<Harness & { url: string }> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const h = await startHarness({ env: { ...env, PUBLIC_URL: url }, ...options });
  await h.app.listen({ port, host: '127.0.0.1' });
  return Object.assign(h, { url });
}

/** A signed-in browser context: the session cookie of an API key sign-in, as the sign-in page sets it. */
export async function signedInContext(
  browser: Browser,
  h: Harness & { url: string },
  apiKey: string,
  options: { timezoneId?: string; locale?: string } = {},
) {
  const context = await browser.newContext({ baseURL: h.url, ...options });
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByLabel('API key', { exact: true }).fill(apiKey);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  return { context, page };
}

/** A virtual platform authenticator (Chrome DevTools Protocol) that answers passkey prompts. */
export async function addVirtualAuthenticator(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
}

const AXE_SOURCE = fs.readFileSync(
  path.join(path.dirname(createRequire(import.meta.url).resolve('axe-core')), 'axe.min.js'),
  'utf8',
);

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's violations of impact serious or critical on the page as it is. axe is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** With APPMETA_SCREENSHOTS=1, the page as it looks goes to docs/images/<name>.png for the README. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.APPMETA_SCREENSHOTS !== '1') return;
  await page.screenshot({
    path: path.join(import.meta.dirname, '..', '..', 'docs', 'images', `${name}.png`),
    fullPage: true,
  });
}

/** Fails with the page's serious and critical axe violations, naming the page. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([]);
}

/** An organization whose store credentials are the emulators'. */
export async function organizationWithStores(h: Harness, emu: RunningEmulators): Promise<TestOrganization> {
  const org = await h.given.organization();
  for (const store of ['appstore', 'playstore'] as const) {
    const res = await org.admin.api.request(
      'PUT',
      `/api/v1/organization/credentials/${store}`,
      emu.credentials[store],
    );
    expect(res.status).toBe(200);
  }
  return org;
}

/** A project of the emulators' app in both stores, synced once. */
export async function syncedProject(h: Harness, admin: Actor): Promise<string> {
  const { id } = await h.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE });
  expect((await admin.api.post(`/api/v1/projects/${id}/sync`, {})).status).toBe(200);
  return id;
}

/**
 * What a file of dashboard tests runs against: the store emulators (with `seed`), the service
 * listening, with its workers as `appmeta serve` runs it (the dashboard pushes in the
 * background), and Chromium. `env` adds variables given the emulators (a DeepL URL).
 */
export async function startDashboard(
  seed: EmulatorSeed = {},
  env: (emu: RunningEmulators) => Record<string, string> = () => ({}),
) {
  const emu = await startEmulators(seed);
  const h = await startListeningHarness({ ...emu.env, ...env(emu) }, { worker: true });
  const browser = await launchChromium();
  return {
    emu,
    h,
    browser,
    async close() {
      await browser.close();
      await h.close();
      await emu.close();
    },
  };
}
