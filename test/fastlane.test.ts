import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestOrganization } from './support/harness.js';

let h: Harness;
let org: TestOrganization;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
});
afterAll(() => h.close());

/** Writes a fastlane tree as deliver and supply lay it out, with the files they also keep there. */
function writeFastlaneTree(files: Record<string, string>): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fastlane-'));
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(root, file);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, content);
  }
  return root;
}

const REAL_TREE = {
  'fastlane/metadata/copyright.txt': '2026 Example Inc.\n',
  'fastlane/metadata/primary_category.txt': 'WEATHER\n',
  'fastlane/metadata/review_information/email_address.txt': 'review@example.com\n',
  'fastlane/metadata/default/privacy_url.txt': 'https://example.com/privacy\n',
  'fastlane/metadata/en-US/name.txt': 'Weather Pro\n',
  'fastlane/metadata/en-US/subtitle.txt': 'Forecasts that matter\n',
  'fastlane/metadata/en-US/description.txt': 'Hourly forecasts.\n\nRadar maps.\n',
  'fastlane/metadata/en-US/keywords.txt': 'rain,radar,forecast\n',
  'fastlane/metadata/en-US/release_notes.txt': 'Bug fixes.\n',
  'fastlane/metadata/en-US/support_url.txt': 'https://example.com/support\n',
  'fastlane/metadata/en-US/marketing_url.txt': '\n',
  'fastlane/metadata/de-de/name.txt': 'Wetter Pro\n', // deliver matches locale folders case-insensitively
  'fastlane/metadata/de-de/privacy_url.txt': 'https://example.com/de/datenschutz\n',
  'fastlane/metadata/android/en-US/title.txt': 'Weather Pro',
  'fastlane/metadata/android/en-US/short_description.txt': 'Forecasts that matter',
  'fastlane/metadata/android/en-US/full_description.txt': 'Hourly forecasts.\n\nRadar maps.',
  'fastlane/metadata/android/en-US/video.txt': 'https://www.youtube.com/watch?v=abc',
  'fastlane/metadata/android/en-US/changelogs/42.txt': 'Bug fixes.',
  'fastlane/metadata/android/en-US/images/phoneScreenshots/1_en-US.png': 'PNG',
  'fastlane/metadata/android/ja-JP/title.txt': '天気プロ',
};

const importArchive = (projectId: string, body: Buffer, contentType: string, apiKey = org.admin.apiKey) =>
  h.app.inject({
    method: 'POST',
    url: `/api/v1/projects/${projectId}/import`,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType },
    payload: body,
  });

