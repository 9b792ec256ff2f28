/**
 * One rule for text on every path, the same answer on SQLite and PostgreSQL (the suite runs this
 * file on both): no control characters but tab and line breaks, no unpaired surrogates, no name
 * or listing text that shows nothing, UTF-8 only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Actor, type Harness } from '../support/harness.js';
import { buildZip, entry } from '../support/zip.js';

let h: Harness;
let admin: Actor;
let project: string;

beforeAll(async () => {
  h = await startHarness();
  admin = (await h.given.organization()).admin;
  project = (await h.given.project(admin, { appStoreAppId: '1', playStorePackageName: 'com.example.app' }))
    .id;
});
afterAll(() => h.close());

const raw = (
  method: 'POST' | 'PATCH',
  url: string,
  payload: string | Buffer,
  contentType = 'application/json',
) =>
  h.app.inject({
    method,
    url,
    headers: { authorization: `Bearer ${admin.apiKey}`, 'content-type': contentType },
    payload,
  });

describe('control characters, surrogates and invisible names in JSON bodies', () => {
  it.each([
    ['a NUL', 'a\\u0000b', 'must not contain the NUL character'],
    ['a C0 control', 'a\\u0001b', 'must not contain control characters (U+0001 at character 2)'],
    ['a backspace escape', 'a\\bb', 'must not contain control characters (U+0008 at character 2)'],
    ['DEL', 'a\\u007fb', 'must not contain control characters (U+007F at character 2)'],
    ['a C1 control', 'a\u0085b', 'must not contain control characters (U+0085 at character 2)'],
    ['a lone CR', 'a\\rb', 'must not contain control characters (U+000D at character 2)'],
    ['an unpaired surrogate', 'a\\ud800b', 'must not contain an unpaired surrogate (U+D800 at character 2)'],
    [
      'a trailing low surrogate',
      'ab\\udc00',
      'must not contain an unpaired surrogate (U+DC00 at character 3)',
    ],
  ])('refuses %s in any string with 400 naming the field', async (_what, text, message) => {
    const res = await raw('POST', '/api/v1/projects', `{"name": "${text}"}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: [{ field: 'name', message: expect.stringContaining(message) }],
    });
  });

  it('names nested fields and keys', async () => {
    const nested = await raw(
      'PATCH',
      '/api/v1/organization',
      '{"settings": {"allowedDomains": ["ok.com", "b\\u0002.com"]}}',
    );
    expect(nested.statusCode).toBe(400);
    expect(nested.json().error.details[0].field).toBe('settings.allowedDomains[1]');
    const key = await raw('POST', '/api/v1/projects', '{"na\\u0003me": "x"}');
    expect(key.statusCode).toBe(400);
    expect(key.json().error.details[0].message).toMatch(/^field names must not contain control characters/);
  });

  it('accepts tabs, line feeds and CR LF in multi-line texts, and a paired surrogate (emoji)', async () => {
    const res = await raw(
      'PATCH',
      `/api/v1/projects/${project}/listings/appstore/en-US`,
      '{"description": "Line one\\r\\nLine two\\n\\tindented", "subtitle": "Sun \\ud83c\\udf1e"}',
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.listing.fields.description.value).toBe('Line one\r\nLine two\n\tindented');
    expect(res.json().data.listing.fields.subtitle.value).toBe('Sun 🌞');
  });

  it('refuses line breaks in single-line fields', async () => {
    const res = await admin.api.patch(`/api/v1/projects/${project}/listings/playstore/en-US`, {
      title: 'Two\nlines',
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([{ field: 'title', message: expect.stringContaining('U+000A') }]);
  });

  it.each([
    ['zero-width spaces', '\u200b\u200b'],
    ['bidi controls', '\u202e\u2066\u2069'],
    ['a Hangul filler', '\u3164'],
    ['a byte-order mark and spaces', '\ufeff  \u00a0'],
  ])('refuses a name of only %s', async (_what, name) => {
    for (const [method, url, body] of [
      ['POST', '/api/v1/projects', { name }],
      ['PATCH', '/api/v1/organization', { name }],
      ['POST', '/api/v1/api-keys', { name }],
      ['PATCH', `/api/v1/projects/${project}/listings/appstore/en-US`, { name }],
    ] as const) {
      const res = await admin.api.request(method, url, body);
      expect(res.status, `${method} ${url}`).toBe(400);
      expect(res.body.error.details[0]).toMatchObject({ field: 'name' });
      expect(res.body.error.details[0].message).toMatch(/must (contain a visible character|not be empty)/);
    }
  });
});

describe('encodings', () => {
  it('refuses a charset other than UTF-8 with 415', async () => {
    const res = await raw(
      'POST',
      '/api/v1/projects',
      Buffer.from('{"name": "Caf\xe9"}', 'latin1'),
      'application/json; charset=ISO-8859-1',
    );
    expect(res.statusCode).toBe(415);
    expect(res.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('ISO-8859-1'),
    });
    const utf8 = await raw('POST', '/api/v1/projects', '{"name": "Café"}', 'application/json; charset=utf-8');
    expect(utf8.statusCode).toBe(201);
  });

  it('refuses bytes that are not UTF-8 with 400', async () => {
    const res = await raw(
      'POST',
      '/api/v1/projects',
      Buffer.from([...Buffer.from('{"name": "a'), 0xed, 0xa0, 0x80, ...Buffer.from('"}')]),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([{ field: 'body', message: 'is not valid UTF-8' }]);
  });
});

describe('fastlane files and MCP follow the same rule', () => {
  it.each([
    ['a NUL', 'Weather\u0000Pro', 'must not contain the NUL character'],
    ['a control', 'Weather\u0007Pro', 'U+0007'],
    ['nothing visible', '\u200b\u200c', 'must contain a visible character'],
  ])('refuses a file with %s, naming the file, writing nothing', async (_what, text, message) => {
    const local = (await h.given.project(admin, { appStoreAppId: '1' })).id;
    const zip = buildZip([
      entry('fastlane/metadata/en-US/subtitle.txt', 'Rain'),
      entry('fastlane/metadata/en-US/name.txt', text),
    ]);
    const res = await raw('POST', `/api/v1/projects/${local}/import`, zip.buffer, 'application/zip');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      { field: 'fastlane/metadata/en-US/name.txt', message: expect.stringContaining(message) },
    ]);
    expect((await admin.api.get(`/api/v1/projects/${local}/listings`)).body.data.listings).toEqual([]);
  });

  it('refuses a file that is not UTF-8, naming it', async () => {
    const local = (await h.given.project(admin, { appStoreAppId: '1' })).id;
    const zip = buildZip([entry('fastlane/metadata/en-US/name.txt', Buffer.from('Caf\xe9 Pro', 'latin1'))]);
    const res = await raw('POST', `/api/v1/projects/${local}/import`, zip.buffer, 'application/zip');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      { field: 'fastlane/metadata/en-US/name.txt', message: 'is not UTF-8 text' },
    ]);
  });

  it('refuses a control character in MCP tool arguments, naming the argument', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: {
        authorization: `Bearer ${admin.apiKey}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'update_listing',
          arguments: {
            projectId: project,
            store: 'playstore',
            locale: 'en-US',
            fields: { title: 'a\u0000b' },
          },
        },
      }),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      { field: 'params.arguments.fields.title', message: 'must not contain the NUL character' },
    ]);
  });
});
