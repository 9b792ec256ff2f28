/**
 * Names of Object.prototype members are not listing fields or locales on any path: REST, MCP,
 * fastlane import and copy each refuse them by name, and nothing of them is stored or pushed.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPSTORE_FIELDS, PLAYSTORE_FIELDS, ruleOf } from '../../src/shared/listing-fields.js';
import { isPlan } from '../../src/modules/organizations/plans.js';
import { mapLocale } from '../../src/shared/stores.js';
import { startHarness, type Actor, type Harness } from '../support/harness.js';
import { buildZip, entry } from '../support/zip.js';

const NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty'];
const KNOWN = new Set([...Object.keys(APPSTORE_FIELDS), ...Object.keys(PLAYSTORE_FIELDS)]);

let h: Harness;
let admin: Actor;
let mcp: Client;
let project: string;

beforeAll(async () => {
  h = await startHarness();
  admin = (await h.given.organization()).admin;
  project = (await h.given.project(admin, { appStoreAppId: '1', playStorePackageName: 'com.example.app' }))
    .id;
  // A listing in each store to copy from.
  await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { name: 'Weather Pro' });
  await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/en-US`, { title: 'Weather Pro' });
  const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
  mcp = new Client({ name: 'prototype-names', version: '1.0.0' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${admin.apiKey}` } },
    }),
  );
});
afterAll(async () => {
  await mcp.close();
  await h.close();
});

/** Every field name stored for the project, and every locale: only real ones. */
async function expectNothingStored() {
  const fields = await h.db.kysely
    .selectFrom('listing_fields')
    .innerJoin('listings', 'listings.id', 'listing_fields.listing_id')
    .select(['listing_fields.field', 'listings.locale'])
    .where('listings.project_id', '=', project)
    .execute();
  expect(fields.length).toBeGreaterThan(0);
  expect(fields.filter((f) => !KNOWN.has(f.field))).toEqual([]);
  expect(fields.map((f) => f.locale).filter((l) => NAMES.includes(l))).toEqual([]);
  const diff = await admin.api.get(`/api/v1/projects/${project}/diff`);
  expect(JSON.stringify(diff.body.data.stores)).not.toMatch(/__proto__|constructor|toString|hasOwnProperty/);
}

// Raw JSON, so that "__proto__" travels as an own key the way an attacker sends it.
const rawPatch = (path: string, json: string) =>
  h.app.inject({
    method: 'PATCH',
    url: path,
    headers: { authorization: `Bearer ${admin.apiKey}`, 'content-type': 'application/json' },
    payload: json,
  });

describe.each(NAMES)('the name %s', (name) => {
  it('is refused as a field by PATCH /listings/:store/:locale, naming it', async () => {
    for (const store of ['appstore', 'playstore']) {
      const res = await rawPatch(
        `/api/v1/projects/${project}/listings/${store}/en-US`,
        `{${JSON.stringify(name)}: "injected"}`,
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details).toContainEqual({ field: name, message: 'is not a known field' });
    }
    await expectNothingStored();
  });

  it('is refused as a locale by PATCH /listings/:store/:locale', async () => {
    const res = await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/${name}`, {
      title: 'x',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(`"${name}" is not a Google Play locale`);
    await expectNothingStored();
  });

  it('is refused as a field by the MCP tool update_listing, naming it', async () => {
    const result = await mcp.callTool({
      name: 'update_listing',
      arguments: JSON.parse(
        `{"projectId": ${JSON.stringify(project)}, "store": "playstore", "locale": "en-US", "fields": {${JSON.stringify(name)}: "injected"}}`,
      ),
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain(name);
    await expectNothingStored();
  });

  it('is no locale folder to the fastlane import: skipped with the reason, the rest imported', async () => {
    for (const path of [
      `fastlane/metadata/${name}/name.txt`,
      `fastlane/metadata/android/${name}/title.txt`,
    ]) {
      const zip = buildZip([entry('fastlane/metadata/en-US/subtitle.txt', 'Rain'), entry(path, 'injected')]);
      const res = await h.app.inject({
        method: 'POST',
        url: `/api/v1/projects/${project}/import`,
        headers: { authorization: `Bearer ${admin.apiKey}`, 'content-type': 'application/zip' },
        payload: zip.buffer,
      });
      expect(res.statusCode).toBe(200);
      // The folder is what is wrong: it is reported as the archive has it, with why.
      expect(res.json().data.skipped).toEqual([
        {
          path: `${path.slice(0, path.lastIndexOf('/'))}/`,
          reason: expect.stringMatching(/^not an? .* locale folder/),
        },
      ]);
      expect(res.json().data.imported).toEqual([{ store: 'appstore', locale: 'en-US', fields: 1 }]);
    }
    await expectNothingStored();
  });

  it('is refused by copy as a field and as a target locale', async () => {
    const byField = await admin.api.post(`/api/v1/projects/${project}/listings/copy`, {
      from: { store: 'appstore', locale: 'en-US' },
      to: { store: 'playstore' },
      fields: [name],
    });
    expect(byField.status).toBe(400);
    expect(byField.body.error.details[0].field).toBe('fields[0]');
    const byLocale = await admin.api.post(`/api/v1/projects/${project}/listings/copy`, {
      from: { store: 'appstore', locale: 'en-US' },
      to: { store: 'playstore', locale: name },
    });
    expect(byLocale.status).toBe(400);
    expect(byLocale.body.error.details[0].field).toBe('to.locale');
    await expectNothingStored();
  });
});

describe('lookups by name in the domain tables', () => {
  it.each(NAMES)('%s is neither a plan, a mapped locale nor a field rule', (name) => {
    expect(isPlan(name)).toBe(false);
    expect(mapLocale('appstore', 'playstore', name)).toBeNull();
    expect(mapLocale('playstore', 'appstore', name)).toBeNull();
    expect(ruleOf('appstore', name)).toBeUndefined();
  });
});