describe('fastlane import and export', () => {
  it('imports a real fastlane tree (tar.gz) with deliver and supply rules', async () => {
    const project = (
      await h.given.project(org.admin, { appStoreAppId: '1', playStorePackageName: 'com.example.weather' })
    ).id;
    const root = writeFastlaneTree(REAL_TREE);
    const archive = execFileSync('tar', ['-czf', '-', '-C', root, 'fastlane']);
    const res = await importArchive(project, archive, 'application/gzip');
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.imported).toEqual(
      expect.arrayContaining([
        { store: 'appstore', locale: 'en-US', fields: 7 },
        { store: 'appstore', locale: 'de-DE', fields: 2 },
        { store: 'playstore', locale: 'en-US', fields: 4 },
        { store: 'playstore', locale: 'ja-JP', fields: 1 },
      ]),
    );
    expect(data.skipped).toEqual(
      expect.arrayContaining([
        'fastlane/metadata/copyright.txt',
        'fastlane/metadata/en-US/marketing_url.txt',
        'fastlane/metadata/android/en-US/changelogs/42.txt',
        'fastlane/metadata/review_information/email_address.txt',
      ]),
    );
    const en = (await org.admin.api.get(`/api/v1/projects/${project}/listings/appstore/en-US`)).body.data
      .listing.fields;
    expect(en.name.value).toBe('Weather Pro'); // trimmed
    expect(en.description.value).toBe('Hourly forecasts.\n\nRadar maps.');
    expect(en.privacyPolicyUrl.value).toBe('https://example.com/privacy'); // from default/
    const de = (await org.admin.api.get(`/api/v1/projects/${project}/listings/appstore/de-DE`)).body.data
      .listing.fields;
    expect(de.privacyPolicyUrl.value).toBe('https://example.com/de/datenschutz');
    const play = (await org.admin.api.get(`/api/v1/projects/${project}/listings/playstore/en-US`)).body.data
      .listing.fields;
    expect(play.fullDescription.value).toBe('Hourly forecasts.\n\nRadar maps.');
    const history = await org.admin.api.get(`/api/v1/projects/${project}/listings/playstore/ja-JP/history`);
    expect(history.body.data.entries[0]).toMatchObject({ field: 'title', source: 'import', new: '天気プロ' });
  });

  it('round-trips: export (tar.gz and zip) then import into another project gives equal listings', async () => {
    const source = (
      await h.given.project(org.admin, { appStoreAppId: '1', playStorePackageName: 'com.example.weather' })
    ).id;
    const root = writeFastlaneTree(REAL_TREE);
    await importArchive(
      source,
      execFileSync('tar', ['-czf', '-', '-C', root, 'fastlane']),
      'application/gzip',
    );
    const values = async (project: string) =>
      (await org.admin.api.get(`/api/v1/projects/${project}/listings`)).body.data.listings.map((l: any) => ({
        store: l.store,
        locale: l.locale,
        values: Object.fromEntries(Object.entries(l.fields).map(([k, v]: [string, any]) => [k, v.value])),
      }));
    for (const archive of ['tar.gz', 'zip'] as const) {
      const exported = await h.app.inject({
        method: 'GET',
        url: `/api/v1/projects/${source}/export?format=fastlane&archive=${archive}`,
        headers: { authorization: `Bearer ${org.admin.apiKey}` },
      });
      expect(exported.statusCode).toBe(200);
      expect(exported.headers['content-type']).toBe(
        archive === 'zip' ? 'application/zip' : 'application/gzip',
      );
      const target = (
        await h.given.project(org.admin, { appStoreAppId: '2', playStorePackageName: 'com.example.copy' })
      ).id;
      const imported = await importArchive(
        target,
        exported.rawPayload,
        archive === 'zip' ? 'application/zip' : 'application/gzip',
      );
      expect(imported.statusCode).toBe(200);
      expect(await values(target)).toEqual(await values(source));
    }
  });

  it('exports the layouts fastlane reads: deliver with trailing newlines, supply as is', async () => {
    const project = (
      await h.given.project(org.admin, { appStoreAppId: '1', playStorePackageName: 'com.example.weather' })
    ).id;
    await org.admin.api.patch(`/api/v1/projects/${project}/listings/appstore/fr-FR`, {
      name: 'Météo',
      whatsNew: 'Corrections',
    });
    await org.admin.api.patch(`/api/v1/projects/${project}/listings/playstore/fr-FR`, { title: 'Météo' });
    const exported = await h.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${project}/export`,
      headers: { authorization: `Bearer ${org.admin.apiKey}` },
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-'));
    fs.writeFileSync(path.join(dir, 'x.tar.gz'), exported.rawPayload);
    execFileSync('tar', ['-xzf', 'x.tar.gz'], { cwd: dir });
    expect(fs.readFileSync(path.join(dir, 'fastlane/metadata/fr-FR/name.txt'), 'utf8')).toBe('Météo\n');
    expect(fs.readFileSync(path.join(dir, 'fastlane/metadata/fr-FR/release_notes.txt'), 'utf8')).toBe(
      'Corrections\n',
    );
    expect(fs.readFileSync(path.join(dir, 'fastlane/metadata/android/fr-FR/title.txt'), 'utf8')).toBe(
      'Météo',
    );
  });

  it('imports all or nothing: one over-long file is 400 naming it, and nothing changes', async () => {
    const project = (
      await h.given.project(org.admin, { appStoreAppId: '1', playStorePackageName: 'com.example.weather' })
    ).id;
    const root = writeFastlaneTree({
      'metadata/en-US/name.txt': 'Fine name',
      'metadata/android/en-US/title.txt': 'T'.repeat(31),
    });
    execFileSync('zip', ['-qr', 'tree.zip', 'metadata'], { cwd: root });
    const res = await importArchive(project, fs.readFileSync(path.join(root, 'tree.zip')), 'application/zip');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.details).toEqual([
      {
        field: 'metadata/android/en-US/title.txt',
        message: 'must be at most 30 characters (has 31)',
        limit: 30,
        length: 31,
      },
    ]);
    expect((await org.admin.api.get(`/api/v1/projects/${project}/listings`)).body.data.listings).toEqual([]);
  });

  it('answers 400 for a body that is no archive, or an archive without listing texts, and 403 for viewers', async () => {
    const project = (await h.given.project(org.admin, { appStoreAppId: '1' })).id;
    expect((await importArchive(project, Buffer.from('hello'), 'application/gzip')).statusCode).toBe(400);
    const root = writeFastlaneTree({ 'README.md': 'nothing here' });
    const empty = await importArchive(
      project,
      execFileSync('tar', ['-czf', '-', '-C', root, '.']),
      'application/gzip',
    );
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.message).toContain('No listing texts');
    const viewer = await h.given.member(org, 'viewer');
    const tree = writeFastlaneTree({ 'metadata/en-US/name.txt': 'Viewer' });
    const refused = await importArchive(
      project,
      execFileSync('tar', ['-czf', '-', '-C', tree, 'metadata']),
      'application/gzip',
      viewer.apiKey,
    );
    expect(refused.statusCode).toBe(403);
  });
});
