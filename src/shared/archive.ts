/**
 * tar.gz and zip archives for fastlane import/export. Reading treats every archive as hostile: the
 * compressed body is read with a byte limit, entries are inflated one at a time with their output
 * bounded while inflating, and an archive is refused — before anything of it is used — when an
 * entry's name escapes the root, a name repeats, an entry is a link, zip records overlap (the
 * "overlapping files" bomb), or a size, count, ratio or depth limit is passed. Entries the caller
 * does not want are listed but never inflated (zip) or only drained (tar), so a bomb nested inside
 * the archive is never expanded.
 */
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type * as fflate from 'fflate';
import type * as tarStream from 'tar-stream';
import { lazyModule } from './lazy-module.js';
import {
  ArchiveError,
  checkedPath,
  countEntry,
  invalid,
  mib,
  RATIO_FLOOR_BYTES,
  tooLarge,
  type ArchiveContents,
  type ArchiveFormat,
  type ArchiveLimits,
} from './archive-rules.js';
import { readZip } from './zip-reader.js';

export { ArchiveError, type ArchiveContents, type ArchiveFormat, type ArchiveLimits };

// Loaded by the first import or export rather than at start-up.
const zipModule = lazyModule<typeof fflate>('fflate');
const tarModule = lazyModule<typeof tarStream>('tar-stream');

/** Detects the format by magic bytes: gzip 1f 8b, zip "PK\x03\x04" (or an empty zip's "PK\x05\x06"). */
export function detectArchive(head: Buffer): ArchiveFormat | null {
  if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) return 'tar.gz';
  if (head.length >= 4 && (head.readUInt32LE(0) === 0x04034b50 || head.readUInt32LE(0) === 0x06054b50))
    return 'zip';
  return null;
}

