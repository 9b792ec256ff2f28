import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SPECS_DIR } from '../src/emulators/spec-validator.js';

const SHARED = path.resolve(import.meta.dirname, '../../shared/specs');

describe('vendored store specs', () => {
  it.each(['app-store-connect-api.openapi.json', 'google-play-android-publisher-v3.discovery.json'])(
    '%s is identical to ../shared/specs when that folder is present',
    (file) => {
      const vendored = fs.readFileSync(path.join(SPECS_DIR, file));
      if (fs.existsSync(path.join(SHARED, file))) {
        expect(vendored.equals(fs.readFileSync(path.join(SHARED, file)))).toBe(true);
      }
      expect(vendored.length).toBeGreaterThan(100_000);
    },
  );
});
