/**
 * Scenario 5 of `npm run bench`: the dashboard in headless Chromium on this machine — the first
 * load of the projects page to content (a fresh browser context each time: nothing cached), the
 * JavaScript that page ships (gzip), and the time from a keystroke in the listing editor to the
 * updated character counter (keydown to the counter's DOM change, measured inside the page).
 */
import { freePort } from '../test/support/ports.js';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDb } from '../src/db/database.js';
import { WEB_ROOT } from '../src/http/dashboard.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { launchChromium } from '../test/support/chromium.js';

export interface DashboardResult {
  firstLoadMs: { p50: number; max: number; runs: number };
  javascriptGzipBytes: number;
  keystrokeMs: { p50: number; p95: number; max: number; keystrokes: number };
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const round = (n: number) => Math.round(n * 10) / 10;

/**
 * The gzip size of every script index.html loads — its entry and the modules it preloads — what
 * the projects page ships; the other pages' chunks load when first opened.
 */
function javascriptGzipBytes(): number {
  const html = fs.readFileSync(path.join(WEB_ROOT, 'index.html'), 'utf8');
  return [
    ...html.matchAll(/<script[^>]*src="\/([^"]+)"/g),
    ...html.matchAll(/<link rel="modulepreload"[^>]*href="\/([^"]+)"/g),
  ]
    .map((m) => zlib.gzipSync(fs.readFileSync(path.join(WEB_ROOT, m[1]!))).length)
    .reduce((a, b) => a + b, 0);
}

export async function runDashboard(): Promise<DashboardResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-bench-web-'));
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const config = loadConfig({
    DATABASE_URL: `file:${path.join(dir, 'bench.db')}`,
    APPMETA_SECRET_KEY: randomBytes(32).toString('base64'),
    PUBLIC_URL: url,
    LOG_LEVEL: 'warn',
  });
  const db = createDb(config.database);
  await migrateToLatest(db);
  const { app, services } = await buildApp({ config, db });
  const browser = await launchChromium();
  try {
    await app.listen({ port, host: '127.0.0.1' });
    const created = await services.organizations.create(
      { name: 'Bench', adminEmail: 'bench@example.com', adminName: 'Bench', plan: 'enterprise' },
      'bench',
    );
    const headers = { authorization: `Bearer ${created.apiKey}`, 'content-type': 'application/json' };
    let projectId = '';
    for (let i = 0; i < 50; i++) {
      const res = await app.inject({
        method: 'POST',
        url: '/api/v1/projects',
        headers,
        payload: { name: `App ${i}` },
      });
      projectId = res.json<{ data: { projectId: string } }>().data.projectId;
    }
    await app.inject({
      method: 'PATCH',
      url: `/api/v1/projects/${projectId}/listings/appstore/en-US`,
      headers,
      payload: { name: 'Weather Pro', description: 'Hourly forecasts.' },
    });
    const signIn = await app.inject({
      method: 'POST',
      url: '/api/dashboard/session',
      headers,
      payload: { apiKey: created.apiKey },
    });
    const token = /appmeta_session=([^;]+)/.exec(String(signIn.headers['set-cookie']))![1]!;
    const cookie = { name: 'appmeta_session', value: token, url };

    const loads: number[] = [];
    for (let run = 0; run < 11; run++) {
      const context = await browser.newContext();
      await context.addCookies([cookie]);
      const page = await context.newPage();
      const started = performance.now();
      await page.goto(`${url}/projects`);
      await page.getByRole('link', { name: 'App 49' }).waitFor();
      // The first run also warms Chromium itself up; it is not a page load to count.
      if (run > 0) loads.push(performance.now() - started);
      await context.close();
    }

    const context = await browser.newContext();
    await context.addCookies([cookie]);
    const page = await context.newPage();
    await page.goto(`${url}/projects/${projectId}/listings/en-US`);
    const description = page.getByRole('group', { name: 'App Store' }).getByLabel('Description');
    await description.waitFor();
    await page.evaluate(`(() => {
      const input = document.getElementById('appstore-description');
      const counter = document.getElementById('appstore-description-count');
      window.__lags = [];
      let pressed = 0;
      input.addEventListener('keydown', () => { pressed = performance.now(); }, true);
      new MutationObserver(() => { if (pressed) { window.__lags.push(performance.now() - pressed); pressed = 0; } })
        .observe(counter, { childList: true, characterData: true, subtree: true });
    })()`);
    await description.click();
    await page.keyboard.press('End');
    for (let i = 0; i < 200; i++) await page.keyboard.type('a');
    const lags = await page.evaluate<number[]>('window.__lags');
    await context.close();

    return {
      firstLoadMs: { p50: round(quantile(loads, 0.5)), max: round(Math.max(...loads)), runs: loads.length },
      javascriptGzipBytes: javascriptGzipBytes(),
      keystrokeMs: {
        p50: round(quantile(lags, 0.5)),
        p95: round(quantile(lags, 0.95)),
        max: round(Math.max(...lags)),
        keystrokes: lags.length,
      },
    };
  } finally {
    await browser.close();
    await app.close();
    await db.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
