/**
 * Debian's Chromium (/usr/bin/chromium, or CHROMIUM_PATH) driven by playwright-core, which never
 * downloads a browser: headless, with the flags a machine without network needs. Used by the
 * browser tests and the dashboard benchmark.
 */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
