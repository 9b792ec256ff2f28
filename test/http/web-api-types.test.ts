/**
 * The dashboard talks to the API through types generated from the service's own OpenAPI document
 * (web/src/api/schema.d.ts). This fails when a route changed and `npm run web:types` was not run.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, generateApiTypes } from '../../scripts/api-types.js';

describe("the dashboard's API types", () => {
  it('match the OpenAPI document the service serves today (run npm run web:types after a route change)', async () => {
    const generated = await generateApiTypes();
    expect(generated).toContain('"/api/dashboard/session"');
    expect(fs.readFileSync(API_TYPES_FILE, 'utf8') === generated, 'web/src/api/schema.d.ts is stale').toBe(
      true,
    );
  });
});
