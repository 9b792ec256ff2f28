/**
 * What a file is, read from its bytes alone (never its name or Content-Type): images through
 * sharp (format, dimensions, alpha; a full decode, so a truncated or corrupt file is caught, which
 * also makes the dashboard's WebP thumbnail), videos through mp4box (container, duration, size,
 * from the `ftyp` and `moov` boxes only, so a 500 MB preview is never read into memory).
 * Decoding runs with bounded concurrency: memory stays flat however many uploads arrive at once.
 */
import fs from 'node:fs/promises';
import type * as Mp4box from 'mp4box';
import type Sharp from 'sharp';
import { lazyModule } from '../../shared/lazy-module.js';
import type { FileFacts, ImageFormat, VideoContainer } from './slots.js';

/** Loaded with the first media file, not by every instance at start-up. */
const mp4box = lazyModule<typeof Mp4box>('mp4box');
const loadSharp = lazyModule<typeof Sharp>('sharp');
let sharpReady = false;
/** sharp, with libvips' own thread pool per image and no cache of decoded images between requests. */
function sharp(...args: Parameters<typeof Sharp>): ReturnType<typeof Sharp> {
  const library = loadSharp();
  if (!sharpReady) {
    library.concurrency(1);
    library.cache(false);
    sharpReady = true;
  }
  return library(...args);
}

const DECODE_CONCURRENCY = 2;
const THUMBNAIL_SIZE = 320;
/** A moov box larger than this is not a store preview (they hold a few thousand samples). */
const MAX_MOOV_BYTES = 16 * 1024 * 1024;

let running = 0;
const waiting: (() => void)[] = [];
async function bounded<T>(work: () => Promise<T>): Promise<T> {
  if (running >= DECODE_CONCURRENCY) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    return await work();
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

export class UnreadableFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnreadableFileError';
  }
}

export interface Inspection {
  facts: FileFacts;
  contentType: string;
  /** A WebP thumbnail (images only), written beside the file. */
  thumbnailPath: string | null;
}

const CONTENT_TYPES: Record<ImageFormat | VideoContainer, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  mp4: 'video/mp4',
  m4v: 'video/x-m4v',
  mov: 'video/quicktime',
};

/** What was read from a stored file's bytes, from its blob row (checked again on a copy). */
export function factsOfBlob(blob: {
  kind: string;
  content_type: string;
  width: number | null;
  height: number | null;
  has_alpha: number;
  bytes: number;
  duration_ms: number | null;
}): FileFacts {
  const format = (Object.keys(CONTENT_TYPES) as (ImageFormat | VideoContainer)[]).find(
    (f) => CONTENT_TYPES[f] === blob.content_type,
  )!;
  return {
    kind: blob.kind as FileFacts['kind'],
    format,
    width: blob.width,
    height: blob.height,
    hasAlpha: blob.has_alpha === 1,
    bytes: Number(blob.bytes),
    durationMs: blob.duration_ms,
  };
}

async function head(file: string, length: number, position = 0): Promise<Buffer> {
  const handle = await fs.open(file);
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, position);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

const isPng = (b: Buffer) =>
  b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
const isJpeg = (b: Buffer) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
const isIsoMedia = (b: Buffer) => b.length >= 12 && b.toString('latin1', 4, 8) === 'ftyp';

/** Reads a file; throws UnreadableFileError naming what is wrong with it. */
export async function inspectFile(file: string, bytes: number): Promise<Inspection> {
  const start = await head(file, 16);
  if (isPng(start) || isJpeg(start))
    return bounded(() => inspectImage(file, bytes, isPng(start) ? 'png' : 'jpeg'));
  if (isIsoMedia(start)) return inspectVideo(file, bytes);
  // Name other image formats sharp knows (webp, gif, heif, ...), so the refusal says what the file is.
  const other = await sharp(file)
    .metadata()
    .then((m) => m.format)
    .catch(() => undefined);
  throw new UnreadableFileError(
    other === undefined
      ? 'the file is neither a PNG or JPEG image nor an MP4/QuickTime video'
      : `the file is a ${other.toUpperCase()} image; the stores take PNG or JPEG`,
  );
}

/** The most pixels an image may have: more than any store slot takes, and what decoding may cost. */
const MAX_PIXELS = 8192 * 8192;

