/**
 * Translations end to end (design.md §14): the state of every translated field as sources and
 * targets change (edits, sync, machine drafts, XLIFF); XLIFF 2.0 and 1.2 out and back in, in the
 * shapes translation tools write; an import with one bad unit changes nothing; machine drafts from
 * the DeepL emulator (which checks every request against DeepL's specification) with keywords
 * kept within the limit, glossary terms kept, quota and rate limits reported per field.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness, type TestOrganization } from '../support/harness.js';

const DEEPL_KEY = 'emulated-deepl-key';
let emu: RunningEmulators;
let h: Harness;
let org: TestOrganization;
let admin: Actor;

beforeAll(async () => {
  emu = await startEmulators({ deepl: { keys: [{ key: DEEPL_KEY }] } });
  h = await startHarness({ env: { ...emu.env, DEEPL_API_URL: emu.url } });
  org = await h.given.organization();
  admin = org.admin;
  const set = await admin.api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: DEEPL_KEY });
  expect(set.status).toBe(200);
  for (const store of ['appstore', 'playstore'] as const) {
    const res = await admin.api.request(
      'PUT',
      `/api/v1/organization/credentials/${store}`,
      emu.credentials[store],
    );
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await h?.close();
  await emu?.close();
});
beforeEach(() => emu.restore());

const newProject = async () =>
  (await h.given.project(admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })).id;
const listing = (project: string, store: string, locale: string) =>
  `/api/v1/projects/${project}/listings/${store}/${locale}`;
const edit = async (
  project: string,
  store: string,
  locale: string,
  fields: Record<string, string | null>,
) => {
  const res = await admin.api.patch(listing(project, store, locale), fields);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
/** store/locale/field → state, from the matrix. */
async function states(project: string): Promise<Record<string, string>> {
  const res = await admin.api.get(`/api/v1/projects/${project}/translations`);
  expect(res.status).toBe(200);
  return Object.fromEntries(
    (res.body.data.items as { store: string; locale: string; field: string; state: string }[]).map((i) => [
      `${i.store}/${i.locale}/${i.field}`,
      i.state,
    ]),
  );
}
const exportXliff = (project: string, locale: string, version = '2.0') =>
  h.app.inject({
    method: 'GET',
    url: `/api/v1/projects/${project}/translations/${locale}.xlf?version=${version}`,
    headers: { authorization: `Bearer ${admin.apiKey}` },
  });
const importXliff = async (
  project: string,
  locale: string,
  xml: string | Buffer,
  type = 'application/xliff+xml',
) => {
  const res = await h.app.inject({
    method: 'PUT',
    url: `/api/v1/projects/${project}/translations/${locale}.xlf`,
    headers: { authorization: `Bearer ${admin.apiKey}`, 'content-type': type },
    payload: xml,
  });
  return { status: res.statusCode, body: res.json() };
};
const machine = (project: string, body: Record<string, unknown>) =>
  admin.api.post(`/api/v1/projects/${project}/translations/machine`, body);

describe('the DeepL key', () => {
  it('is an organization credential: stored encrypted, shown as metadata, verified with DeepL', async () => {
    const org = await h.given.organization();
    const api = org.admin.api;
    const short = await api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: 'x y' });
    expect(short.status).toBe(400);
    expect(short.body.error.details[0].field).toBe('apiKey');

    const set = await api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: DEEPL_KEY });
    expect(set.status).toBe(200);
    const list = await api.get('/api/v1/organization/credentials');
    expect(list.body.data.credentials).toContainEqual(
      expect.objectContaining({ store: 'deepl', configured: true }),
    );
    expect(JSON.stringify(list.body)).not.toContain(DEEPL_KEY);
    const rows = await h.db.kysely.selectFrom('store_credentials').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(DEEPL_KEY);

    const verified = await api.post('/api/v1/organization/credentials/deepl/verify');
    expect(verified.body.data).toEqual({ store: 'deepl', verified: true });
    await api.request('PUT', '/api/v1/organization/credentials/deepl', { apiKey: 'not-a-key-deepl-knows' });
    const refused = await api.post('/api/v1/organization/credentials/deepl/verify');
    expect(refused.body.data).toMatchObject({
      store: 'deepl',
      verified: false,
      error: { code: 'PROVIDER_AUTH' },
    });
  });
});

