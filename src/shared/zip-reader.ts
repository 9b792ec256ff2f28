/**
 * zip from its central directory (APPNOTE.TXT 4.3), with every record checked against the buffer
 * and against each other before any entry is inflated, and each entry's output bounded.
 */
import zlib from 'node:zlib';
import {
  checkedPath,
  countEntry,
  invalid,
  mib,
  RATIO_FLOOR_BYTES,
  tooLarge,
  type ArchiveContents,
  type ArchiveLimits,
} from './archive-rules.js';

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
export function readZip(
  body: Buffer,
  limits: ArchiveLimits,
  want: (path: string) => boolean,
): ArchiveContents {
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
