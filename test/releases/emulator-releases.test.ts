/**
 * Versions and tracks in the emulators (stores-media.md B1, B2 and checklist C), driven as a
 * client of each API would: App Store version creation with Apple's refusals and what a new
 * version carries forward, `appStoreState` kept consistent; Google Play tracks with the
 * acceptance conditions of B2.5 in Google's words, the merge rule of B2.6 (a staged rollout and a
 * halted release with its fallback survive a write of one release's notes), notes over 500
 * characters, and a note language without a listing refused at commit with nothing applied.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  APP_ID,
  appleToken as signedAppleToken,
  googleToken as signedGoogleToken,
  PACKAGE,
  startEmulators,
  type RunningEmulators,
} from '../support/emulators.js';

let emu: RunningEmulators;
let appleToken: string;
let googleToken: string;

beforeAll(async () => {
  emu = await startEmulators();
  appleToken = await signedAppleToken(emu);
});
afterAll(() => emu.close());
beforeEach(async () => {
  emu.restore();
  googleToken = await signedGoogleToken(emu);
});

async function call(token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${emu.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}
const asc = (method: string, path: string, body?: unknown) => call(appleToken, method, `/v1${path}`, body);
const play = (method: string, path: string, body?: unknown) =>
  call(googleToken, method, `/androidpublisher/v3/applications/${PACKAGE}${path}`, body);

const createVersion = (versionString: string) =>
  asc('POST', '/appStoreVersions', {
    data: {
      type: 'appStoreVersions',
      attributes: { versionString, platform: 'IOS' },
      relationships: { app: { data: { type: 'apps', id: APP_ID } } },
    },
  });

describe('App Store versions in the emulator', () => {
  it('refuses a new version while one is unreleased, and a version string used before', async () => {
    const refused = await createVersion('2.0');
    expect(refused.status).toBe(409);
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        code: 'ENTITY_ERROR.RELATIONSHIP.INVALID',
        detail: 'You cannot create a new version of the App in the current state.',
        source: { pointer: '/data/relationships/app' },
      }),
    ]);
    const both = await createVersion('1.1');
    expect(both.body.errors.map((e: { code: string }) => e.code)).toEqual([
      'ENTITY_ERROR.RELATIONSHIP.INVALID',
      'ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE',
    ]);
    expect(both.body.errors[1].detail).toBe('The version number has been previously used.');
  });

  it('creates the next version once the last is released, carrying its texts but not What’s New', async () => {
    emu.appStore.versions.get('ver-1')!.appVersionState = 'REPLACED_WITH_NEW_VERSION';
    emu.appStore.versions.get('ver-2')!.appVersionState = 'READY_FOR_DISTRIBUTION';
    const created = await createVersion('1.2');
    expect(created.status).toBe(201);
    expect(created.body.data.attributes).toMatchObject({
      versionString: '1.2',
      platform: 'IOS',
      appVersionState: 'PREPARE_FOR_SUBMISSION',
      appStoreState: 'PREPARE_FOR_SUBMISSION',
    });
    const id = created.body.data.id;
    const localizations = await asc('GET', `/appStoreVersions/${id}/appStoreVersionLocalizations`);
    expect(localizations.body.data).toHaveLength(1);
    expect(localizations.body.data[0].attributes).toMatchObject({
      locale: 'en-US',
      description: 'Hourly forecasts.',
      keywords: 'rain,radar',
    });
    expect(localizations.body.data[0].attributes.whatsNew).toBeUndefined();
    // What's New may be written on it: the app has earlier versions.
    const locId = localizations.body.data[0].id;
    const patched = await asc('PATCH', `/appStoreVersionLocalizations/${locId}`, {
      data: { type: 'appStoreVersionLocalizations', id: locId, attributes: { whatsNew: 'Radar maps' } },
    });
    expect(patched.status).toBe(200);
    // The deprecated state follows the current one; filters by version string work.
    const live = await asc('GET', `/apps/${APP_ID}/appStoreVersions?filter[versionString]=1.1`);
    expect(live.body.data.map((v: { attributes: object }) => v.attributes)).toEqual([
      expect.objectContaining({ appVersionState: 'READY_FOR_DISTRIBUTION', appStoreState: 'READY_FOR_SALE' }),
    ]);
  });
});

describe('Google Play tracks in the emulator', () => {
  const seedTracks = () => {
    const app = emu.play.apps.get(PACKAGE)!;
    app.artifacts = new Map([
      ['1', '1.0'],
      ['2', '2.0'],
      ['3', '3.0'],
    ]);
    app.tracks = new Map([
      [
        'production',
        [
          { name: '2 (2.0)', versionCodes: ['2'], status: 'halted', userFraction: 0.2 },
          { name: '1 (1.0)', versionCodes: ['1'], status: 'completed' },
        ],
      ],
      ['beta', [{ name: '3 (3.0)', versionCodes: ['3'], status: 'inProgress', userFraction: 0.05 }]],
    ]);
  };
  const newEdit = async () => (await play('POST', '/edits', {})).body.id as string;

  it('lists every standard track and keeps other releases when one release gets notes', async () => {
    seedTracks();
    const edit = await newEdit();
    const list = await play('GET', `/edits/${edit}/tracks`);
    expect(list.body.tracks.map((t: { track: string }) => t.track)).toEqual([
      'production',
      'beta',
      'alpha',
      'internal',
    ]);
    const production = (await play('GET', `/edits/${edit}/tracks/production`)).body;
    production.releases[0].releaseNotes = [{ language: 'en-US', text: 'Radar maps' }];
    const written = await play('PUT', `/edits/${edit}/tracks/production`, production);
    expect(written.status).toBe(200);
    expect(written.body.releases).toEqual([
      expect.objectContaining({
        status: 'halted',
        releaseNotes: [{ language: 'en-US', text: 'Radar maps' }],
      }),
      expect.objectContaining({ status: 'completed', versionCodes: ['1'] }),
    ]);
    expect((await play('POST', `/edits/${edit}:commit`)).status).toBe(200);
    expect(emu.play.apps.get(PACKAGE)!.tracks.get('production')).toHaveLength(2);
    expect(emu.play.apps.get(PACKAGE)!.tracks.get('beta')).toEqual([
      expect.objectContaining({ status: 'inProgress', userFraction: 0.05 }),
    ]);
  });

  it("refuses what Google refuses, in Google's words", async () => {
    seedTracks();
    const edit = await newEdit();
    const put = (track: string, body: object) => play('PUT', `/edits/${edit}/tracks/${track}`, body);
    const mismatch = await put('beta', { track: 'production', releases: [] });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.message).toBe('Track names in request path and request body must match.');
    const unknownCode = await put('beta', {
      track: 'beta',
      releases: [{ versionCodes: ['37'], status: 'completed' }],
    });
    expect(unknownCode.status).toBe(404);
    expect(unknownCode.body.error.message).toBe('The following APK version codes could not be found: [37].');
    const fraction = await put('beta', {
      track: 'beta',
      releases: [{ versionCodes: ['3'], status: 'completed', userFraction: 0.5 }],
    });
    expect(fraction.status).toBe(400);
    const long = await put('beta', {
      track: 'beta',
      releases: [
        {
          versionCodes: ['3'],
          status: 'inProgress',
          userFraction: 0.05,
          releaseNotes: [{ language: 'en-US', text: 'x'.repeat(546) }],
        },
      ],
    });
    expect(long.status).toBe(403);
    expect(long.body.error.message).toBe(
      'The release notes in language en-US with length 546, which is too long (max: 500).',
    );
  });

  it('refuses at commit notes in a language without a listing, applying nothing', async () => {
    seedTracks();
    const edit = await newEdit();
    const beta = (await play('GET', `/edits/${edit}/tracks/beta`)).body;
    beta.releases[0].releaseNotes = [{ language: 'fr-FR', text: 'Cartes radar' }];
    expect((await play('PUT', `/edits/${edit}/tracks/beta`, beta)).status).toBe(200);
    const commit = await play('POST', `/edits/${edit}:commit`);
    expect(commit.status).toBe(403);
    expect(commit.body.error.errors[0].reason).toBe('apkRecentChangesAddedForMissingLanguage');
    expect(commit.body.error.message).toBe(
      'Tried to set recent changes text for APK version 3 for language fr-FR. Language is not associated with the app.',
    );
    expect(emu.play.apps.get(PACKAGE)!.tracks.get('beta')![0]!.releaseNotes).toBeUndefined();
  });

  it('lets a new completed release supersede the last one, and reads an empty track as the knob says', async () => {
    seedTracks();
    emu.play.apps
      .get(PACKAGE)!
      .tracks.set('production', [{ name: '1 (1.0)', versionCodes: ['1'], status: 'completed' }]);
    const edit = await newEdit();
    const written = await play('PUT', `/edits/${edit}/tracks/production`, {
      track: 'production',
      releases: [{ versionCodes: ['2'], status: 'completed' }],
    });
    expect(written.body.releases).toEqual([{ name: '2 (2.0)', versionCodes: ['2'], status: 'completed' }]);
    expect((await play('GET', `/edits/${edit}/tracks/alpha`)).body).toEqual({ track: 'alpha' });
    emu.play.trackRules.emptyTrackNotFound = true;
    const empty = await play('GET', `/edits/${edit}/tracks/alpha`);
    expect(empty.status).toBe(404);
    expect(empty.body.error.errors[0].reason).toBe('trackEmpty');
  });
});