describe('translation states', () => {
  it('translate → current; source edited → outdated; translated again → current', async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro', description: 'Hourly forecasts.' });
    await edit(project, 'appstore', 'de-DE', { name: 'Wetter Pro' });
    expect(await states(project)).toEqual({
      'appstore/de-DE/name': 'current',
      'appstore/de-DE/description': 'missing',
    });

    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro+' });
    expect((await states(project))['appstore/de-DE/name']).toBe('outdated');
    const detail = await admin.api.get(`/api/v1/projects/${project}/translations/de-DE`);
    const name = detail.body.data.entries.find((e: { field: string }) => e.field === 'name');
    expect(name).toMatchObject({
      source: 'Weather Pro+',
      target: 'Wetter Pro',
      translatedFrom: 'Weather Pro',
    });

    // Changing the source back makes the translation current again: it was made from that text.
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro' });
    expect((await states(project))['appstore/de-DE/name']).toBe('current');
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro+' });
    await edit(project, 'appstore', 'de-DE', { name: 'Wetter Pro+' });
    expect((await states(project))['appstore/de-DE/name']).toBe('current');

    // A cleared target is missing again; a source and its translation changed at once stay current.
    await edit(project, 'appstore', 'de-DE', { name: null });
    expect((await states(project))['appstore/de-DE/name']).toBe('missing');
  });

  it('texts synced from a store are current until their source changes, in the store or here', async () => {
    const project = await newProject();
    const sync = await admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'playstore' });
    expect(sync.status, JSON.stringify(sync.body)).toBe(200);
    expect(await states(project)).toMatchObject({
      'playstore/de-DE/title': 'current',
      'playstore/de-DE/shortDescription': 'current',
    });

    // The English short description changes in the Play Console: the German one went stale.
    await emuSetPlayListing('en-US', { shortDescription: 'Forecasts you can trust' });
    const again = await admin.api.post(`/api/v1/projects/${project}/sync`, { store: 'playstore' });
    expect(again.status).toBe(200);
    let now = await states(project);
    expect(now['playstore/de-DE/shortDescription']).toBe('outdated');
    expect(now['playstore/de-DE/title']).toBe('current');

    await edit(project, 'playstore', 'en-US', { title: 'Weather Pro 2' });
    now = await states(project);
    expect(now['playstore/de-DE/title']).toBe('outdated');
    const detail = await admin.api.get(`/api/v1/projects/${project}/translations/de-DE`);
    const short = detail.body.data.entries.find((e: { field: string }) => e.field === 'shortDescription');
    expect(short.translatedFrom).toBe('Forecasts that matter');
  });

  it('a new source locale starts tracking over from its texts', async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro' });
    await edit(project, 'appstore', 'de-DE', { name: 'Wetter Pro' });
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro+' });
    expect((await states(project))['appstore/de-DE/name']).toBe('outdated');

    const patched = await admin.api.patch(`/api/v1/projects/${project}`, { sourceLocale: 'de-DE' });
    expect(patched.status).toBe(200);
    const status = await admin.api.get(`/api/v1/projects/${project}/translations`);
    expect(status.body.data.sourceLocale).toBe('de-DE');
    expect(await states(project)).toEqual({ 'appstore/en-US/name': 'current' });

    const bad = await admin.api.patch(`/api/v1/projects/${project}`, { sourceLocale: 'xx-YY' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('sourceLocale');
  });
});

async function emuSetPlayListing(language: string, fields: Record<string, string>) {
  const app = emu.play.apps.get(PACKAGE)!;
  const current = app.listings.get(language)!;
  app.listings.set(language, { ...current, ...fields });
}

