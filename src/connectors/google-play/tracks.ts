/**
 * Google Play tracks inside an edit (stores-media.md B2): read every track with its releases, and
 * write release notes the way supply does (B2.4) — read the track in the edit, change only the
 * notes of the release that contains the version code, and PUT the whole track as read, so no
 * other release is cleared or replaced. Empty texts are never sent (B2.3).
 */
import {
  StoreError,
  type ReleaseNotesChange,
  type ReleaseNotesResult,
  type StoreTrack,
  type StoreTrackRelease,
} from '../store-connector.js';
import type { Counter, PlayClient } from './client.js';

export interface TrackRelease {
  name?: string;
  versionCodes?: string[];
  status?: string;
  userFraction?: number;
  releaseNotes?: { language: string; text: string }[];
  [other: string]: unknown;
}
export interface Track {
  track: string;
  releases?: TrackRelease[];
}

const releaseOf = (release: TrackRelease): StoreTrackRelease => ({
  name: release.name ?? null,
  versionCodes: release.versionCodes ?? [],
  status: release.status ?? 'statusUnspecified',
  userFraction: release.userFraction ?? null,
  releaseNotes: Object.fromEntries((release.releaseNotes ?? []).map((note) => [note.language, note.text])),
});

export function createPlayTracks(client: PlayClient) {
  return {
    async read(counter: Counter, editUrl: string): Promise<StoreTrack[]> {
      const list = await client.call<{ tracks?: Track[] }>(counter, 'GET', `${editUrl}/tracks`);
      return (list.tracks ?? []).map((track) => ({
        track: track.track,
        releases: (track.releases ?? []).map(releaseOf),
      }));
    },

    /** Writes notes per track: one read and one write of each track, whatever number of releases. */
    async writeNotes(
      counter: Counter,
      editUrl: string,
      changes: ReleaseNotesChange[],
    ): Promise<ReleaseNotesResult[]> {
      const results: ReleaseNotesResult[] = [];
      const byTrack = new Map<string, ReleaseNotesChange[]>();
      for (const change of changes) byTrack.set(change.track, [...(byTrack.get(change.track) ?? []), change]);
      for (const [name, trackChanges] of byTrack) {
        const url = `${editUrl}/tracks/${encodeURIComponent(name)}`;
        const fail = (change: ReleaseNotesChange, code: string, message: string) =>
          results.push({
            track: name,
            versionCode: change.versionCode,
            written: false,
            error: { code, message },
          });
        let track: Track;
        try {
          track = await client.call<Track>(counter, 'GET', url);
        } catch (error) {
          if (!(error instanceof StoreError)) throw error;
          for (const change of trackChanges) fail(change, error.code, error.message);
          continue;
        }
        const releases = track.releases ?? [];
        const applied: ReleaseNotesChange[] = [];
        for (const change of trackChanges) {
          const matching = releases.filter((r) => (r.versionCodes ?? []).includes(change.versionCode));
          if (matching.length !== 1) {
            fail(
              change,
              'RELEASE_NOT_FOUND',
              matching.length === 0
                ? `No release of track ${name} contains version code ${change.versionCode}; sync to see the track as it is`
                : `Several releases of track ${name} contain version code ${change.versionCode}`,
            );
            continue;
          }
          const release = matching[0]!;
          const notes = new Map((release.releaseNotes ?? []).map((note) => [note.language, note.text]));
          for (const [language, text] of Object.entries(change.notes)) {
            if (text === null || text === '') notes.delete(language);
            else notes.set(language, text);
          }
          release.releaseNotes = [...notes].map(([language, text]) => ({ language, text }));
          applied.push(change);
        }
        if (applied.length === 0) continue;
        try {
          // The whole track as read, only those notes changed (B2.4).
          await client.call(counter, 'PUT', url, { ...track, track: name, releases });
          for (const change of applied)
            results.push({ track: name, versionCode: change.versionCode, written: true });
        } catch (error) {
          if (!(error instanceof StoreError)) throw error;
          for (const change of applied) fail(change, error.code, error.message);
        }
      }
      return results;
    },
  };
}
