/**
 * One suite for both blob store adapters: the directory and an S3-compatible bucket (a real
 * s3rver in process, reached through the AWS SDK; no SDK call is mocked).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobNotFoundError, createBlobStore, type BlobStore } from '../../src/blobs/index.js';
import { startS3, type TestS3 } from '../support/s3.js';

let s3: TestS3;
let directory: string;

beforeAll(async () => {
  s3 = await startS3();
  directory = await fs.mkdtemp(path.join(os.tmpdir(), 'appmeta-blobs-'));
});
afterAll(async () => {
  await s3.close();
  await fs.rm(directory, { recursive: true, force: true });
});

const adapters: [string, () => BlobStore][] = [
  ['directory', () => createBlobStore({ kind: 'file', path: directory })],
  [
    'S3 bucket',
    () =>
      createBlobStore({
        kind: 's3',
        bucket: s3.bucket,
        prefix: `run-${randomBytes(4).toString('hex')}/`,
        endpoint: s3.endpoint,
        region: 'us-east-1',
      }),
  ],
];

describe.each(adapters)('%s', (_name, make) => {
  const spoolFile = async (store: BlobStore, content: string | Buffer) => {
    await fs.mkdir(store.spoolDirectory, { recursive: true });
    const file = path.join(store.spoolDirectory, `${randomBytes(8).toString('hex')}.upload`);
    await fs.writeFile(file, content);
    return file;
  };

  it('stores, reads whole and in ranges, consumes the spooled file, and deletes', async () => {
    const store = make();
    try {
      const key = `files/ab/${randomBytes(16).toString('hex')}`;
      expect(await store.exists(key)).toBe(false);
      const local = await spoolFile(store, 'hello, media');
      await store.put(key, local, 'image/png');
      await expect(fs.stat(local)).rejects.toThrow();
      expect(await store.exists(key)).toBe(true);
      expect(await text(await store.read(key))).toBe('hello, media');
      expect(await text(await store.read(key, { start: 7, end: 11 }))).toBe('media');
      await store.delete(key);
      expect(await store.exists(key)).toBe(false);
      await store.delete(key); // deleting what is gone is no error
    } finally {
      await store.close();
    }
  });

  it('replaces a key written again and says which key is missing', async () => {
    const store = make();
    try {
      const key = `thumbs/cd/${randomBytes(16).toString('hex')}.webp`;
      await store.put(key, await spoolFile(store, 'first'), 'image/webp');
      await store.put(key, await spoolFile(store, 'second'), 'image/webp');
      expect(await text(await store.read(key))).toBe('second');
      const missing = `files/ef/${randomBytes(16).toString('hex')}`;
      await expect(store.read(missing)).rejects.toBeInstanceOf(BlobNotFoundError);
      await expect(store.read(missing)).rejects.toThrow(missing);
    } finally {
      await store.close();
    }
  });

  it('streams a large file in without reading it into memory at once', async () => {
    const store = make();
    try {
      const key = `files/12/${randomBytes(16).toString('hex')}`;
      const bytes = randomBytes(12 * 1024 * 1024);
      await store.put(key, await spoolFile(store, bytes), 'video/mp4');
      const chunks: Buffer[] = [];
      for await (const chunk of await store.read(key)) chunks.push(chunk as Buffer);
      expect(chunks.length).toBeGreaterThan(1);
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('isEmpty (a restore goes only into an empty store)', () => {
  it('says whether a store holds any file, spooled uploads and emptied folders aside', async () => {
    const own = await fs.mkdtemp(path.join(os.tmpdir(), 'appmeta-blobs-empty-'));
    const stores = [
      createBlobStore({ kind: 'file', path: path.join(own, 'not-yet-made') }),
      createBlobStore({
        kind: 's3',
        bucket: s3.bucket,
        prefix: `empty-${randomBytes(4).toString('hex')}/`,
        endpoint: s3.endpoint,
        region: 'us-east-1',
      }),
    ];
    try {
      for (const store of stores) {
        expect(await store.isEmpty(), store.description).toBe(true);
        await fs.mkdir(store.spoolDirectory, { recursive: true });
        const spooled = path.join(store.spoolDirectory, `${randomBytes(8).toString('hex')}.upload`);
        await fs.writeFile(spooled, 'on its way');
        expect(await store.isEmpty(), store.description).toBe(true);
        const key = `files/ab/${randomBytes(16).toString('hex')}`;
        await store.put(key, spooled, 'image/png');
        expect(await store.isEmpty(), store.description).toBe(false);
        await store.delete(key);
        expect(await store.isEmpty(), store.description).toBe(true);
      }
    } finally {
      for (const store of stores) await store.close();
      await fs.rm(own, { recursive: true, force: true });
    }
  });
});
