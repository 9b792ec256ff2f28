/**
 * fastlane import and export with folders shaped like real projects' repositories: an app with
 * both stores and the usual neighbours of fastlane/ (sources, screenshots tooling, other
 * `metadata` folders), a React Native monorepo with one fastlane folder per platform, an
 * Android-only app, and files the way editors and translation platforms write them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
let org: TestOrganization;
const folders: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
});
afterAll(async () => {
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  await h?.close();
});

/** Writes files (a path ending with / is an empty folder) into a new temporary folder. */
function writeTree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlane-'));
  folders.push(root);
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(root, file);
    if (file.endsWith('/')) {
      fs.mkdirSync(full, { recursive: true });
      continue;
    }
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
  return root;
}

const tarGz = (root: string, ...entries: string[]) =>
  execFileSync('tar', ['-czf', '-', '-C', root, ...entries]);

function zip(root: string, entry: string): Buffer {
  execFileSync('zip', ['-qr', 'archive.zip', entry], { cwd: root });
  const body = fs.readFileSync(path.join(root, 'archive.zip'));
  fs.rmSync(path.join(root, 'archive.zip'));
  return body;
}

const importArchive = (
  projectId: string,
  body: Buffer,
  contentType: string,
  options: { apiKey?: string; path?: string } = {},
) =>
  h.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/import${options.path === undefined ? '' : `?path=${encodeURIComponent(options.path)}`}`,
    headers: { authorization: `Bearer ${options.apiKey ?? org.admin.apiKey}`, 'content-type': contentType },
    payload: body,
  });

const newProject = async () =>
  (await h.given.project(org.admin, { appStoreAppId: '1', playStorePackageName: 'com.example.weather' })).id;

const fieldsOf = async (project: string, store: string, locale: string) =>
  (await org.admin.api.get(`/api/v1/projects/${project}/listings/${store}/${locale}`)).body.data.listing
    .fields;

/** An app repository with both stores' trees, as deliver init and supply init leave them, and its neighbours. */
const APP_REPOSITORY = {
  'README.md': '# Weather\n',
  'fastlane/Fastfile': 'lane :release do\n  deliver\n  supply\nend\n',
  'fastlane/Appfile': 'app_identifier("com.example.weather")\n',
  'fastlane/metadata/copyright.txt': '2026 Example Inc.\n',
  'fastlane/metadata/primary_category.txt': 'WEATHER\n',
  'fastlane/metadata/review_information/email_address.txt': 'review@example.com\n',
  'fastlane/metadata/default/privacy_url.txt': 'https://example.com/privacy\n',
  'fastlane/metadata/default/support_url.txt': 'https://example.com/support\n',
  'fastlane/metadata/en-US/name.txt': 'Weather Pro\n',
  'fastlane/metadata/en-US/subtitle.txt': '  Forecasts that matter  \n',
  'fastlane/metadata/en-US/description.txt': 'Hourly forecasts.\n\nRadar maps.\n',
  'fastlane/metadata/en-US/keywords.txt': 'rain,radar,forecast\n',
  'fastlane/metadata/en-US/release_notes.txt': 'Bug fixes.\n',
  'fastlane/metadata/en-US/support_url.txt': 'https://example.com/en/support\n',
  'fastlane/metadata/en-US/marketing_url.txt': '\n',
  'fastlane/metadata/en-US/apple_tv_privacy_policy.txt': 'https://example.com/tv\n',
  // deliver matches locale folders case-insensitively.
  'fastlane/metadata/de-de/name.txt': 'Wetter Pro\n',
  // A locale folder with nothing of its own: default/ fills it.
  'fastlane/metadata/fr-FR/': '',
  // Another tool's layout kept inside the tree: not read, reported.
  'fastlane/metadata/ios/en-US/name.txt': 'Old name\n',
  // supply, written by a translation platform: every file ends with a line break (CRLF here and there).
  'fastlane/metadata/android/en-US/title.txt': `${'T'.repeat(30)}\n`,
  'fastlane/metadata/android/en-US/short_description.txt': 'Forecasts that matter\r\n',
  'fastlane/metadata/android/en-US/full_description.txt': 'Hourly forecasts.\n\nRadar maps.\n\n',
  'fastlane/metadata/android/en-US/video.txt': ' https://www.youtube.com/watch?v=abc \n',
  'fastlane/metadata/android/en-US/changelogs/42.txt': 'Bug fixes.',
  'fastlane/metadata/android/en-US/images/phoneScreenshots/1_en-US.png': 'PNG',
  'fastlane/metadata/android/ja-JP/title.txt': '\uFEFF天気プロ',
  'fastlane/metadata/android/es-419/': '',
  'fastlane/screenshots/en-US/1_iphone.png': 'PNG',
  // Folders named metadata elsewhere in the repository are not listing trees.
  'app/src/main/assets/metadata/en-US/name.txt': 'Not a listing',
  'tools/screenshots/metadata/de-DE/title.txt': 'Not a listing either',
};

describe('fastlane import of a real repository', () => {
  it('reads fastlane/metadata of a whole repository archive (GitHub zip) and reports what it did not read', async () => {
    const project = await newProject();
    const root = writeTree(
      Object.fromEntries(
        Object.entries(APP_REPOSITORY).map(([file, text]) => [`weather-main/${file}`, text]),
      ),
    );
    const res = await importArchive(project, zip(root, 'weather-main'), 'application/zip');
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.tree).toBe('weather-main/fastlane/metadata');
    expect(data.imported).toEqual([
      { store: 'appstore', locale: 'de-DE', fields: 3 },
      { store: 'appstore', locale: 'en-US', fields: 7 },
      { store: 'appstore', locale: 'fr-FR', fields: 2 },
      { store: 'playstore', locale: 'en-US', fields: 4 },
      { store: 'playstore', locale: 'ja-JP', fields: 1 },
    ]);
    const tree = 'weather-main/fastlane/metadata';
    expect(data.skipped).toEqual([
      // The project was never synced: no release of it holds version code 42.
      {
        path: `${tree}/android/en-US/changelogs/42.txt`,
        reason: expect.stringContaining('no Google Play release holds version code 42'),
      },
      { path: `${tree}/android/en-US/images/`, reason: expect.stringContaining('images') },
      { path: `${tree}/android/es-419/`, reason: 'an empty locale folder: nothing to import' },
      {
        path: `${tree}/en-US/apple_tv_privacy_policy.txt`,
        reason: 'not an App Store listing text appmeta manages',
      },
      { path: `${tree}/en-US/marketing_url.txt`, reason: expect.stringContaining('empty') },
      { path: `${tree}/ios/`, reason: expect.stringMatching(/^not an App Store locale folder.*<locale>/) },
    ]);
    // deliver's app-wide files and review_information/ are App Store details (design.md §19).
    expect(data.details).toBe(3);
    const details = (
      await h.app.inject({
        method: 'GET',
        url: `/api/v1/projects/${project}/details/appstore`,
        headers: { authorization: `Bearer ${org.admin.apiKey}` },
      })
    ).json().data.details;
    expect(details).toMatchObject({
      copyright: '2026 Example Inc.',
      primaryCategory: 'WEATHER',
      review: { contactEmail: 'review@example.com' },
    });

    const en = await fieldsOf(project, 'appstore', 'en-US');
    expect(en.name.value).toBe('Weather Pro');
    expect(en.subtitle.value).toBe('Forecasts that matter');
    expect(en.description.value).toBe('Hourly forecasts.\n\nRadar maps.');
    expect(en.supportUrl.value).toBe('https://example.com/en/support'); // its own file wins over default/
    expect(en.privacyPolicyUrl.value).toBe('https://example.com/privacy'); // from default/
    expect(en.marketingUrl.value).toBeNull(); // an empty file clears nothing
    expect((await fieldsOf(project, 'appstore', 'fr-FR')).supportUrl.value).toBe(
      'https://example.com/support',
    );
    const play = await fieldsOf(project, 'playstore', 'en-US');
    expect(play.title.value).toBe('T'.repeat(30)); // 30 characters: the file's line break is no part of it
    expect(play.shortDescription.value).toBe('Forecasts that matter');
    expect(play.fullDescription.value).toBe('Hourly forecasts.\n\nRadar maps.\n'); // one line break only
    expect(play.video.value).toBe('https://www.youtube.com/watch?v=abc');
    expect((await fieldsOf(project, 'playstore', 'ja-JP')).title.value).toBe('天気プロ');
  });

  it('reads the same repository from a tar.gz of fastlane/ alone', async () => {
    const project = await newProject();
    const root = writeTree(APP_REPOSITORY);
    const res = await importArchive(project, tarGz(root, 'fastlane'), 'application/gzip');
    expect(res.statusCode).toBe(200);
    expect(res.json().data.tree).toBe('fastlane/metadata');
    expect(res.json().data.imported).toHaveLength(5);
  });

  it('lists the trees of a monorepo and imports the one named by path', async () => {
    const root = writeTree({
      'package.json': '{}',
      'ios/fastlane/metadata/en-US/name.txt': 'Weather Pro\n',
      'ios/fastlane/metadata/en-US/subtitle.txt': 'Forecasts\n',
      'android/fastlane/metadata/android/en-US/title.txt': 'Weather Pro\n',
      'android/app/src/main/res/values/strings.xml': '<resources/>',
    });
    const archive = tarGz(root, '.');
    const project = await newProject();
    const several = await importArchive(project, archive, 'application/gzip');
    expect(several.statusCode).toBe(400);
    expect(several.json().error.message).toContain('android/fastlane/metadata, ios/fastlane/metadata');
    expect(several.json().error.details).toEqual([
      { field: 'path', message: 'could be android/fastlane/metadata' },
      { field: 'path', message: 'could be ios/fastlane/metadata' },
    ]);

    const ios = await importArchive(project, archive, 'application/gzip', { path: 'ios' });
    expect(ios.statusCode).toBe(200);
    expect(ios.json().data).toMatchObject({
      tree: 'ios/fastlane/metadata',
      imported: [{ store: 'appstore', locale: 'en-US', fields: 2 }],
    });
    const android = await importArchive(project, archive, 'application/gzip', {
      path: './android/fastlane/metadata/',
    });
    expect(android.json().data).toMatchObject({
      tree: 'android/fastlane/metadata',
      imported: [{ store: 'playstore', locale: 'en-US', fields: 1 }],
    });

    const missing = await importArchive(project, archive, 'application/gzip', { path: 'web' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details).toEqual([
      {
        field: 'path',
        message:
          'there is no folder web (fastlane trees found: android/fastlane/metadata, ios/fastlane/metadata)',
      },
    ]);
  });

  it('reads a supply tree named directly, and a metadata folder at the root', async () => {
    const project = await newProject();
    const supply = writeTree({ 'metadata/android/en-GB/title.txt': 'Weather Pro\n' });
    const named = await importArchive(project, tarGz(supply, 'metadata'), 'application/gzip', {
      path: 'metadata/android',
    });
    expect(named.json().data).toMatchObject({
      tree: 'metadata/android',
      imported: [{ store: 'playstore', locale: 'en-GB', fields: 1 }],
    });
    const bare = await importArchive(project, tarGz(supply, 'metadata'), 'application/gzip');
    expect(bare.json().data.tree).toBe('metadata');
  });

  it('answers 400 saying what it looked for when there is no tree, or nothing to import in it', async () => {
    const project = await newProject();
    const none = await importArchive(
      project,
      tarGz(writeTree({ 'README.md': 'x', 'src/metadata/en-US/name.txt': 'x' }), '.'),
      'application/gzip',
    );
    expect(none.statusCode).toBe(400);
    expect(none.json().error.message).toContain(
      'No fastlane metadata tree found: expected fastlane/metadata/',
    );

    const empty = await importArchive(
      project,
      tarGz(
        writeTree({ 'fastlane/metadata/en-US/': '', 'fastlane/metadata/apple_tv_privacy_policy.txt': 'x' }),
        'fastlane',
      ),
      'application/gzip',
    );
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toBe(
      'fastlane/metadata holds no listing texts to import (2 files or folders skipped, see details)',
    );
    expect(empty.json().error.details).toContainEqual({
      field: 'fastlane/metadata/en-US/',
      message: 'an empty locale folder: nothing to import',
    });
  });

  it('imports all or nothing: one over-long file is 400 naming it from the root given, and nothing changes', async () => {
    const project = await newProject();
    const root = writeTree({
      'weather/fastlane/metadata/en-US/name.txt': 'Fine name',
      'weather/fastlane/metadata/android/en-US/title.txt': `${'T'.repeat(31)}\n`,
    });
    const res = await importArchive(project, zip(root, 'weather'), 'application/zip');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      {
        field: 'weather/fastlane/metadata/android/en-US/title.txt',
        message: 'must be at most 30 characters (has 31)',
        limit: 30,
        length: 31,
      },
    ]);
    expect((await org.admin.api.get(`/api/v1/projects/${project}/listings`)).body.data.listings).toEqual([]);
  });

  it('refuses a body that is no archive (400) and a viewer (403)', async () => {
    const project = await newProject();
    expect((await importArchive(project, Buffer.from('hello'), 'application/gzip')).statusCode).toBe(400);
    const viewer = await h.given.member(org, 'viewer');
    const tree = writeTree({ 'fastlane/metadata/en-US/name.txt': 'Viewer' });
    const refused = await importArchive(project, tarGz(tree, 'fastlane'), 'application/gzip', {
      apiKey: viewer.apiKey,
    });
    expect(refused.statusCode).toBe(403);
  });
});

describe('fastlane export', () => {
  const exportArchive = (project: string, archive: 'tar.gz' | 'zip') =>
    h.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${project}/export?format=fastlane&archive=${archive}`,
      headers: { authorization: `Bearer ${org.admin.apiKey}` },
    });

  function unpack(body: Buffer): Record<string, string> {
    const dir = writeTree({});
    fs.writeFileSync(path.join(dir, 'x.tar.gz'), body);
    execFileSync('tar', ['-xzf', 'x.tar.gz'], { cwd: dir });
    fs.rmSync(path.join(dir, 'x.tar.gz'));
    const files: Record<string, string> = {};
    for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      files[path.relative(dir, full)] = fs.readFileSync(full, 'utf8');
    }
    return files;
  }

  it('writes values as they are, and round-trips byte for byte (tar.gz and zip)', async () => {
    const source = await newProject();
    await org.admin.api.patch(`/api/v1/projects/${source}/listings/appstore/fr-FR`, {
      name: 'Météo',
      description: 'Prévisions.\n\nCartes radar.',
    });
    await org.admin.api.patch(`/api/v1/projects/${source}/listings/playstore/fr-FR`, { title: 'Météo' });
    const exported = await exportArchive(source, 'tar.gz');
    expect(exported.statusCode).toBe(200);
    expect(exported.headers['content-type']).toBe('application/gzip');
    const files = unpack(exported.rawPayload);
    expect(files).toEqual({
      'fastlane/metadata/fr-FR/name.txt': 'Météo',
      'fastlane/metadata/fr-FR/description.txt': 'Prévisions.\n\nCartes radar.',
      'fastlane/metadata/android/fr-FR/title.txt': 'Météo',
    });

    for (const archive of ['tar.gz', 'zip'] as const) {
      const body = (await exportArchive(source, archive)).rawPayload;
      const target = await newProject();
      const imported = await importArchive(
        target,
        body,
        archive === 'zip' ? 'application/zip' : 'application/gzip',
      );
      expect(imported.statusCode).toBe(200);
      expect(imported.json().data.skipped).toEqual([]);
      expect(unpack((await exportArchive(target, 'tar.gz')).rawPayload)).toEqual(files);
    }
  });

  it('round-trips deliver’s details byte for byte but the final line break, the demo password imported only', async () => {
    const tree: Record<string, string> = {
      'fastlane/metadata/en-US/name.txt': 'Weather Pro',
      'fastlane/metadata/copyright.txt': '2026 Example Inc.\n',
      'fastlane/metadata/primary_category.txt': 'WEATHER\n',
      'fastlane/metadata/secondary_category.txt': 'PRODUCTIVITY',
      'fastlane/metadata/review_information/first_name.txt': 'Dana',
      'fastlane/metadata/review_information/last_name.txt': 'Reviewer',
      'fastlane/metadata/review_information/phone_number.txt': '+49 30 1234567',
      'fastlane/metadata/review_information/email_address.txt': 'review@example.com',
      'fastlane/metadata/review_information/demo_user.txt': 'demo',
      'fastlane/metadata/review_information/demo_password.txt': 'imported-secret-42\n',
      'fastlane/metadata/review_information/notes.txt':
        'Sign in with the demo account.\n\nThen open the radar.',
    };
    const source = await newProject();
    const imported = await importArchive(source, tarGz(writeTree(tree), 'fastlane'), 'application/gzip');
    expect(imported.statusCode, imported.body).toBe(200);
    expect(imported.json().data).toMatchObject({ details: 10, skipped: [] });
    const files = unpack((await exportArchive(source, 'tar.gz')).rawPayload);
    // Every file as it was, less one final line break (design.md §19); never the password.
    const expected = Object.fromEntries(
      Object.entries(tree)
        .filter(([file]) => !file.endsWith('demo_password.txt'))
        .map(([file, text]) => [file, text.replace(/\n$/, '')]),
    );
    expect(files).toEqual(expected);
    expect(JSON.stringify(files)).not.toContain('imported-secret-42');
    const details = (
      await h.app.inject({
        method: 'GET',
        url: `/api/v1/projects/${source}/details/appstore`,
        headers: { authorization: `Bearer ${org.admin.apiKey}` },
      })
    ).json().data.details;
    expect(details.review.demoAccountPassword).toEqual({ set: true });
    // A member's import of the same tree takes everything but the password, and says so.
    const member = await h.given.member(org, 'member');
    const target = await newProject();
    const byMember = await importArchive(target, tarGz(writeTree(tree), 'fastlane'), 'application/gzip', {
      apiKey: member.apiKey,
    });
    expect(byMember.json().data.details).toBe(9);
    expect(byMember.json().data.skipped).toEqual([
      {
        path: 'fastlane/metadata/review_information/demo_password.txt',
        reason: 'the demo account password is set by admins only',
      },
    ]);
  });
});