describe('XLIFF', () => {
  async function germanProject() {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', {
      name: 'Weather Pro',
      subtitle: 'Forecasts that matter',
      keywords: 'rain,radar,storm',
    });
    await edit(project, 'appstore', 'de-DE', { name: 'Wetter Pro', subtitle: 'Vorhersagen' });
    await edit(project, 'appstore', 'en-US', { subtitle: 'Forecasts for your day' });
    return project;
  }

  it('2.0: exports limits, notes and states; a tool’s edited file comes back in', async () => {
    const project = await germanProject();
    const res = await exportXliff(project, 'de-DE');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/xliff\+xml/);
    const xml = res.body;
    expect(xml).toContain('xmlns="urn:oasis:names:tc:xliff:document:2.0"');
    expect(xml).toMatch(/srcLang="en-US"[^>]*trgLang="de-DE"/);
    expect(xml).toMatch(/<unit id="name"[^>]*slr:sizeRestriction="30"/);
    expect(xml).toMatch(/<unit id="keywords"[^>]*slr:sizeRestriction="100"/);
    expect(xml).toContain('<note category="store">App Store</note>');
    expect(xml).toMatch(/<note category="field">Keywords: Search keywords[^<]*Comma-separated/);
    expect(xml).toContain('It was translated from: Forecasts that matter');
    expect(xml).toMatch(
      /<segment state="reviewed">\s*<source>Weather Pro<\/source>\s*<target>Wetter Pro<\/target>/,
    );
    expect(xml).toMatch(
      /<segment state="initial">\s*<source>Forecasts for your day<\/source>\s*<target>Vorhersagen<\/target>/,
    );
    expect(xml).toMatch(/<segment state="initial">\s*<source>rain,radar,storm<\/source>\s*<\/segment>/);

    // As a CAT tool saves it: units regrouped, another namespace prefix, states raised, a note added.
    const edited = xml
      .replace(/<file id="appstore"([^>]*)>/, '<file id="appstore"$1><group id="g1">')
      .replace(/<\/file>/, '</group></file>')
      .replace(
        /<segment state="initial">(\s*)<source>Forecasts for your day<\/source>(\s*)<target>Vorhersagen<\/target>/,
        '<segment state="translated">$1<source>Forecasts for your day</source>$2<target>Vorhersagen für Ihren Tag</target>',
      )
      .replace(
        /<segment state="initial">(\s*)<source>rain,radar,storm<\/source>(\s*)<\/segment>/,
        '<segment state="translated">$1<source>rain,radar,storm</source><target>Regen,Radar,Sturm</target>$2</segment>',
      )
      .replace(
        '<note category="store">App Store</note>',
        '<note category="store">App Store</note><note>checked</note>',
      );
    const imported = await importXliff(project, 'de-DE', edited);
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.data.imported).toEqual([
      { store: 'appstore', field: 'subtitle' },
      { store: 'appstore', field: 'keywords' },
    ]);
    expect(imported.body.data.ignored).toBe(1);
    const german = await admin.api.get(listing(project, 'appstore', 'de-DE'));
    expect(german.body.data.listing.fields.subtitle.value).toBe('Vorhersagen für Ihren Tag');
    expect(german.body.data.listing.fields.keywords.value).toBe('Regen,Radar,Sturm');
    expect(await states(project)).toMatchObject({
      'appstore/de-DE/name': 'current',
      'appstore/de-DE/subtitle': 'current',
      'appstore/de-DE/keywords': 'current',
    });
    const history = await admin.api.get(`${listing(project, 'appstore', 'de-DE')}/history`);
    expect(history.body.data.entries[0].source).toBe('import');

    // The same file again changes nothing.
    const again = await importXliff(project, 'de-DE', edited);
    expect(again.status).toBe(200);
    expect(again.body.data.imported).toEqual([]);
  });

  it('1.2: maxwidth and target states; a Trados-style file with inline markup and alt-trans comes back in', async () => {
    const project = await germanProject();
    const res = await exportXliff(project, 'de-DE', '1.2');
    expect(res.statusCode).toBe(200);
    const xml = res.body;
    expect(xml).toContain('xmlns="urn:oasis:names:tc:xliff:document:1.2"');
    expect(xml).toMatch(/<file original="appstore" source-language="en-US" target-language="de-DE"/);
    expect(xml).toMatch(/<trans-unit id="subtitle"[^>]*maxwidth="30" size-unit="char"/);
    expect(xml).toContain('<target state="signed-off">Wetter Pro</target>');
    expect(xml).toContain('<target state="needs-translation">Vorhersagen</target>');

    const edited = xml.replace(
      '<target state="needs-translation">Vorhersagen</target>',
      '<target state="translated"><g id="1">Prognosen</g> für den Tag</target>' +
        '<alt-trans origin="tm"><target>Vorhersagen</target></alt-trans>',
    );
    const imported = await importXliff(project, 'de-DE', edited, 'application/xml');
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.data).toMatchObject({
      version: '1.2',
      imported: [{ store: 'appstore', field: 'subtitle' }],
    });
    const german = await admin.api.get(listing(project, 'appstore', 'de-DE'));
    expect(german.body.data.listing.fields.subtitle.value).toBe('Prognosen für den Tag');
    expect((await states(project))['appstore/de-DE/subtitle']).toBe('current');
  });

  it('an outdated translation confirmed unchanged (its state raised) is current again', async () => {
    const project = await germanProject();
    const xml = (await exportXliff(project, 'de-DE')).body;
    const confirmed = xml.replace(
      /<segment state="initial">(\s*<source>Forecasts for your day<\/source>)/,
      '<segment state="reviewed">$1',
    );
    const imported = await importXliff(project, 'de-DE', confirmed);
    expect(imported.status).toBe(200);
    expect(imported.body.data.imported).toEqual([{ store: 'appstore', field: 'subtitle' }]);
    expect((await states(project))['appstore/de-DE/subtitle']).toBe('current');
    const german = await admin.api.get(listing(project, 'appstore', 'de-DE'));
    expect(german.body.data.listing.fields.subtitle.value).toBe('Vorhersagen');
  });

  it('an import with one unit over its limit changes nothing and names the unit', async () => {
    const project = await germanProject();
    const before = await admin.api.get(listing(project, 'appstore', 'de-DE'));
    const statesBefore = await states(project);
    const xml = (await exportXliff(project, 'de-DE')).body
      .replace(
        '<target>Vorhersagen</target>',
        '<target>Vorhersagen für jeden einzelnen Tag des Jahres</target>',
      )
      .replace(/(<source>rain,radar,storm<\/source>)/, '$1<target>Regen,Radar,Sturm</target>');
    const res = await importXliff(project, 'de-DE', xml);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_REQUEST');
    expect(res.body.error.details).toEqual([
      expect.objectContaining({ field: 'appstore/subtitle', limit: 30, length: 46 }),
    ]);
    expect((await admin.api.get(listing(project, 'appstore', 'de-DE'))).body.data).toEqual(before.body.data);
    expect(await states(project)).toEqual(statesBefore);
  });

  it('decodes character references as XML defines them, and counts the limit on the decoded text', async () => {
    const project = await germanProject();
    // As a common XML tool re-encodes it: non-ASCII characters as numeric references.
    const xml = (await exportXliff(project, 'de-DE')).body.replace(
      '<target>Vorhersagen</target>',
      '<target>St&#252;ndliche Vorhersagen&#x2e;</target>',
    );
    const res = await importXliff(project, 'de-DE', xml);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const stored = await admin.api.get(listing(project, 'appstore', 'de-DE'));
    expect(stored.body.data.listing.fields.subtitle.value).toBe('Stündliche Vorhersagen.');
    // 23 characters decoded (58 as written): under the limit of 30.
    const unknown = await importXliff(project, 'de-DE', xml.replace('St&#252;ndliche', 'St&uuml;ndliche'));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('&uuml;');
  });

  it('reads UTF-16 files, and refuses a document that is not well-formed whole, naming the line', async () => {
    const project = await germanProject();
    const before = await admin.api.get(listing(project, 'appstore', 'de-DE'));
    const xml = (await exportXliff(project, 'de-DE')).body.replace(
      '<target>Vorhersagen</target>',
      '<target>Vorhersagen für Sie</target>',
    );
    const truncated = xml.slice(0, xml.indexOf('Vorhersagen für Sie') + 5);
    const cut = await importXliff(project, 'de-DE', truncated);
    expect(cut.status).toBe(400);
    expect(cut.body.error.message).toMatch(/not well-formed XML.*still open/);
    const mismatched = xml.replace('Vorhersagen für Sie</target>', 'Mismatched</source>');
    const bad = await importXliff(project, 'de-DE', mismatched);
    expect(bad.status).toBe(400);
    const line = mismatched.split('\n').findIndex((l) => l.includes('Mismatched')) + 1;
    expect(bad.body.error.message).toContain(`line ${line}`);
    expect((await admin.api.get(listing(project, 'appstore', 'de-DE'))).body.data).toEqual(before.body.data);

    const utf16 = xml.replace('encoding="UTF-8"', 'encoding="UTF-16"');
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(utf16, 'utf16le')]);
    const read = await importXliff(project, 'de-DE', le);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    const after = await admin.api.get(listing(project, 'appstore', 'de-DE'));
    expect(after.body.data.listing.fields.subtitle.value).toBe('Vorhersagen für Sie');
    const latin1 = await importXliff(
      project,
      'de-DE',
      Buffer.from(xml.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1'),
    );
    expect(latin1.status).toBe(400);
    expect(latin1.body.error.message).toMatch(/UTF-8|ISO-8859-1/);
  });

  it('refuses what is not this project’s XLIFF: wrong languages, unknown units, DTDs, other bodies', async () => {
    const project = await germanProject();
    const xml = (await exportXliff(project, 'de-DE')).body;

    const french = await importXliff(project, 'de-DE', xml.replace('trgLang="de-DE"', 'trgLang="fr-FR"'));
    expect(french.status).toBe(400);
    expect(french.body.error.details[0]).toMatchObject({ field: 'trgLang' });

    const unknown = await importXliff(
      project,
      'de-DE',
      xml
        .replace('<unit id="name"', '<unit id="title"')
        .replace('<file id="appstore"', '<file id="appstore"'),
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0]).toMatchObject({ field: 'appstore/title' });

    const entity = await importXliff(
      project,
      'de-DE',
      xml.replace(
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>',
      ),
    );
    expect(entity.status).toBe(400);
    expect(entity.body.error.message).toMatch(/DOCTYPE/);

    const broken = await importXliff(project, 'de-DE', '<xliff version="2.0"><file id="appstore"><unit');
    expect(broken.status).toBe(400);

    const json = await importXliff(project, 'de-DE', '{}', 'application/json');
    expect(json.status).toBe(415);
    expect(json.body.error.message).toMatch(/application\/xliff\+xml/);

    const source = await exportXliff(project, 'en-US');
    expect(source.statusCode).toBe(400);
  });

  it('exports every target locale as one zip', async () => {
    const project = await germanProject();
    await edit(project, 'appstore', 'fr-FR', { name: 'Météo Pro' });
    const res = await h.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${project}/translations.zip`,
      headers: { authorization: `Bearer ${admin.apiKey}` },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/zip');
    const { unzipSync, strFromU8 } = await import('fflate');
    const files = unzipSync(res.rawPayload);
    expect(Object.keys(files).sort()).toEqual(['de-DE.xlf', 'fr-FR.xlf']);
    expect(strFromU8(files['fr-FR.xlf']!)).toContain('<target>Météo Pro</target>');
  });
});

describe('machine translation', () => {
  it('drafts the gaps, never pushes them, and a member’s accept makes them current', async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro', description: 'Hourly forecasts.' });
    await edit(project, 'appstore', 'de-DE', { name: 'Wetter Pro' });

    const res = await machine(project, { targetLocales: ['de-DE'], stores: ['appstore'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.errors).toEqual([]);
    expect(res.body.data.drafts).toEqual([
      expect.objectContaining({ store: 'appstore', locale: 'de-DE', field: 'description', overLimit: false }),
    ]);
    expect(res.body.data.usage.characters).toBe('Hourly forecasts.'.length);
    expect(emu.deepl.requests).toEqual([{ targetLang: 'DE', texts: ['Hourly forecasts.'] }]);
    expect((await states(project))['appstore/de-DE/description']).toBe('draft');
    // A draft is not the listing's text: the diff and a push do not see it.
    const german = await admin.api.get(listing(project, 'appstore', 'de-DE'));
    expect(german.body.data.listing.fields.description.value).toBeNull();

    const accepted = await admin.api.post(`/api/v1/projects/${project}/translations/de-DE/accept`, {});
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.data.accepted).toEqual([{ store: 'appstore', field: 'description' }]);
    const after = await admin.api.get(listing(project, 'appstore', 'de-DE'));
    expect(after.body.data.listing.fields.description.value).toMatch(/^H[^ ]+ f[^ ]+\.$/);
    expect(after.body.data.listing.fields.description.value).not.toBe('Hourly forecasts.');
    expect((await states(project))['appstore/de-DE/description']).toBe('current');
    const history = await admin.api.get(`${listing(project, 'appstore', 'de-DE')}/history`);
    expect(history.body.data.entries[0].source).toBe('translation');

    // Nothing left to translate: no provider call.
    const again = await machine(project, { targetLocales: ['de-DE'], stores: ['appstore'] });
    expect(again.body.data.drafts).toEqual([]);
    expect(emu.deepl.requests).toHaveLength(1);
  });

  it('a locale without a listing yet: drafted, shown in the matrix, its listing made on accept', async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro', subtitle: 'Forecasts' });
    const res = await machine(project, { targetLocales: ['fr-FR'], stores: ['appstore'] });
    expect(res.status).toBe(200);
    expect(res.body.data.drafts.map((d: { field: string }) => d.field).sort()).toEqual(['name', 'subtitle']);
    expect(await states(project)).toEqual({
      'appstore/fr-FR/name': 'draft',
      'appstore/fr-FR/subtitle': 'draft',
    });
    expect((await admin.api.get(listing(project, 'appstore', 'fr-FR'))).status).toBe(404);

    const accepted = await admin.api.post(`/api/v1/projects/${project}/translations/fr-FR/accept`, {
      fields: ['name'],
    });
    expect(accepted.status).toBe(200);
    const french = await admin.api.get(listing(project, 'appstore', 'fr-FR'));
    expect(french.status).toBe(200);
    expect(french.body.data.listing.fields.name.value).toBe(
      (await admin.api.get(`/api/v1/projects/${project}/translations/fr-FR`)).body.data.entries.find(
        (e: { field: string }) => e.field === 'name',
      ).target,
    );
    expect(await states(project)).toEqual({
      'appstore/fr-FR/name': 'current',
      'appstore/fr-FR/subtitle': 'draft',
    });
  });

  it('keywords: each translated alone, kept comma-separated within 100 characters, the rest named', async () => {
    const project = await newProject();
    const keywords =
      'weather,forecast,radar,rain,storm,temperature,humidity,sunshine,thunderstorm,wind,barometer,snow';
    expect(keywords.length).toBeLessThanOrEqual(100);
    await edit(project, 'appstore', 'en-US', { keywords });
    await edit(project, 'appstore', 'de-DE', { name: 'Wetter Pro' });

    const res = await machine(project, { targetLocales: ['de-DE'], fields: ['keywords'] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(emu.deepl.requests[0]!.texts).toEqual(keywords.split(','));
    const detail = await admin.api.get(`/api/v1/projects/${project}/translations/de-DE`);
    const draft = detail.body.data.entries.find((e: { field: string }) => e.field === 'keywords').draft;
    expect(draft.overLimit).toBe(false);
    expect([...draft.text].length).toBeLessThanOrEqual(100);
    expect(draft.text).not.toMatch(/\s,|,\s|^,|,$|,,/);
    const kept = draft.text.split(',');
    expect(new Set(kept).size).toBe(kept.length);
    // German grows long words: some keywords do not fit, and the draft says which.
    expect(kept.length).toBeLessThan(12);
    expect(draft.note).toMatch(/^Left out to stay within 100 characters: /);
  });

  it('keeps glossary terms as the glossary says, with the provider glossary made once', async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', { subtitle: 'Weather Pro forecasts' });
    await edit(project, 'appstore', 'de-DE', { name: 'Wetter Pro' });
    const set = await admin.api.request('PUT', '/api/v1/organization/glossaries/en/de', {
      terms: ['Weather Pro'],
      entries: { forecasts: 'Prognosen' },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);

    const res = await machine(project, { targetLocales: ['de-DE'] });
    expect(res.status).toBe(200);
    const detail = await admin.api.get(`/api/v1/projects/${project}/translations/de-DE`);
    const subtitle = detail.body.data.entries.find((e: { field: string }) => e.field === 'subtitle');
    expect(subtitle.draft.text).toBe('Weather Pro Prognosen');
    expect(emu.deepl.glossaries.size).toBe(1);
    expect(emu.deepl.requests[0]!.glossaryId).toBe([...emu.deepl.glossaries.keys()][0]);

    // Translating again reuses the provider's copy; a changed glossary replaces it.
    await machine(project, { targetLocales: ['de-DE'], states: ['draft'] });
    expect(emu.deepl.glossaries.size).toBe(1);
    await admin.api.request('PUT', '/api/v1/organization/glossaries/en/de', {
      terms: ['Weather Pro', 'Pro'],
    });
    await machine(project, { targetLocales: ['de-DE'], states: ['draft'] });
    expect(emu.deepl.glossaries.size).toBe(1);
    expect(emu.deepl.requests[2]!.glossaryId).not.toBe(emu.deepl.requests[0]!.glossaryId);

    const list = await admin.api.get('/api/v1/organization/glossaries');
    expect(list.body.data.glossaries).toEqual([
      expect.objectContaining({
        sourceLanguage: 'en',
        targetLanguage: 'de',
        entries: { 'Weather Pro': 'Weather Pro', Pro: 'Pro' },
      }),
    ]);
    expect(list.body.data.usage.characters).toBeGreaterThan(0);
    const removed = await admin.api.delete('/api/v1/organization/glossaries/en/de');
    expect(removed.status).toBe(200);
    expect(emu.deepl.glossaries.size).toBe(0);
  });

  it("keeps the organization's do-not-translate terms as written in every language", async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', {
      name: 'Weather Pro',
      promotionalText: 'Weather Pro & R&D <Lab> forecasts',
    });
    await edit(project, 'appstore', 'fr-FR', { subtitle: 'Nouveau' });
    const bad = await admin.api.patch('/api/v1/organization', { settings: { doNotTranslate: ['ok', ' '] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].field).toBe('settings.doNotTranslate');
    const set = await admin.api.patch('/api/v1/organization', {
      settings: { doNotTranslate: ['Weather Pro', 'R&D <Lab>', 'Weather Pro'] },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    try {
      expect(set.body.data.settings.doNotTranslate).toEqual(['Weather Pro', 'R&D <Lab>']);
      const res = await machine(project, { targetLocales: ['fr-FR'] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const detail = await admin.api.get(`/api/v1/projects/${project}/translations/fr-FR`);
      const draftOf = (field: string) =>
        detail.body.data.entries.find(
          (e: { store: string; field: string }) => e.store === 'appstore' && e.field === field,
        ).draft.text;
      expect(draftOf('name')).toBe('Weather Pro');
      // The terms stay; the words around them are translated; the text's own < & > survive.
      expect(draftOf('promotionalText')).toBe('Weather Pro & R&D <Lab> forécàsts');
      expect(emu.deepl.requests.every((r) => r.ignoreTags?.includes('keep'))).toBe(true);
    } finally {
      await admin.api.patch('/api/v1/organization', { settings: { doNotTranslate: [] } });
    }
  });

  it('formality where the language has it; a draft over the limit is marked and cannot be accepted', async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', {
      name: 'Your weather',
      subtitle: 'Weather forecasts for everyone',
    });
    await edit(project, 'appstore', 'de-DE', { promotionalText: 'Neu' });
    const res = await machine(project, { targetLocales: ['de-DE'], formality: 'more' });
    expect(res.status).toBe(200);
    expect(emu.deepl.requests[0]!.formality).toBe('prefer_more');
    const subtitle = res.body.data.drafts.find((d: { field: string }) => d.field === 'subtitle');
    expect(subtitle).toMatchObject({ overLimit: true, limit: 30 });
    expect(subtitle.length).toBeGreaterThan(30);

    const named = await admin.api.post(`/api/v1/projects/${project}/translations/de-DE/accept`, {
      fields: ['subtitle'],
    });
    expect(named.status).toBe(400);
    expect(named.body.error.details[0]).toMatchObject({ field: 'appstore/subtitle' });
    const all = await admin.api.post(`/api/v1/projects/${project}/translations/de-DE/accept`, {});
    expect(all.status).toBe(200);
    expect(all.body.data.accepted).toEqual([{ store: 'appstore', field: 'name' }]);
    expect(all.body.data.skipped).toEqual([
      expect.objectContaining({ store: 'appstore', field: 'subtitle' }),
    ]);
    expect((await states(project))['appstore/de-DE/subtitle']).toBe('draft');
  });

  it('reports quota, a refused key and rate limits per field, with Retry-After', async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro', subtitle: 'Forecasts' });
    await edit(project, 'appstore', 'de-DE', { promotionalText: 'Neu' });
    await edit(project, 'appstore', 'fr-FR', { promotionalText: 'Nouveau' });

    emu.faults.set([{ route: 'POST /v2/translate', status: 429, retryAfter: 7 }]);
    const limited = await machine(project, { targetLocales: ['de-DE', 'fr-FR'] });
    expect(limited.status).toBe(200);
    expect(limited.body.data.drafts).toEqual([]);
    expect(limited.body.data.errors).toHaveLength(4);
    for (const error of limited.body.data.errors) {
      expect(error).toMatchObject({ code: 'PROVIDER_RATE_LIMITED', retryAfterSeconds: 7 });
    }
    expect(
      new Set(
        limited.body.data.errors.map((e: { locale: string; field: string }) => `${e.locale}/${e.field}`),
      ),
    ).toEqual(new Set(['de-DE/name', 'de-DE/subtitle', 'fr-FR/name', 'fr-FR/subtitle']));
    emu.faults.clear();

    emu.deepl.keys.get(DEEPL_KEY)!.limit = emu.deepl.keys.get(DEEPL_KEY)!.count + 5;
    const quota = await machine(project, { targetLocales: ['de-DE'] });
    expect(quota.body.data.errors.map((e: { code: string; field: string }) => [e.field, e.code])).toEqual([
      ['name', 'PROVIDER_QUOTA'],
      ['subtitle', 'PROVIDER_QUOTA'],
    ]);
    emu.deepl.keys.get(DEEPL_KEY)!.limit = 500_000;

    emu.deepl.keys.delete(DEEPL_KEY);
    const refused = await machine(project, { targetLocales: ['de-DE'] });
    expect(refused.body.data.errors[0]).toMatchObject({ code: 'PROVIDER_AUTH' });
    expect(JSON.stringify(refused.body)).not.toContain(DEEPL_KEY);
    expect((await states(project))['appstore/de-DE/name']).toBe('missing');
  });

  it('says what is wrong with a request before calling the provider', async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro' });
    const bad = await machine(project, { targetLocales: ['en-US', 'xx'], fields: ['supportUrl'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual([
      'targetLocales[0]',
      'targetLocales[1]',
      'fields[0]',
    ]);
    expect(emu.deepl.requests).toEqual([]);

    const org = await h.given.organization();
    const other = (await h.given.project(org.admin, { appStoreAppId: APP_ID })).id;
    await org.admin.api.patch(listing(other, 'appstore', 'en-US'), { name: 'Weather Pro' });
    const noKey = await org.admin.api.post(`/api/v1/projects/${other}/translations/machine`, {
      targetLocales: ['de-DE'],
    });
    expect(noKey.status).toBe(409);
    expect(noKey.body.error.message).toMatch(/PUT \/api\/v1\/organization\/credentials\/deepl/);
  });
});

describe('translations over MCP', () => {
  it('reads the matrix, machine-translates and accepts as REST does; a viewer may only read', async () => {
    const project = await newProject();
    await edit(project, 'appstore', 'en-US', { name: 'Weather Pro', subtitle: 'Forecasts' });
    await edit(project, 'appstore', 'de-DE', { name: 'Wetter Pro' });
    const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const connect = async (apiKey: string) => {
      const client = new Client({ name: 'appmeta-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
          requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
        }),
      );
      return client;
    };
    const client = await connect(admin.apiKey);
    const viewer = await connect((await h.given.member(org, 'viewer')).apiKey);
    try {
      const call = async (c: Client, name: string, args: Record<string, unknown>) => {
        const result = await c.callTool({ name, arguments: args });
        return { isError: result.isError === true, data: result.structuredContent as any, result };
      };
      const status = await call(client, 'get_translations', { projectId: project });
      expect(status.data.counts).toMatchObject({ missing: 1, current: 1 });
      const drafted = await call(client, 'machine_translate', {
        projectId: project,
        targetLocales: ['de-DE'],
      });
      expect(drafted.isError).toBe(false);
      expect(drafted.data.drafts.map((d: { field: string }) => d.field)).toEqual(['subtitle']);
      const detail = await call(viewer, 'get_translations', { projectId: project, locale: 'de-DE' });
      expect(detail.data.entries.find((e: { field: string }) => e.field === 'subtitle').state).toBe('draft');
      const refused = await call(viewer, 'accept_translations', { projectId: project, locale: 'de-DE' });
      expect(refused.isError).toBe(true);
      const accepted = await call(client, 'accept_translations', { projectId: project, locale: 'de-DE' });
      expect(accepted.data.accepted).toEqual([{ store: 'appstore', field: 'subtitle' }]);
      expect((await states(project))['appstore/de-DE/subtitle']).toBe('current');
    } finally {
      await client.close();
      await viewer.close();
    }
  });
});
