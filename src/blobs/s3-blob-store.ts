/**
 * The blob store in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, ...) through the
 * official AWS SDK v3. `s3://bucket/prefix`; `S3_ENDPOINT` for a custom endpoint (then path-style
 * addressing); credentials and region from the usual AWS variables.
 */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { lazyModule } from '../shared/lazy-module.js';
import { BlobNotFoundError, type BlobRange, type BlobStore } from './blob-store.js';

/** Loaded only by a deployment that keeps its files in a bucket. */
const awsS3 = lazyModule<typeof import('@aws-sdk/client-s3')>('@aws-sdk/client-s3');

export interface S3Location {
  bucket: string;
  prefix: string;
  endpoint: string | null;
  region: string;
}

const isNotFound = (error: unknown) =>
  error instanceof awsS3().S3ServiceException &&
  (error.name === 'NotFound' || error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404);

export function createS3BlobStore(location: S3Location): BlobStore {
  const {
    DeleteObjectCommand,
    GetObjectCommand,
    HeadObjectCommand,
    ListObjectsV2Command,
    PutObjectCommand,
    S3Client,
  } = awsS3();
  const client = new S3Client({
    region: location.region,
    ...(location.endpoint !== null && { endpoint: location.endpoint, forcePathStyle: true }),
    // Checksums only where S3 requires them: compatible servers (MinIO's older releases, s3rver)
    // do not all know the newer default trailers; the media hashes are checked by us anyway.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const spoolDirectory = path.join(os.tmpdir(), 'appmeta-spool');
  const Bucket = location.bucket;
  const keyOf = (key: string) => `${location.prefix}${key}`;

  return {
    description: `s3://${Bucket}/${location.prefix}`,
    spoolDirectory,

    async put(key, localPath, contentType) {
      const { size } = await fs.stat(localPath);
      try {
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key: keyOf(key),
            Body: createReadStream(localPath),
            ContentLength: size,
            ContentType: contentType,
          }),
        );
      } finally {
        await fs.rm(localPath, { force: true });
      }
    },

    async exists(key) {
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key: keyOf(key) }));
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    },

    async read(key, range?: BlobRange): Promise<Readable> {
      try {
        const object = await client.send(
          new GetObjectCommand({
            Bucket,
            Key: keyOf(key),
            ...(range && { Range: `bytes=${range.start}-${range.end}` }),
          }),
        );
        return object.Body as Readable;
      } catch (error) {
        if (isNotFound(error)) throw new BlobNotFoundError(key);
        throw error;
      }
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: keyOf(key) }));
    },

    async isEmpty() {
      const listed = await client.send(
        new ListObjectsV2Command({
          Bucket,
          ...(location.prefix !== '' && { Prefix: location.prefix }),
          MaxKeys: 1,
        }),
      );
      return (listed.KeyCount ?? listed.Contents?.length ?? 0) === 0;
    },

    async close() {
      client.destroy();
    },
  };
}
