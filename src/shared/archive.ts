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

export type ArchiveFormat = 'tar.gz' | 'zip';

// Loaded by the first import or export rather than at start-up.
const zipModule = lazyModule<typeof fflate>('fflate');
const tarModule = lazyModule<typeof tarStream>('tar-stream');

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

const tooLarge = (message: string) => new ArchiveError('tooLarge', message);
const invalid = (message: string) => new ArchiveError('invalid', message);

const MIB = 1024 * 1024;
const RATIO_FLOOR_BYTES = MIB;
const mib = (bytes: number) => `${+(bytes / MIB).toFixed(1)} MiB`;

export interface ArchiveContents {
  format: ArchiveFormat;
  /** The entries that `want` asked for, by path, as bytes. */
  files: Map<string, Buffer>;
  /** Every regular file's path, wanted or not (hidden files excluded). */
  names: string[];
  /** The folders the archive lists (without the trailing /), empty ones included. */
  folders: string[];
}

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

/** Checks an entry's path and answers it normalised (no leading ./), or null for hidden files. */
function checkedPath(raw: string, limits: ArchiveLimits): string | null {
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

function countEntry(seen: Set<string>, path: string, limits: ArchiveLimits): void {
  if (seen.has(path)) throw invalid(`The archive holds ${path} twice`);
  seen.add(path);
  if (seen.size > limits.maxEntries) throw tooLarge(`The archive holds more than ${limits.maxEntries} files`);
}

// --- zip -------------------------------------------------------------------------------------

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

interface ZipEntry {
  path: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  dataStart: number;
}

/**
 * zip from its central directory (APPNOTE.TXT 4.3), with every record checked against the
 * buffer and against each other before any entry is inflated.
 */
function readZip(body: Buffer, limits: ArchiveLimits, want: (path: string) => boolean): ArchiveContents {
  const eocd = body.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0 || eocd + 22 > body.length || body.readUInt32LE(eocd) !== EOCD) {
    throw invalid('The zip archive has no end-of-central-directory record');
  }
  const disk = body.readUInt16LE(eocd + 4);
  const count = body.readUInt16LE(eocd + 10);
  const directorySize = body.readUInt32LE(eocd + 12);
  const directoryStart = body.readUInt32LE(eocd + 16);
  if (disk !== 0 || count === 0xffff || directoryStart === 0xffffffff) {
    throw invalid('Multi-part and ZIP64 archives are not read');
  }
  if (count > limits.maxEntries) throw tooLarge(`The archive holds more than ${limits.maxEntries} files`);
  if (directoryStart + directorySize > eocd)
    throw invalid('The zip central directory lies outside the archive');

  const entries: ZipEntry[] = [];
  const spans: [number, number, string][] = [];
  const seen = new Set<string>();
  const folders: string[] = [];
  let declaredTotal = 0;
  let at = directoryStart;
  for (let i = 0; i < count; i++) {
    if (at + 46 > eocd || body.readUInt32LE(at) !== CENTRAL)
      throw invalid('The zip central directory is corrupt');
    const madeBy = body.readUInt16LE(at + 4);
    const flags = body.readUInt16LE(at + 8);
    const method = body.readUInt16LE(at + 10);
    const crc = body.readUInt32LE(at + 16);
    const compressedSize = body.readUInt32LE(at + 20);
    const size = body.readUInt32LE(at + 24);
    const nameLength = body.readUInt16LE(at + 28);
    const extraLength = body.readUInt16LE(at + 30);
    const commentLength = body.readUInt16LE(at + 32);
    const external = body.readUInt32LE(at + 38);
    const localOffset = body.readUInt32LE(at + 42);
    const rawName = body.subarray(at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    const name = rawName.toString('utf8');

    if (name.endsWith('/')) {
      const folder = checkedPath(name.slice(0, -1), limits);
      if (folder !== null && folder !== '') folders.push(folder);
      continue;
    }
    const path = checkedPath(name, limits);
    if ((flags & 0x1) !== 0) throw invalid(`The entry ${name} is encrypted`);
    // Unix file types travel in the upper half of the external attributes (made by 3 = Unix).
    if (madeBy >> 8 === 3 && ((external >>> 16) & S_IFMT) === S_IFLNK) {
      throw invalid(`The entry ${name} is a symbolic link`);
    }
    if (method !== 0 && method !== 8)
      throw invalid(`The entry ${name} uses an unsupported compression method`);

    // The local record must sit inside the archive, name the same file, and own its bytes alone.
    if (localOffset + 30 > directoryStart || body.readUInt32LE(localOffset) !== LOCAL) {
      throw invalid(`The local record of ${name} is missing or corrupt`);
    }
    const localNameLength = body.readUInt16LE(localOffset + 26);
    const localExtraLength = body.readUInt16LE(localOffset + 28);
    if (!body.subarray(localOffset + 30, localOffset + 30 + localNameLength).equals(rawName)) {
      throw invalid(`The local record of ${name} names another file`);
    }
    const dataStart = localOffset + 30 + localNameLength + localExtraLength;
    const dataEnd = dataStart + compressedSize;
    if (dataEnd > directoryStart) throw invalid(`The data of ${name} runs past the end of the archive`);
    spans.push([localOffset, dataEnd, name]);

    if (path === null) continue;
    countEntry(seen, path, limits);
    if (size > limits.maxEntryBytes) {
      throw tooLarge(
        `${path} expands to ${mib(size)}, more than the ${mib(limits.maxEntryBytes)} allowed per file`,
      );
    }
    declaredTotal += size;
    if (declaredTotal > limits.maxTotalBytes) {
      throw tooLarge(`The archive expands to more than ${mib(limits.maxTotalBytes)}`);
    }
    if (size > RATIO_FLOOR_BYTES && size > compressedSize * limits.maxRatio) {
      throw tooLarge(`${path} is compressed more than ${limits.maxRatio}:1, which no listing text is`);
    }
    entries.push({ path, method, crc, compressedSize, size, dataStart });
  }
  spans.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < spans.length; i++) {
    if (spans[i]![0] < spans[i - 1]![1]) {
      throw invalid(`The zip records of ${spans[i - 1]![2]} and ${spans[i]![2]} overlap`);
    }
  }

  const files = new Map<string, Buffer>();
  let total = 0;
  for (const entry of entries) {
    if (!want(entry.path)) continue;
    const compressed = body.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
    let data: Buffer;
    try {
      // The output is bounded by what the directory declared: a lying entry stops there.
      data =
        entry.method === 0
          ? Buffer.from(compressed)
          : zlib.inflateRawSync(compressed, { maxOutputLength: Math.max(entry.size, 1) });
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw tooLarge(`${entry.path} expands past the size its zip record declares`);
      }
      throw invalid(`${entry.path} cannot be decompressed: ${(error as Error).message}`);
    }
    if (data.length !== entry.size || zlib.crc32(data) !== entry.crc) {
      throw invalid(`${entry.path} does not match its zip record (size or CRC-32)`);
    }
    total += data.length;
    if (total > limits.maxTotalBytes)
      throw tooLarge(`The archive expands to more than ${mib(limits.maxTotalBytes)}`);
    files.set(entry.path, data);
  }
  return { format: 'zip', files, names: entries.map((e) => e.path), folders };
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
