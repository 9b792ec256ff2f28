/**
 * Brings an upload's bytes to a local file while hashing (SHA-256, the content address; MD5, App
 * Store Connect's checksum) and counting them, never holding the file in memory, and stops at the
 * size limit while the bytes stream.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface Spooled {
  path: string;
  sha256: string;
  md5: string;
  bytes: number;
}

export class TooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The file is larger than ${limit} bytes`);
    this.name = 'TooLargeError';
  }
}

export async function spool(body: Readable, directory: string, limit: number): Promise<Spooled> {
  await fs.mkdir(directory, { recursive: true });
  const file = path.join(directory, `${randomUUID()}.upload`);
  const sha256 = createHash('sha256');
  const md5 = createHash('md5');
  let bytes = 0;
  const measure = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > limit) return callback(new TooLargeError(limit));
      sha256.update(chunk);
      md5.update(chunk);
      callback(null, chunk);
    },
  });
  try {
    await pipeline(body, measure, createWriteStream(file));
  } catch (error) {
    await fs.rm(file, { force: true });
    throw error;
  }
  return { path: file, sha256: sha256.digest('hex'), md5: md5.digest('hex'), bytes };
}

/** Spooled files older than `olderThanMs` (an instance died mid-upload): removed by collection. */
export async function removeStaleSpool(directory: string, olderThanMs: number, now: number): Promise<number> {
  let removed = 0;
  for (const name of await fs.readdir(directory).catch(() => [])) {
    const file = path.join(directory, name);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat?.isFile() && now - stat.mtimeMs > olderThanMs) {
      await fs.rm(file, { force: true });
      removed += 1;
    }
  }
  return removed;
}
