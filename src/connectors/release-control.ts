/** What release controls act on and how (design.md §20), beside the connector interface that carries them. */

/**
 * A release control (design.md §20): the App Store release type and phased release of the app's
 * newest version (stores-media.md B1), a Google Play track's staged rollout (B2).
 */
export type ReleaseControl =
  | {
      action: 'setReleaseType';
      releaseType: 'MANUAL' | 'AFTER_APPROVAL' | 'SCHEDULED';
      /** With SCHEDULED: the earliest release (ISO time, whole hours). */
      earliestReleaseDate?: string;
    }
  | { action: 'enablePhasedRelease' | 'pausePhasedRelease' | 'resumePhasedRelease' | 'completePhasedRelease' }
  | { action: 'setRolloutFraction'; track: string; fraction: number }
  | { action: 'haltRollout' | 'resumeRollout' | 'completeRollout'; track: string };

export type ReleaseControlAction = ReleaseControl['action'];

/** An App Store version's phased release (ASC `appStoreVersionPhasedReleases`). */
export interface StorePhasedRelease {
  id: string;
  /** INACTIVE, ACTIVE, PAUSED or COMPLETE. */
  state: string;
  startDate: string | null;
  currentDayNumber: number | null;
  totalPauseDuration: number | null;
}

/** What release controls act on, as the store has it now. */
export interface StoreReleaseControls {
  /** App Store: the app's newest version, its release type and phased release. */
  version?: {
    id: string;
    versionString: string;
    state: string;
    releaseType: string | null;
    earliestReleaseDate: string | null;
    phasedRelease: StorePhasedRelease | null;
  } | null;
  /** Google Play: the releases of each track that are rolling out, halted or complete. */
  rollouts?: {
    track: string;
    name: string | null;
    versionCodes: string[];
    status: string;
    userFraction: number | null;
  }[];
}
