/**
 * Collection of unused media files. Safe under concurrent uploads because both sides follow one
 * order: an upload records (touches) the blob row, then writes the file, then the item that uses
 * it; collection first releases the files organizations no longer use (under the organization's
 * lock, which an upload holds while it adds its item), then marks a blob `deleting` only in a
 * statement that checks nothing uses it and nobody touched it within the grace period, then
 * removes the file, then the row. An upload that finds a row `deleting` waits for it to go.
 */
import type { BlobStore } from '../../blobs/index.js';
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { fileKey, thumbnailKey } from './media-ingest.js';
import { mediaRepository as repo } from './media.repository.js';
import { removeStaleSpool } from './spool.js';

/** Long enough for any upload between touching its blob and committing its item. */
export const DEFAULT_GRACE_MS = 60 * 60 * 1000;
const BATCH = 500;

export interface CollectionReport {
  releasedHolds: number;
  deletedBlobs: number;
  deletedSpoolFiles: number;
}

export function createMediaCollection(deps: { db: Executor; clock: Clock; blobs: BlobStore }) {
  const { db, clock, blobs } = deps;
  return {
    async collect(graceMs = DEFAULT_GRACE_MS): Promise<CollectionReport> {
      const report: CollectionReport = { releasedHolds: 0, deletedBlobs: 0, deletedSpoolFiles: 0 };
      for (const organizationId of await repo.organizationsWithUnusedHolds(db, BATCH)) {
        report.releasedHolds += await db.transaction().execute(async (trx) => {
          await repo.lockOrganization(trx, organizationId);
          return repo.releaseUnusedHolds(trx, organizationId);
        });
      }
      const now = clock.now();
      const cutoff = new Date(now.getTime() - graceMs).toISOString();
      for (const sha256 of await repo.collectable(db, cutoff, BATCH)) {
        if (!(await repo.markDeleting(db, sha256, cutoff))) continue;
        await blobs.delete(fileKey(sha256));
        await blobs.delete(thumbnailKey(sha256));
        await repo.deleteBlobRow(db, sha256);
        report.deletedBlobs += 1;
      }
      // Spooled files carry the filesystem's times: compared with the wall clock, not the service's.
      report.deletedSpoolFiles = await removeStaleSpool(blobs.spoolDirectory, graceMs, Date.now());
      return report;
    },
  };
}

export type MediaCollection = ReturnType<typeof createMediaCollection>;
