/**
 * A zip writer for tests that need archives no well-behaved tool makes: sizes that lie, records
 * that overlap, links, names with .. or backslashes. Layout per APPNOTE.TXT 4.3.
 */
import zlib from 'node:zlib';

export interface ZipEntrySpec {
  name: string;
  /** The bytes as stored (already deflated when method is 8). */
  data: Buffer;
  method?: 0 | 8;
  /** Declared uncompressed size and CRC-32; default: those of `data` (method 0). */
  size?: number;
  crc?: number;
  /** Unix mode (e.g. 0o120777 for a symlink); written with "made by Unix". */
  mode?: number;
}

/** A stored or deflated entry with correct size and CRC. */
export function entry(name: string, content: string | Buffer, method: 0 | 8 = 8): ZipEntrySpec {
  const raw = Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8');
  return {
    name,
    data: method === 8 ? zlib.deflateRawSync(raw) : raw,
    method,
    size: raw.length,
    crc: zlib.crc32(raw),
  };
}

export interface BuiltZip {
  buffer: Buffer;
  /** Where each entry's local record starts, and its central record. */
  localOffsets: number[];
  centralOffsets: number[];
}

export function buildZip(entries: ZipEntrySpec[]): BuiltZip {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  const localOffsets: number[] = [];
  const centralOffsets: number[] = [];
  let offset = 0;
  for (const spec of entries) {
    const name = Buffer.from(spec.name, 'utf8');
    const method = spec.method ?? 0;
    const size = spec.size ?? spec.data.length;
    const crc = spec.crc ?? zlib.crc32(spec.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(spec.data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    localOffsets.push(offset);
    locals.push(local, name, spec.data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(spec.mode === undefined ? 20 : (3 << 8) | 20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(spec.data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(spec.mode === undefined ? 0 : (spec.mode << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    centrals.push(Buffer.concat([central, name]));
    offset += 30 + name.length + spec.data.length;
  }
  const directoryStart = offset;
  for (const central of centrals) {
    centralOffsets.push(offset);
    offset += central.length;
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(offset - directoryStart, 12);
  end.writeUInt32LE(directoryStart, 16);
  return { buffer: Buffer.concat([...locals, ...centrals, end]), localOffsets, centralOffsets };
}

/** `megabytes` MiB of zeros, deflated as one stream without ever holding them in memory. */
export async function deflatedZeros(megabytes: number, raw: boolean): Promise<Buffer> {
  const zeros = Buffer.alloc(1024 * 1024);
  const deflate = raw ? zlib.createDeflateRaw({ level: 9 }) : zlib.createGzip({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => deflate.on('end', resolve));
  for (let i = 0; i < megabytes; i++) {
    if (!deflate.write(zeros)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await ended;
  return Buffer.concat(chunks);
}

/** CRC-32 of `megabytes` MiB of zeros. */
export function zerosCrc(megabytes: number): number {
  const zeros = Buffer.alloc(1024 * 1024);
  let crc = 0;
  for (let i = 0; i < megabytes; i++) crc = zlib.crc32(zeros, crc);
  return crc;
}
