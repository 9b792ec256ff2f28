/**
 * Versions and release notes end to end against both emulators (design.md §13, stores-media.md
 * B1, B2): the next App Store version created and its What's New written in 30 locales; the first
 * version's refusal said before any store call; Google Play notes synced three-way, written into
 * a track with a staged rollout and a halted fallback without losing either; notes over 500
 * characters and languages without a listing refused before the store is called; nothing written
 * when nothing changed; notes in the diff, its hash and the dry run.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { APPSTORE_LOCALES } from '../../src/shared/stores.js';
import { APP_ID, PACKAGE, startEmulators, type RunningEmulators } from '../support/emulators.js';
import { startHarness, type Actor, type Harness } from '../support/harness.js';

let emu: RunningEmulators;
let h: Harness;
let admin: Actor;

beforeAll(async () => {
  emu = await startEmulators();
  h = await startHarness({ env: emu.env });
  admin = (await h.given.organization()).admin;
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
const writes = () => emu.calls.filter((call) => !call.startsWith('GET ') && call !== 'POST /token');

/** Google Play: a production track with a staged rollout halted over its completed fallback. */
function seedTracks() {
  const app = emu.play.apps.get(PACKAGE)!;
  app.artifacts = new Map([
    ['10', '1.0'],
    ['11', '1.1'],
    ['12', '1.2'],
  ]);
  app.tracks = new Map([
    [
      'production',
      [
        {
          name: '11 (1.1)',
          versionCodes: ['11'],
          status: 'halted',
          userFraction: 0.1,
          releaseNotes: [{ language: 'en-US', text: 'Faster radar' }],
        },
        { name: '10 (1.0)', versionCodes: ['10'], status: 'completed' },
      ],
    ],
    ['beta', [{ name: '12 (1.2)', versionCodes: ['12'], status: 'inProgress', userFraction: 0.2 }]],
  ]);
}

