/**
 * How a file enters the library: spooled while hashed and counted (a size limit stops it as it
 * streams), read from its bytes, then — once the caller's checks pass — stored by content: the
 * blob row is touched first (collection leaves a freshly touched row alone), then the file and its
 * thumbnail are written unless the store has them already (the same bytes are kept once).
 */
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BlobStore } from '../../blobs/index.js';
import type { Executor } from '../../db/database.js';
import { AppError, serviceUnavailable } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { inspectFile, UnreadableFileError, type Inspection } from './file-inspection.js';
import { mediaRepository as repo, type BlobRow } from './media.repository.js';
import { spool, TooLargeError, type Spooled } from './spool.js';

export const fileKey = (sha256: string) => `files/${sha256.slice(0, 2)}/${sha256}`;
export const thumbnailKey = (sha256: string) => `thumbs/${sha256.slice(0, 2)}/${sha256}.webp`;

export interface Ingested {
  spooled: Spooled;
  inspection: Inspection;
}

export function createIngest(deps: { db: Executor; clock: Clock; blobs: BlobStore }) {
  const { db, clock, blobs } = deps;

  /** Records (or refreshes) the blob row, waiting while collection removes an earlier copy. */
  async function touch(row: BlobRow): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      if ((await repo.touchBlob(db, row)) === 'stored') return;
      await sleep(100);
    }
    throw serviceUnavailable('The media store is busy removing this file; try again');
  }

  /** Puts a spooled file under `key` unless the store has it already; the spooled file goes either way. */
  async function putOnce(key: string, local: string, contentType: string) {
    if (await blobs.exists(key)) await fs.rm(local, { force: true });
    else await blobs.put(key, local, contentType);
  }

  return {
    /**
     * Spools and reads one file. `field` names it in errors (`file`, or a path in an archive);
     * past `maxBytes` the answer is 413, unreadable bytes 400.
     */
    async ingest(stream: Readable, maxBytes: number, field: string, label: string): Promise<Ingested> {
      const spooled = await spool(stream, blobs.spoolDirectory, maxBytes).catch((error: unknown) => {
        if (error instanceof TooLargeError) {
          throw new AppError(
            'INVALID_REQUEST',
            `${field}: ${label} accept files up to ${maxBytes} bytes`,
            [{ field: `${field}.bytes`, message: `larger than ${maxBytes} bytes`, limit: maxBytes }],
            413,
          );
        }
        throw error;
      });
      try {
        return { spooled, inspection: await inspectFile(spooled.path, spooled.bytes) };
      } catch (error) {
        await fs.rm(spooled.path, { force: true });
        if (error instanceof UnreadableFileError) {
          throw new AppError('INVALID_REQUEST', `${field}: ${error.message}`, [
            { field: `${field}.format`, message: error.message },
          ]);
        }
        throw error;
      }
    },

    /**
     * Stores an ingested file by content (write the blob before any reference to it); answers
     * when its blob row was touched, for removeUnused.
     */
    async store({ spooled, inspection }: Ingested): Promise<string> {
      const at = clock.now().toISOString();
      const { facts } = inspection;
      await touch({
        sha256: spooled.sha256,
        md5: spooled.md5,
        bytes: spooled.bytes,
        content_type: inspection.contentType,
        kind: facts.kind,
        width: facts.width,
        height: facts.height,
        has_alpha: facts.hasAlpha ? 1 : 0,
        duration_ms: facts.durationMs,
        has_thumbnail: inspection.thumbnailPath === null ? 0 : 1,
        state: 'stored',
        touched_at: at,
        created_at: at,
      });
      await putOnce(fileKey(spooled.sha256), spooled.path, inspection.contentType);
      if (inspection.thumbnailPath !== null) {
        await putOnce(thumbnailKey(spooled.sha256), inspection.thumbnailPath, 'image/webp');
      }
      return at;
    },

    /**
     * Removes a stored file at once that ended up refused (over the quota): only if nothing uses
     * it and nobody touched it after `touchedAt` — another upload of the same bytes keeps it.
     */
    async removeUnused(sha256: string, touchedAt: string): Promise<void> {
      const cutoff = new Date(Date.parse(touchedAt) + 1).toISOString();
      if (!(await repo.markDeleting(db, sha256, cutoff))) return;
      await blobs.delete(fileKey(sha256));
      await blobs.delete(thumbnailKey(sha256));
      await repo.deleteBlobRow(db, sha256);
    },

    /** Removes what an ingested file left on local disk (after storing, or when refused). */
    async discard({ spooled, inspection }: Ingested): Promise<void> {
      await fs.rm(spooled.path, { force: true });
      if (inspection.thumbnailPath !== null) await fs.rm(inspection.thumbnailPath, { force: true });
    },
  };
}

export type Ingest = ReturnType<typeof createIngest>;
