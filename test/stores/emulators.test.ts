/**
 * The emulators validate against the vendored copies in specs/; this proves those copies are the
 * official documents of ../shared/specs, byte for byte. Without the official folder the check
 * cannot be made, and that is a failure, not a pass: point APPMETA_SHARED_SPECS at the folder
 * when the checkout does not sit beside it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPECS_DIR } from '../../src/emulators/spec-validator.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** ../shared/specs beside this checkout, or beside the repository it was cloned from. */
function officialSpecsDir(): string {
  const candidates = [process.env.APPMETA_SHARED_SPECS, path.join(ROOT, '../shared/specs')];
  try {
    const origin = execFileSync('git', ['-C', ROOT, 'config', '--get', 'remote.origin.url'], {
      encoding: 'utf8',
    }).trim();
    if (origin !== '' && !/^[a-z]+:\/\//i.test(origin) && !origin.includes('@')) {
      candidates.push(path.join(path.resolve(ROOT, origin.replace(/^file:\/\//, '')), '../shared/specs'));
    }
  } catch {
    // not a git checkout, or no origin: the other candidates stand
  }
  const found = candidates.find((dir) => dir !== undefined && fs.existsSync(dir));
  if (found === undefined) {
    throw new Error(
      `The official specs were not found (looked in ${candidates.filter(Boolean).join(', ')}); ` +
        'set APPMETA_SHARED_SPECS to the folder holding them',
    );
  }
  return found;
}

const VENDORED = [
  'app-store-connect-api.openapi.json',
  'google-play-android-publisher-v3.discovery.json',
  'deepl-api.openapi.json',
];

describe('vendored store specs', () => {
  it('vendors every official spec the emulators use', () => {
    const official = fs.readdirSync(officialSpecsDir()).filter((file) => file.endsWith('.json'));
    expect(official.length).toBeGreaterThan(0);
    for (const file of VENDORED) expect(official).toContain(file);
  });

  it.each(VENDORED)('%s is byte-identical to the official document', (file) => {
    const vendored = fs.readFileSync(path.join(SPECS_DIR, file));
    const official = fs.readFileSync(path.join(officialSpecsDir(), file));
    expect(vendored.length).toBeGreaterThan(100_000);
    expect(vendored.equals(official)).toBe(true);
  });
});
