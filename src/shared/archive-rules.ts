/** What every archive reader checks: the limits, the refusals, an entry's path and count. */

export type ArchiveFormat = 'tar.gz' | 'zip';

export interface ArchiveLimits {
  /** The archive itself, as sent. */
  maxCompressedBytes: number;
  /** Everything the archive expands to, entries not read included (tar). */
  maxTotalBytes: number;
  /** One entry, expanded. */
  maxEntryBytes: number;
  maxEntries: number;
  /** Expanded ÷ compressed, checked once an entry (zip) or the stream (gzip) passes 1 MiB expanded. */
  maxRatio: number;
  /** Folders in an entry's path. */
  maxDepth: number;
}

/** Why an archive was refused: `tooLarge` answers 413, the others 400. */
export class ArchiveError extends Error {
  constructor(
    readonly kind: 'tooLarge' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'ArchiveError';
  }
}

export const tooLarge = (message: string) => new ArchiveError('tooLarge', message);
export const invalid = (message: string) => new ArchiveError('invalid', message);

export const MIB = 1024 * 1024;
export const RATIO_FLOOR_BYTES = MIB;
export const mib = (bytes: number) => `${+(bytes / MIB).toFixed(1)} MiB`;

export interface ArchiveContents {
  format: ArchiveFormat;
  /** The entries that `want` asked for, by path, as bytes. */
  files: Map<string, Buffer>;
  /** Every regular file's path, wanted or not (hidden files excluded). */
  names: string[];
  /** The folders the archive lists (without the trailing /), empty ones included. */
  folders: string[];
}

/** Checks an entry's path and answers it normalised (no leading ./), or null for hidden files. */
export function checkedPath(raw: string, limits: ArchiveLimits): string | null {
  if (raw.includes('\0')) throw invalid(`An entry name contains the NUL character: ${JSON.stringify(raw)}`);
  if (raw.includes('\\')) throw invalid(`Entry names must use / and not \\: ${JSON.stringify(raw)}`);
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw invalid(`The entry ${raw} has an absolute path`);
  const parts = raw.replace(/^(\.\/)+/, '').split('/');
  if (parts.includes('..')) throw invalid(`The entry ${raw} points outside the archive (..)`);
  if (parts.length - 1 > limits.maxDepth) {
    throw invalid(`The entry ${raw} is nested deeper than ${limits.maxDepth} folders`);
  }
  // Hidden files (.DS_Store, __MACOSX-like noise, .git) are not part of a fastlane tree.
  if (parts.some((part) => part.startsWith('.') && part !== '.')) return null;
  return parts.filter((part) => part !== '.').join('/');
}

export function countEntry(seen: Set<string>, path: string, limits: ArchiveLimits): void {
  if (seen.has(path)) throw invalid(`The archive holds ${path} twice`);
  seen.add(path);
  if (seen.size > limits.maxEntries) throw tooLarge(`The archive holds more than ${limits.maxEntries} files`);
}