async function inspectImage(file: string, bytes: number, format: ImageFormat): Promise<Inspection> {
  const thumbnailPath = `${file}.thumb.webp`;
  const image = sharp(file, { sequentialRead: true, failOn: 'truncated', limitInputPixels: MAX_PIXELS });
  // The header alone (unlimited, since the limit would refuse it unnamed): its size is refused as
  // a size, before anything is decoded.
  const metadata = await sharp(file, { limitInputPixels: false })
    .metadata()
    .catch(() => {
      throw new UnreadableFileError(
        `the ${format.toUpperCase()} file's header cannot be read (truncated or corrupt)`,
      );
    });
  const pixels = (metadata.width ?? 0) * (metadata.height ?? 0);
  if (pixels > MAX_PIXELS) {
    throw new UnreadableFileError(
      `the image is ${metadata.width} × ${metadata.height} pixels; at most ${MAX_PIXELS.toLocaleString('en-US')} pixels (8192 × 8192) are accepted`,
    );
  }
  try {
    // The thumbnail decodes every pixel: a truncated or corrupt file fails here.
    await image
      .clone()
      .rotate()
      .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 80 })
      .toFile(thumbnailPath);
    return {
      facts: {
        kind: 'image',
        format,
        width: metadata.width ?? null,
        height: metadata.height ?? null,
        hasAlpha: metadata.hasAlpha === true,
        bytes,
        durationMs: null,
      },
      contentType: CONTENT_TYPES[format],
      thumbnailPath,
    };
  } catch {
    // libvips' message names the spool path on this server: it is not for clients.
    await fs.rm(thumbnailPath, { force: true });
    throw new UnreadableFileError(
      `the ${format.toUpperCase()} file cannot be decoded (truncated or corrupt)`,
    );
  }
}

/** Top-level boxes of an ISO media file, read by their headers only. */
async function topLevelBoxes(file: string, bytes: number) {
  const boxes: { type: string; offset: number; size: number }[] = [];
  let offset = 0;
  while (offset + 8 <= bytes && boxes.length < 10_000) {
    const header = await head(file, 16, offset);
    let size = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    if (size === 1) size = Number(header.readBigUInt64BE(8));
    else if (size === 0) size = bytes - offset;
    if (size < 8 || offset + size > bytes) break;
    boxes.push({ type, offset, size });
    offset += size;
  }
  return boxes;
}

async function inspectVideo(file: string, bytes: number): Promise<Inspection> {
  const boxes = await topLevelBoxes(file, bytes);
  const ftyp = boxes.find((box) => box.type === 'ftyp');
  const moov = boxes.find((box) => box.type === 'moov');
  if (ftyp === undefined)
    throw new UnreadableFileError('the video has no ftyp box: not an MP4/QuickTime file');
  const brand = (await head(file, 4, ftyp.offset + 8)).toString('latin1');
  const format: VideoContainer = brand === 'qt  ' ? 'mov' : brand.startsWith('M4V') ? 'm4v' : 'mp4';
  const facts: FileFacts = {
    kind: 'video',
    format,
    width: null,
    height: null,
    hasAlpha: false,
    bytes,
    durationMs: null,
  };
  if (moov === undefined || moov.size > MAX_MOOV_BYTES) {
    throw new UnreadableFileError(
      'the video has no readable moov box (truncated, or not a finished recording)',
    );
  }
  // mp4box parses the header boxes alone, laid out as if they were the whole file.
  const header = Buffer.concat([
    await head(file, ftyp.size, ftyp.offset),
    await head(file, moov.size, moov.offset),
  ]);
  const info = await new Promise<{
    duration: number;
    timescale: number;
    tracks: { type: string; track_width: number; track_height: number }[];
  }>((resolve, reject) => {
    const parser = mp4box().createFile();
    parser.onReady = (ready) => resolve(ready as never);
    parser.onError = (_module: string, message: string) =>
      reject(new UnreadableFileError(`the video cannot be read: ${message}`));
    const arrayBuffer = header.buffer.slice(header.byteOffset, header.byteOffset + header.byteLength);
    parser.appendBuffer(mp4box().MP4BoxBuffer.fromArrayBuffer(arrayBuffer, 0));
    parser.flush();
    setImmediate(() => reject(new UnreadableFileError('the video header is incomplete')));
  });
  const video = info.tracks.find((track) => track.type === 'video');
  if (video === undefined) throw new UnreadableFileError('the file has no video track');
  facts.width = video.track_width || null;
  facts.height = video.track_height || null;
  facts.durationMs = info.timescale > 0 ? Math.round((info.duration / info.timescale) * 1000) : null;
  return { facts, contentType: CONTENT_TYPES[format], thumbnailPath: null };
}
