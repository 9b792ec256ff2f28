/**
 * Google Play tracks in the emulator (stores-media.md B2): list, get, update and patch inside an
 * edit, with the acceptance conditions of B2.5 in Google's words (path and body track names,
 * version codes from the app's artifact library, `userFraction` only for inProgress/halted in
 * (0, 1), notes of at most 500 characters in a known language) and the merge rule of B2.6 — a
 * sent release replaces the one sharing its version codes, a new completed release supersedes the
 * previous completed one unless a halted release keeps it as its serving fallback, drafts and
 * rollouts coexist, an empty list clears the track. A note language without a listing is refused
 * at commit (`apkRecentChangesAddedForMissingLanguage`). Knob: an empty track read is 404
 * `trackEmpty` instead of 200.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { PlayFailure } from './errors.js';
import { LOCALES } from './rules.js';
import type { Edit, PlayState, TrackRelease } from './state.js';

const STANDARD_TRACKS = ['production', 'beta', 'alpha', 'internal'];
const FORM_FACTORS = ['wear', 'automotive', 'tv', 'android_xr', 'google_play_games_pc'];
const NOTES_MAX = 500;

type Req = FastifyRequest<{ Params: { packageName: string; editId: string; track?: string } }>;

/** Whether a name is a track of the app: standard, form-factor prefixed, or one of its custom tracks. */
function knownTrack(edit: Edit, name: string): boolean {
  const [prefix, rest] = name.includes(':') ? name.split(':', 2) : [null, name];
  if (prefix !== null && !FORM_FACTORS.includes(prefix)) return false;
  return STANDARD_TRACKS.includes(rest) || edit.tracks.has(name);
}

const badRequest = (message: string) => new PlayFailure(400, 'INVALID_ARGUMENT', message, 'badRequest');

/** B2.5: what Play refuses in a sent release, in its words. */
function checkRelease(release: TrackRelease, artifacts: Map<string, string>): void {
  const fraction = release.userFraction;
  if (fraction !== undefined) {
    if (release.status !== 'inProgress' && release.status !== 'halted') {
      throw badRequest('A user fraction may only be set for releases in progress or halted.');
    }
    if (!(fraction > 0 && fraction < 1)) throw badRequest('User fraction must be in the range (0, 1).');
  }
  const missing = (release.versionCodes ?? []).filter((code) => !artifacts.has(code));
  if (missing.length > 0) {
    throw new PlayFailure(
      404,
      'NOT_FOUND',
      `The following APK version codes could not be found: [${missing.join(', ')}].`,
      'notFound',
    );
  }
  for (const note of release.releaseNotes ?? []) {
    if (!LOCALES.has(note.language)) {
      throw new PlayFailure(
        400,
        'INVALID_ARGUMENT',
        `The requested language is not currently supported: ${note.language}`,
        'unsupportedListingLanguage',
      );
    }
    const length = [...note.text].length;
    if (length > NOTES_MAX) {
      throw new PlayFailure(
        403,
        'PERMISSION_DENIED',
        `The release notes in language ${note.language} with length ${length}, which is too long (max: ${NOTES_MAX}).`,
        'releaseNotesTooLong',
        'androidpublisher',
      );
    }
  }
}

/** B2.6's merge of sent releases into a track's active releases. */
export function mergeReleases(current: TrackRelease[], sent: TrackRelease[]): TrackRelease[] {
  if (sent.length === 0) return [];
  const shares = (a: TrackRelease, b: TrackRelease) =>
    (a.versionCodes ?? []).some((code) => (b.versionCodes ?? []).includes(code));
  let next = current.filter((old) => !sent.some((release) => shares(old, release)));
  const halted = [...next, ...sent].some((r) => r.status === 'halted');
  if (sent.some((r) => r.status === 'completed') && !halted) {
    next = next.filter((old) => old.status !== 'completed');
  }
  return [...sent, ...next];
}

export function registerPlayTracks(state: PlayState, spec: SpecValidator) {
  const respond = (reply: FastifyReply, schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null) throw new Error(`emulator response does not match ${schema}: ${problem}`);
    return reply.code(200).type('application/json').send(body);
  };
  const view = (name: string, releases: TrackRelease[]) => ({
    track: name,
    ...(releases.length > 0 && { releases: releases.map((r) => structuredClone(r)) }),
  });

  return (
    scope: FastifyInstance,
    requireEdit: (request: Req, id: string) => { edit: Edit; app: { artifacts: Map<string, string> } },
  ) => {
    const base = '/applications/:packageName/edits/:editId/tracks';

    scope.get(base, async (request: Req, reply) => {
      const { edit } = requireEdit(request, request.params.editId);
      const names = [...new Set([...STANDARD_TRACKS, ...edit.tracks.keys()])];
      return respond(reply, 'TracksListResponse', {
        kind: 'androidpublisher#tracksListResponse',
        tracks: names.map((name) => view(name, edit.tracks.get(name) ?? [])),
      });
    });

    scope.get(`${base}/:track`, async (request: Req, reply) => {
      const { edit } = requireEdit(request, request.params.editId);
      const name = request.params.track!;
      if (!knownTrack(edit, name))
        throw new PlayFailure(404, 'NOT_FOUND', `Track not found: ${name}`, 'notFound');
      const releases = edit.tracks.get(name) ?? [];
      if (releases.length === 0 && state.trackRules.emptyTrackNotFound) {
        throw new PlayFailure(
          404,
          'NOT_FOUND',
          'Track not found: no APK version codes in the specified track.',
          'trackEmpty',
        );
      }
      return respond(reply, 'Track', view(name, releases));
    });

    const write = async (request: Req, reply: FastifyReply) => {
      const { edit, app } = requireEdit(request, request.params.editId);
      const artifacts = app.artifacts;
      const problem = spec.check('Track', request.body);
      if (problem !== null) throw badRequest(`Invalid JSON payload received. ${problem}`);
      const body = request.body as { track?: string; releases?: TrackRelease[] };
      const name = request.params.track!;
      if (body.track !== undefined && body.track !== name) {
        throw badRequest('Track names in request path and request body must match.');
      }
      if (!knownTrack(edit, name))
        throw new PlayFailure(404, 'NOT_FOUND', `Track not found: ${name}`, 'notFound');
      const sent = (body.releases ?? []).map((release) => {
        checkRelease(release, artifacts);
        const first = release.versionCodes?.[0];
        return {
          ...structuredClone(release),
          ...(release.name === undefined &&
            first !== undefined && { name: `${first} (${artifacts.get(first)})` }),
        };
      });
      edit.tracks.set(name, mergeReleases(edit.tracks.get(name) ?? [], sent));
      return respond(reply, 'Track', view(name, edit.tracks.get(name)!));
    };
    scope.put(`${base}/:track`, write);
    scope.patch(`${base}/:track`, write);
  };
}

/** Commit-time check of the edit's tracks: every note language must have a listing (B2.3). */
export function checkTracksAtCommit(edit: Edit): void {
  for (const releases of edit.tracks.values()) {
    for (const release of releases) {
      for (const note of release.releaseNotes ?? []) {
        if (!edit.listings.has(note.language)) {
          throw new PlayFailure(
            403,
            'PERMISSION_DENIED',
            `Tried to set recent changes text for APK version ${release.versionCodes?.[0] ?? ''} for language ${note.language}. Language is not associated with the app.`,
            'apkRecentChangesAddedForMissingLanguage',
            'androidpublisher',
          );
        }
      }
    }
  }
}
