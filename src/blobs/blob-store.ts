/**
 * The blob store port (design.md §12): where media files live, by key. Two adapters: a directory
 * (the default, nothing to set up) and an S3-compatible bucket. Keys are chosen by the media
 * module (content addresses); the store only keeps bytes.
 */
import type { Readable } from 'node:stream';

export interface BlobRange {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, inclusive. */
  end: number;
}

export interface BlobStore {
  /** What a person reads in logs: `file:/srv/appmeta/data/blobs` or `s3://bucket/prefix`. */
  readonly description: string;
  /**
   * A local directory for files on their way in (uploads are spooled there while they are hashed
   * and checked), made when the first upload arrives; for the directory adapter it is inside the
   * store, so `put` is a rename.
   */
  readonly spoolDirectory: string;
  /** Stores the local file under `key`, replacing what was there; the local file is consumed. */
  put(key: string, localPath: string, contentType: string): Promise<void>;
  exists(key: string): Promise<boolean>;
  /** The bytes of `key` (or of a range of them); throws BlobNotFoundError. */
  read(key: string, range?: BlobRange): Promise<Readable>;
  /** Removes `key`; nothing happens when it does not exist. */
  delete(key: string): Promise<void>;
  /** Whether the store holds no file at all (a restore goes only into an empty store). */
  isEmpty(): Promise<boolean>;
  close(): Promise<void>;
}

export class BlobNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`No blob ${key}`);
    this.name = 'BlobNotFoundError';
  }
}
