/** Real images and videos for media tests, made in the test (sharp, mp4box), and raw uploads. */
import { crc32 } from 'node:zlib';
import { createFile } from 'mp4box';
import sharp from 'sharp';
import type { Harness } from './harness.js';

export interface ImageOptions {
  width: number;
  height: number;
  format?: 'png' | 'jpeg' | 'webp';
  alpha?: boolean;
  /** Background colour; different colours make different files. */
  colour?: { r: number; g: number; b: number };
}

export async function image({
  width,
  height,
  format = 'png',
  alpha = false,
  colour,
}: ImageOptions): Promise<Buffer> {
  const background = { ...(colour ?? { r: 30, g: 120, b: 200 }), ...(alpha && { alpha: 0.5 }) };
  const base = sharp({ create: { width, height, channels: alpha ? 4 : 3, background } });
  return format === 'jpeg'
    ? base.jpeg().toBuffer()
    : format === 'webp'
      ? base.webp().toBuffer()
      : base.png().toBuffer();
}

let counter = 0;
/** A PNG unlike any other: a colour no other call of this process gets. */
export function distinctColour() {
  counter += 1;
  return { r: counter % 256, g: Math.floor(counter / 256) % 256, b: 77 };
}

/**
 * The same PNG with a tEXt chunk added before IEND: another file (another SHA-256) with the same
 * pixels, made without encoding again.
 */
/** The PNG with the size its header declares changed (the pixels stay as they were). */
export function withDeclaredSize(png: Buffer, width: number, height: number): Buffer {
  const out = Buffer.from(png);
  // Signature (8), then IHDR: length (4), type (4), width (4), height (4), 5 more bytes, CRC.
  out.writeUInt32BE(width, 16);
  out.writeUInt32BE(height, 20);
  out.writeUInt32BE(crc32(out.subarray(12, 29)) >>> 0, 29);
  return out;
}

export function withTextChunk(png: Buffer, text: string): Buffer {
  const iend = png.length - 12;
  return Buffer.concat([png.subarray(0, iend), textChunk(text), png.subarray(iend)]);
}

/** A PNG tEXt chunk (length, type, data, CRC), to go before IEND. */
export function textChunk(text: string): Buffer {
  const data = Buffer.from(`Comment\0${text}`, 'latin1');
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write('tEXt', 4, 'latin1');
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
  return chunk;
}

/** An MP4 with one video track of the given size and length (its samples are not real frames). */
export function video({
  width,
  height,
  seconds,
}: {
  width: number;
  height: number;
  seconds: number;
}): Buffer {
  const file = createFile();
  const track = file.addTrack({
    timescale: 1000,
    width,
    height,
    type: 'avc1',
    duration: seconds * 1000,
    avcDecoderConfigRecord: new Uint8Array([1, 100, 0, 31, 255, 225, 0, 0, 1, 0, 0]).buffer,
  });
  for (let i = 0; i < seconds; i += 1)
    file.addSample(track, new Uint8Array(64), { duration: 1000, is_sync: i === 0 });
  const buffer = file.getBuffer();
  return Buffer.from(buffer.buffer ?? buffer);
}

/** POSTs raw bytes to a slot, as `curl --data-binary` does. */
export async function upload(
  h: Harness,
  apiKey: string,
  path: string,
  bytes: Buffer,
  contentType = 'image/png',
  fileName = 'shot.png',
) {
  const response = await h.app.inject({
    method: 'POST',
    url: `${path}?fileName=${encodeURIComponent(fileName)}`,
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType },
    payload: bytes,
  });
  return { status: response.statusCode, headers: response.headers, body: JSON.parse(response.body) };
}