describe('App Store versions and What’s New', () => {
  it('creates the next version, then writes What’s New in 30 locales with one push', async () => {
    const project = await newProject();
    const refused = await admin.api.post(`/api/v1/projects/${project}/releases/appstore`, {
      versionString: '1.2',
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(
      /refused version 1\.2: .*cannot create a new version of the App in the current state/,
    );

    emu.appStore.versions.get('ver-1')!.appVersionState = 'REPLACED_WITH_NEW_VERSION';
    emu.appStore.versions.get('ver-2')!.appVersionState = 'READY_FOR_DISTRIBUTION';
    const created = await admin.api.post(`/api/v1/projects/${project}/releases/appstore`, {
      versionString: '1.2',
    });
    expect(created.status).toBe(201);
    expect(created.body.data.version).toMatchObject({
      versionString: '1.2',
      state: 'PREPARE_FOR_SUBMISSION',
      editable: true,
    });
    const releases = (await admin.api.get(`/api/v1/projects/${project}/releases`)).body.data;
    expect(releases.appStore.versions.map((v: { versionString: string }) => v.versionString)).toEqual([
      '1.2',
      '1.1',
      '1.0',
    ]);
    expect(releases.appStore.versions[2].firstVersion).toBe(true);

    expect((await admin.api.post(`/api/v1/projects/${project}/sync`, {})).status).toBe(200);
    const locales = [...APPSTORE_LOCALES].slice(0, 30);
    for (const locale of locales) {
      const res = await admin.api.patch(`/api/v1/projects/${project}/release-notes/appstore/1.2/${locale}`, {
        text: `What's new in ${locale}`,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const notes = (await admin.api.get(`/api/v1/projects/${project}/release-notes?store=appstore`)).body.data;
    expect(notes.version.versionString).toBe('1.2');
    expect(notes.notes).toHaveLength(30);
    expect(notes.notes[0]).toMatchObject({
      value: expect.stringMatching(/^What's new in /),
      base: null,
      state: 'modified',
    });

    const pushed = (await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'appstore' })).body
      .data;
    expect(pushed.failures).toEqual([]);
    const version = [...emu.appStore.versions.values()].find((v) => v.versionString === '1.2')!;
    const written = [...emu.appStore.versionLocs.values()].filter(
      (l) => l.parentId === version.id && l.attributes.whatsNew,
    );
    expect(written).toHaveLength(30);

    emu.calls.length = 0;
    await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'appstore' });
    expect(writes()).toEqual([]);
  });

  it("refuses What's New on an app's first version before calling the store, saying why", async () => {
    // The app's only version is the one being prepared.
    emu.appStore.versions.delete('ver-1');
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    emu.calls.length = 0;
    const res = await admin.api.patch(`/api/v1/projects/${project}/release-notes/appstore/1.1/en-US`, {
      text: 'First!',
    });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(
      /the app's first: App Store Connect takes What's New only from the second version on/,
    );
    // Written as a listing field anyway, the push leaves it out with the same reason.
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { whatsNew: 'First!' });
    const pushed = (await admin.api.post(`/api/v1/projects/${project}/push`, { store: 'appstore' })).body
      .data;
    expect(pushed.failures).toEqual([
      expect.objectContaining({
        locale: 'en-US',
        field: 'whatsNew',
        error: expect.objectContaining({ code: 'NOT_EDITABLE' }),
      }),
    ]);
    expect(writes()).toEqual([]);
  });
});

describe('Google Play release notes', () => {
  it('syncs notes per release and writes one release’s notes keeping the rollout and its fallback', async () => {
    seedTracks();
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    const releases = (await admin.api.get(`/api/v1/projects/${project}/releases`)).body.data.playStore.tracks;
    expect(releases.find((t: { track: string }) => t.track === 'production').releases).toHaveLength(2);
    const synced = (
      await admin.api.get(`/api/v1/projects/${project}/release-notes?store=playstore&track=production`)
    ).body.data;
    expect(synced.releases[0]).toMatchObject({
      versionCode: '11',
      status: 'halted',
      notes: [{ locale: 'en-US', value: 'Faster radar', base: 'Faster radar', state: 'unchanged' }],
    });

    const url = `/api/v1/projects/${project}/release-notes/playstore/production/11`;
    expect((await admin.api.patch(`${url}/de-DE`, { text: 'Schnelleres Radar' })).status).toBe(200);
    expect((await admin.api.patch(`${url}/en-US`, { text: 'Faster radar, fewer bugs' })).status).toBe(200);
    const diff = (await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(diff.releaseNoteChangeCount).toBe(2);
    expect(diff.releaseNotes.production['11']['de-DE']).toEqual({ old: null, new: 'Schnelleres Radar' });
    const preview = (await admin.api.post(`/api/v1/projects/${project}/push`, { dryRun: true })).body.data;
    expect(preview.releaseNoteChangeCount).toBe(2);
    expect(preview.counts).toEqual({
      playstore: { fields: 0, media: 0, releaseNotes: 2, products: 0, removedLocales: 0 },
    });

    const pushed = (await admin.api.post(`/api/v1/projects/${project}/push`, {})).body.data;
    expect(pushed.failures).toEqual([]);
    expect(pushed.playStore).toMatchObject({ pushed: true, releaseNotes: 1 });
    expect(pushed.written.map((w: any) => [w.store, w.locale, w.releaseNotes])).toEqual([
      ['playstore', 'de-DE', 1],
      ['playstore', 'en-US', 1],
    ]);
    const production = emu.play.apps.get(PACKAGE)!.tracks.get('production')!;
    expect(production).toEqual([
      expect.objectContaining({
        status: 'halted',
        userFraction: 0.1,
        releaseNotes: [
          { language: 'en-US', text: 'Faster radar, fewer bugs' },
          { language: 'de-DE', text: 'Schnelleres Radar' },
        ],
      }),
      expect.objectContaining({ status: 'completed', versionCodes: ['10'] }),
    ]);
    expect(emu.play.apps.get(PACKAGE)!.tracks.get('beta')).toEqual([
      expect.objectContaining({ status: 'inProgress', userFraction: 0.2 }),
    ]);
    expect((await admin.api.get(`/api/v1/projects/${project}/diff`)).body.data.releaseNoteChangeCount).toBe(
      0,
    );

    // Nothing changed: nothing written (no edit even).
    emu.calls.length = 0;
    await admin.api.post(`/api/v1/projects/${project}/push`, {});
    expect(writes()).toEqual([]);
  });

  it('refuses notes over 500 characters, empty notes and languages without a listing before any store call', async () => {
    seedTracks();
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    emu.calls.length = 0;
    const url = `/api/v1/projects/${project}/release-notes/playstore/beta/12`;
    const long = await admin.api.patch(`${url}/en-US`, { text: 'x'.repeat(501) });
    expect(long.status).toBe(400);
    expect(long.body.error.details).toEqual([
      expect.objectContaining({
        field: 'text',
        message: expect.stringMatching(/up to 500 characters; this one has 501/),
      }),
    ]);
    const empty = await admin.api.patch(`${url}/en-US`, { text: '  ' });
    expect(empty.body.error.details[0].field).toBe('text');
    const unlisted = await admin.api.patch(`${url}/fr-FR`, { text: 'Radar' });
    expect(unlisted.status).toBe(400);
    expect(unlisted.body.error.details[0]).toMatchObject({
      field: 'locale',
      message: expect.stringMatching(/add the fr-FR listing first/),
    });
    const unknownRelease = await admin.api.patch(
      `/api/v1/projects/${project}/release-notes/playstore/beta/99/en-US`,
      { text: 'x' },
    );
    expect(unknownRelease.body.error.details[0].field).toBe('versionCode');
    expect(emu.calls).toEqual([]);
  });

  it('binds an approval to the notes: changing one after the approval voids it', async () => {
    seedTracks();
    const org = await h.given.organization();
    for (const store of ['appstore', 'playstore'] as const) {
      await org.admin.api.request('PUT', `/api/v1/organization/credentials/${store}`, emu.credentials[store]);
    }
    await org.admin.api.patch('/api/v1/organization', { settings: { requireApproval: true } });
    const member = await h.given.member(org, 'member');
    const project = (
      await h.given.project(org.admin, { appStoreAppId: APP_ID, playStorePackageName: PACKAGE })
    ).id;
    await org.admin.api.post(`/api/v1/projects/${project}/sync`, {});
    const url = `/api/v1/projects/${project}/release-notes/playstore/beta/12/en-US`;
    await member.api.patch(url, { text: 'Radar' });
    const diff = (await member.api.get(`/api/v1/projects/${project}/diff`)).body.data;
    expect(
      (await org.admin.api.post(`/api/v1/projects/${project}/approvals`, { hash: diff.hash })).status,
    ).toBe(201);
    expect((await member.api.get(`/api/v1/projects/${project}/diff`)).body.data.approval.approved).toBe(true);
    await member.api.patch(url, { text: 'Radar, changed after the approval' });
    expect((await member.api.get(`/api/v1/projects/${project}/diff`)).body.data.approval.approved).toBe(
      false,
    );
    const refused = await member.api.post(`/api/v1/projects/${project}/push`, {});
    expect(refused.body.error.code).toBe('APPROVAL_REQUIRED');
  });

  it('reports notes changed on both sides as a conflict and leaves them out of the push', async () => {
    seedTracks();
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    await admin.api.patch(`/api/v1/projects/${project}/release-notes/playstore/production/11/en-US`, {
      text: 'Ours',
    });
    emu.play.apps.get(PACKAGE)!.tracks.get('production')![0]!.releaseNotes = [
      { language: 'en-US', text: 'Theirs' },
    ];
    const synced = (await admin.api.post(`/api/v1/projects/${project}/sync`, {})).body.data;
    expect(synced.conflicts).toEqual([
      {
        store: 'playstore',
        locale: 'en-US',
        field: 'releaseNotes.production.11',
        localValue: 'Ours',
        storeValue: 'Theirs',
      },
    ]);
    const pushed = (await admin.api.post(`/api/v1/projects/${project}/push`, {})).body.data;
    expect(pushed.failures).toEqual([
      expect.objectContaining({
        field: 'releaseNotes.production.11',
        error: expect.objectContaining({ code: 'CONFLICT' }),
      }),
    ]);
    expect(emu.play.apps.get(PACKAGE)!.tracks.get('production')![0]!.releaseNotes).toEqual([
      { language: 'en-US', text: 'Theirs' },
    ]);
  });
});

describe('release notes: history, revert and copy', () => {
  it("copies What's New into a Play release, refusing a note over 500 characters rather than cutting it", async () => {
    seedTracks();
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/en-US`, { whatsNew: 'Radar maps' });
    await admin.api.patch(`/api/v1/projects/${project}/listings/appstore/de-DE`, {
      name: 'Wetter Pro',
      whatsNew: 'R'.repeat(612),
    });
    const copy = (locales?: string[]) =>
      admin.api.post(`/api/v1/projects/${project}/release-notes/copy`, {
        from: { store: 'appstore' },
        to: { track: 'beta', versionCode: '12' },
        ...(locales !== undefined && { locales }),
      });
    const refused = await copy();
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ field: 'notes.de-DE.text', limit: 500, length: 612 }),
    ]);
    const notesOf = async () =>
      (await admin.api.get(`/api/v1/projects/${project}/release-notes?store=playstore&track=beta`)).body.data
        .releases[0].notes;
    expect(await notesOf()).toEqual([]); // all or nothing
    const copied = await copy(['en-US']);
    expect(copied.status).toBe(200);
    expect(copied.body.data.copied).toEqual([{ from: 'en-US', to: 'en-US' }]);
    expect(await notesOf()).toEqual([expect.objectContaining({ locale: 'en-US', value: 'Radar maps' })]);
  });

  it('keeps every change of a Play note and reverts to before or after one', async () => {
    seedTracks();
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    const url = `/api/v1/projects/${project}/release-notes/playstore/production/11/en-US`;
    await admin.api.patch(url, { text: 'Second' });
    await admin.api.patch(url, { text: 'Third' });
    const history = (await admin.api.get(`${url}/history`)).body.data.entries;
    expect(
      history.map((e: { old: string; new: string; source: string }) => [e.old, e.new, e.source]),
    ).toEqual([
      ['Second', 'Third', 'edit'],
      ['Faster radar', 'Second', 'edit'],
      [null, 'Faster radar', 'sync'],
    ]);
    const reverted = await admin.api.post(`/api/v1/projects/${project}/release-notes/playstore/revert`, {
      historyId: history[1].id,
    });
    expect(reverted.body.data).toMatchObject({
      value: 'Faster radar',
      base: 'Faster radar',
      state: 'unchanged',
    });
    const after = await admin.api.post(`/api/v1/projects/${project}/release-notes/playstore/revert`, {
      historyId: history[0].id,
      to: 'after',
    });
    expect(after.body.data).toMatchObject({ value: 'Third', state: 'modified' });
  });
});

describe('release notes over MCP', () => {
  it('lists versions and tracks, writes and reads notes as REST does, and passes on a store refusal', async () => {
    seedTracks();
    const project = await newProject();
    await admin.api.post(`/api/v1/projects/${project}/sync`, {});
    const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
    const client = new Client({ name: 'appmeta-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${admin.apiKey}` } },
      }),
    );
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args });
        return { isError: result.isError === true, data: result.structuredContent as any };
      };
      const listed = await call('list_releases', { projectId: project });
      expect(listed.data.playStore.tracks.map((t: { track: string }) => t.track)).toContain('production');
      const written = await call('update_release_notes', {
        projectId: project,
        store: 'playstore',
        track: 'beta',
        versionCode: '12',
        locale: 'de-DE',
        text: 'Neu: Radar',
      });
      expect(written.isError).toBe(false);
      const rest = (
        await admin.api.get(`/api/v1/projects/${project}/release-notes?store=playstore&track=beta`)
      ).body.data;
      expect(rest.releases[0].notes).toEqual([
        { locale: 'de-DE', value: 'Neu: Radar', base: null, state: 'modified' },
      ]);
      // fastlane: supply's changelogs/<versionCode>.txt out, and in again (default.txt too).
      const exported = await call('export_fastlane', { projectId: project });
      expect(exported.data.files['fastlane/metadata/android/en-US/changelogs/11.txt']).toBe('Faster radar');
      expect(exported.data.files['fastlane/metadata/android/de-DE/changelogs/12.txt']).toBe('Neu: Radar');
      const other = await newProject();
      await admin.api.post(`/api/v1/projects/${other}/sync`, {});
      const imported = await call('import_fastlane', {
        projectId: other,
        files: {
          ...exported.data.files,
          'fastlane/metadata/android/en-US/changelogs/11.txt': 'Faster radar, again\n',
          'fastlane/metadata/android/de-DE/changelogs/default.txt': 'Standard',
        },
      });
      expect(imported.isError).toBe(false);
      expect(imported.data.releaseNotes).toBe(3);
      const notesOf = async (track: string) =>
        (await admin.api.get(`/api/v1/projects/${other}/release-notes?store=playstore&track=${track}`)).body
          .data.releases;
      const production = await notesOf('production');
      expect(production[0].notes.map((n: { locale: string; value: string }) => [n.locale, n.value])).toEqual([
        ['de-DE', 'Standard'],
        ['en-US', 'Faster radar, again'],
      ]);
      expect((await notesOf('beta'))[0].notes).toEqual([
        expect.objectContaining({ locale: 'de-DE', value: 'Neu: Radar' }),
      ]);
      // A changelog over 500 characters is refused by name, and nothing of the import is written.
      const tooLong = await call('import_fastlane', {
        projectId: other,
        files: {
          'fastlane/metadata/android/en-US/title.txt': 'Changed title',
          'fastlane/metadata/android/en-US/changelogs/12.txt': 'x'.repeat(501),
        },
      });
      expect(tooLong.isError).toBe(true);
      expect(tooLong.data.error.details[0].field).toBe('fastlane/metadata/android/en-US/changelogs/12.txt');
      const title = (await admin.api.get(`/api/v1/projects/${other}/listings/playstore/en-US`)).body.data
        .listing.fields.title;
      expect(title.value).not.toBe('Changed title');

      const refused = await call('create_app_store_version', { projectId: project, versionString: '2.0' });
      expect(refused.isError).toBe(true);
      expect(refused.data.error.code).toBe('CONFLICT');
      expect(refused.data.error.message).toMatch(/cannot create a new version/);
    } finally {
      await client.close();
    }
  });
});
