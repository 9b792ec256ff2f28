/**
 * Google Play staged rollouts (stores-media.md B2): in an edit, read the track, change the one
 * release that is rolling out or halted — its `userFraction` and `status` — PUT the whole track as
 * read (so no other release is touched) and commit. Raising the fraction keeps it in (0, 1);
 * halting keeps the fraction, resuming sets `inProgress` again, completing drops the fraction.
 */
import {
  StoreError,
  type ReleaseControl,
  type StoreReleaseControls,
  type StoreTrack,
} from '../store-connector.js';
import type { Counter, PlayClient } from './client.js';
import type { Track, TrackRelease } from './tracks.js';

const SHOWN = new Set(['inProgress', 'halted', 'completed']);

const refused = (message: string) => new StoreError('playstore', 'FAILED_PRECONDITION', message, 400, false);
const appStoreOnly = (action: string) =>
  new StoreError('playstore', 'UNSUPPORTED', `${action} is an App Store control`, null, false);

export function rolloutsOf(tracks: StoreTrack[]): NonNullable<StoreReleaseControls['rollouts']> {
  return tracks.flatMap((track) =>
    track.releases
      .filter((release) => SHOWN.has(release.status))
      .map((release) => ({
        track: track.track,
        name: release.name,
        versionCodes: release.versionCodes,
        status: release.status,
        userFraction: release.userFraction,
      })),
  );
}

/** The release a control changes, as it should be sent. */
function changed(release: TrackRelease, control: ReleaseControl): TrackRelease {
  switch (control.action) {
    case 'setRolloutFraction':
      if (release.status === 'halted') throw refused('The rollout is halted: resume it before raising it');
      if (release.userFraction !== undefined && control.fraction <= release.userFraction) {
        throw refused(
          `A staged rollout only increases: it is at ${release.userFraction}; give a larger fraction or complete it`,
        );
      }
      return { ...release, status: 'inProgress', userFraction: control.fraction };
    case 'haltRollout':
      return { ...release, status: 'halted' };
    case 'resumeRollout':
      if (release.status !== 'halted') throw refused('The rollout is not halted');
      return { ...release, status: 'inProgress' };
    case 'completeRollout': {
      const { userFraction: _dropped, ...rest } = release;
      return { ...rest, status: 'completed' };
    }
    default:
      throw appStoreOnly(control.action);
  }
}

export function createPlayReleaseControls(
  client: PlayClient,
  readTracks: (counter: Counter, editUrl: string) => Promise<StoreTrack[]>,
) {
  return {
    async read(counter: Counter, pkg: string): Promise<StoreReleaseControls> {
      return {
        rollouts: rolloutsOf(await client.inEdit(counter, pkg, (editUrl) => readTracks(counter, editUrl))),
      };
    },

    async apply(counter: Counter, pkg: string, control: ReleaseControl): Promise<StoreReleaseControls> {
      if (!('track' in control)) throw appStoreOnly(control.action);
      const editUrl = await client.openEdit(counter, pkg);
      let committed = false;
      try {
        const url = `${editUrl}/tracks/${encodeURIComponent(control.track)}`;
        const track = await client.call<Track>(counter, 'GET', url);
        const releases = track.releases ?? [];
        // The one rolling out (or halted); completing a halted completed release is not a rollout.
        const index = releases.findIndex((r) => r.status === 'inProgress' || r.status === 'halted');
        if (index < 0) throw refused(`Track ${control.track} has no staged rollout in progress or halted`);
        const next = changed(releases[index]!, control);
        // A completed release supersedes the one completed before it (B2.6): that one is not sent.
        const sent =
          next.status === 'completed'
            ? [next, ...releases.filter((r, i) => i !== index && r.status !== 'completed')]
            : releases.map((r, i) => (i === index ? next : r));
        await client.call(counter, 'PUT', url, { ...track, track: control.track, releases: sent });
        await client.call(counter, 'POST', `${editUrl}:commit`, undefined, false);
        committed = true;
      } finally {
        if (!committed) await client.deleteEdit(counter, editUrl);
      }
      return this.read(counter, pkg);
    },
  };
}