export async function packArchive(files: Map<string, string>, format: ArchiveFormat): Promise<Buffer> {
  if (format === 'zip') {
    const entries = Object.fromEntries([...files].map(([path, text]) => [path, Buffer.from(text, 'utf8')]));
    return Buffer.from(zipModule().zipSync(entries));
  }
  const pack = tarModule().pack();
  for (const [path, text] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    pack.entry({ name: path, mtime: new Date(0) }, Buffer.from(text, 'utf8'));
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return zlib.gzipSync(Buffer.concat(chunks));
}

/**
 * Reads an archive from a stream (or a buffer), within `limits`. `want(path)` says which entries
 * to return; the others are only listed. Throws ArchiveError.
 */
export async function readArchive(
  source: Readable | Buffer,
  limits: ArchiveLimits,
  want: (path: string) => boolean,
): Promise<ArchiveContents> {
  const body = Buffer.isBuffer(source) ? source : await readBounded(source, limits.maxCompressedBytes);
  if (body.length > limits.maxCompressedBytes) {
    throw tooLarge(`The archive is larger than ${mib(limits.maxCompressedBytes)}`);
  }
  if (body.length === 0) {
    throw invalid(
      'The body is empty: send the archive, with Content-Type application/gzip or application/zip',
    );
  }
  const format = detectArchive(body);
  if (format === 'zip') return readZip(body, limits, want);
  if (format === 'tar.gz') return readTarGz(body, limits, want);
  throw invalid('The body is not a tar.gz or zip archive');
}

/** Reads a stream into memory, refusing it as soon as it passes `max` bytes. */
async function readBounded(stream: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > max) {
      stream.destroy();
      throw tooLarge(`The archive is larger than ${mib(max)}`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

// --- tar.gz ----------------------------------------------------------------------------------

/** Counts what gunzip produces and stops it at the total and ratio limits. */
class ExpansionGuard extends Transform {
  private produced = 0;
  /** Why the guard stopped the stream, if it did. */
  refusal: ArchiveError | null = null;
  constructor(
    private readonly compressedBytes: number,
    private readonly limits: ArchiveLimits,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.produced += chunk.length;
    if (this.produced > this.limits.maxTotalBytes) {
      this.refusal = tooLarge(`The archive expands to more than ${mib(this.limits.maxTotalBytes)}`);
    } else if (
      this.produced > RATIO_FLOOR_BYTES &&
      this.produced > this.compressedBytes * this.limits.maxRatio
    ) {
      this.refusal = tooLarge(
        `The archive is compressed more than ${this.limits.maxRatio}:1, which no fastlane tree is`,
      );
    }
    done(this.refusal, this.refusal === null ? chunk : undefined);
  }
}

/**
 * One tar entry checked against the limits: a folder, a regular file (counted, its size within
 * the per-file limit), or a hidden entry to skip; a link or special file is refused.
 */
function checkTarEntry(
  header: { name: string; type?: string | null; size?: number },
  limits: ArchiveLimits,
  seen: Set<string>,
): { kind: 'folder' | 'skip'; path: string } | { kind: 'file'; path: string; size: number } {
  const { name, type, size = 0 } = header;
  if (type === 'directory') {
    const folder = checkedPath(name.replace(/\/+$/, ''), limits);
    return folder === null || folder === '' ? { kind: 'skip', path: '' } : { kind: 'folder', path: folder };
  }
  if (type === 'symlink' || type === 'link') throw invalid(`The entry ${name} is a link`);
  if (type !== 'file' && type !== 'contiguous-file') throw invalid(`The entry ${name} is not a regular file`);
  const path = checkedPath(name, limits);
  if (path === null) return { kind: 'skip', path: name };
  countEntry(seen, path, limits);
  if (size > limits.maxEntryBytes) {
    throw tooLarge(`${path} is ${mib(size)}, more than the ${mib(limits.maxEntryBytes)} allowed per file`);
  }
  return { kind: 'file', path, size };
}

async function readTarGz(
  body: Buffer,
  limits: ArchiveLimits,
  want: (path: string) => boolean,
): Promise<ArchiveContents> {
  const files = new Map<string, Buffer>();
  const names: string[] = [];
  const folders: string[] = [];
  const seen = new Set<string>();
  const extract = tarModule().extract();
  const consume = (async () => {
    for await (const entry of extract) {
      const checked = checkTarEntry(entry.header, limits, seen);
      if (checked.kind === 'folder') folders.push(checked.path);
      if (checked.kind !== 'file') {
        entry.resume();
        continue;
      }
      const { path } = checked;
      names.push(path);
      if (!want(path)) {
        entry.resume();
        continue;
      }
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      files.set(path, Buffer.concat(chunks));
    }
  })();
  const guard = new ExpansionGuard(body.length, limits);
  try {
    await Promise.all([pipeline(Readable.from([body]), zlib.createGunzip(), guard, extract), consume]);
  } catch (error) {
    extract.destroy();
    if (error instanceof ArchiveError) throw error;
    if (guard.refusal !== null) throw guard.refusal;
    throw invalid(`The tar.gz archive cannot be read: ${(error as Error).message}`);
  }
  return { format: 'tar.gz', files, names, folders };
}

// --- streamed tar.gz (media) ---------------------------------------------------------------------

/** Counts the compressed bytes as they arrive and stops past the limit. */
class CompressedGuard extends Transform {
  bytes = 0;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    done(this.bytes > this.max ? tooLarge(`The archive is larger than ${mib(this.max)}`) : null, chunk);
  }
}

/**
 * Reads a tar.gz as it streams, handing each wanted regular file to `onEntry` as a stream (the
 * caller spools it; nothing is held in memory), within `limits`; the others are drained. For
 * archives of media, far larger than a text tree. Throws ArchiveError.
 */
export async function streamTarGz(
  source: Readable,
  limits: ArchiveLimits,
  want: (path: string) => boolean,
  onEntry: (path: string, content: Readable, size: number) => Promise<void>,
): Promise<{ names: string[] }> {
  const names: string[] = [];
  const seen = new Set<string>();
  const extract = tarModule().extract();
  // What stopped the entries (a refused file) wins over the broken pipe it leaves behind.
  let entryError: unknown = null;
  const consume = (async () => {
    for await (const entry of extract) {
      const checked = checkTarEntry(entry.header, limits, seen);
      if (checked.kind !== 'file') {
        entry.resume();
        continue;
      }
      names.push(checked.path);
      if (!want(checked.path)) {
        entry.resume();
        continue;
      }
      await onEntry(checked.path, Readable.from(entry), checked.size);
    }
  })().catch((error: unknown) => {
    entryError = error;
    throw error;
  });
  const compressed = new CompressedGuard(limits.maxCompressedBytes);
  const guard = new ExpansionGuard(Number.MAX_SAFE_INTEGER, limits);
  try {
    await Promise.all([pipeline(source, compressed, zlib.createGunzip(), guard, extract), consume]);
  } catch (error) {
    extract.destroy();
    // The refusal of an entry reaches the pipe first (it breaks the entry's stream): let the
    // entry's own handling finish and answer that.
    await consume.catch(() => undefined);
    const cause = entryError ?? error;
    if (cause instanceof ArchiveError || (cause as { status?: number }).status !== undefined) throw cause;
    if (guard.refusal !== null) throw guard.refusal;
    if (compressed.bytes === 0) {
      throw invalid('The body is empty: send the archive, with Content-Type application/gzip');
    }
    throw invalid(`The tar.gz archive cannot be read: ${(error as Error).message}`);
  }
  return { names };
}

/** A tar.gz written as it is read: each entry's bytes come from `open` when its turn comes. */
export function packTarGzStream(
  entries: { path: string; size: number; open: () => Promise<Readable> }[],
): Readable {
  const pack = tarModule().pack();
  void (async () => {
    try {
      for (const entry of entries) {
        const sink = pack.entry({ name: entry.path, size: entry.size, mtime: new Date(0) });
        await pipeline(await entry.open(), sink);
      }
      pack.finalize();
    } catch (error) {
      pack.destroy(error as Error);
    }
  })();
  return pack.pipe(zlib.createGzip());
}
