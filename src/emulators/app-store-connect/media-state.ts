/** The App Store emulator's screenshot and preview records and the knobs of its media behaviour. */

export type MediaKindName = 'screenshots' | 'previews';

export interface MediaSet {
  id: string;
  kind: MediaKindName;
  localizationId: string;
  /** The display type (screenshots) or preview type (previews). */
  displayType: string;
  /** Item ids in display order. */
  items: string[];
}

export interface MediaAsset {
  id: string;
  kind: MediaKindName;
  setId: string;
  fileName: string;
  fileSize: number;
  /** The bytes received so far (parts land at their offsets). */
  bytes: Buffer;
  received: boolean[];
  state: 'AWAITING_UPLOAD' | 'UPLOAD_COMPLETE' | 'COMPLETE' | 'FAILED';
  checksum: string | null;
  errors: { code: string; description: string }[];
  width: number | null;
  height: number | null;
  expiresAt: number;
  /** Reads left before the checksum shows after COMPLETE (the checksum-lag knob). */
  checksumHiddenReads: number;
}

export interface MediaSettings {
  /** Milliseconds between a commit and the end of processing. */
  processingDelayMs: number;
  /** Bytes per upload operation (Apple's part size is undocumented; 5 MiB as the build API). */
  partSize: number;
  /** Reads of a COMPLETE screenshot during which `sourceFileChecksum` is still missing. */
  checksumLagReads: number;
  /** The next N reservations are created but answered 503 (fastlane#16842). */
  failCreatedReservations: number;
  /** The next N commits are applied but answered 504. */
  timeOutAppliedCommits: number;
  /** Milliseconds after a set's DELETE during which creating it again is still 409 "Already Exists". */
  setRecreateBlockMs: number;
}

export const DEFAULT_MEDIA_SETTINGS: MediaSettings = {
  processingDelayMs: 50,
  partSize: 5 * 1024 * 1024,
  checksumLagReads: 0,
  failCreatedReservations: 0,
  timeOutAppliedCommits: 0,
  setRecreateBlockMs: 0,
};
