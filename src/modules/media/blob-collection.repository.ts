/**
 * Queries of the blob collector: holds no item uses any more, and blobs no organization holds,
 * claimed for deletion and deleted.
 */
import { type ExpressionBuilder } from 'kysely';
import type { Executor } from '../../db/database.js';
import type { BlobsTable, Database } from '../../db/tables.js';

/** Organizations holding files that none of their items uses any more (a project was deleted). */
async function organizationsWithUnusedHolds(db: Executor, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('organization_blobs as ob')
    .select('ob.organization_id')
    .distinct()
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('media_items as i')
            .select('i.id')
            .whereRef('i.organization_id', '=', 'ob.organization_id')
            .whereRef('i.sha256', '=', 'ob.sha256'),
        ),
      ),
    )
    .limit(limit)
    .execute();
  return rows.map((row) => row.organization_id);
}

/** Inside a transaction that locked the organization (hold): drops its unused holds, uncounts them. */
async function releaseUnusedHolds(db: Executor, organizationId: string): Promise<number> {
  const released = await db
    .deleteFrom('organization_blobs as ob')
    .where('ob.organization_id', '=', organizationId)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('media_items as i')
            .select('i.id')
            .where('i.organization_id', '=', organizationId)
            .whereRef('i.sha256', '=', 'ob.sha256'),
        ),
      ),
    )
    .returning(['sha256', 'bytes'])
    .execute();
  const bytes = released.reduce((sum, row) => sum + Number(row.bytes), 0);
  if (bytes > 0) {
    await db
      .updateTable('organizations')
      .set((eb) => ({ media_bytes: eb('media_bytes', '-', bytes) }))
      .where('id', '=', organizationId)
      .execute();
  }
  return released.length;
}

/**
 * A blob collection may remove: one whose removal was cut short, or one that no item uses, no
 * organization holds, and nobody touched since `cutoff`.
 */
const collectableBlob = (eb: ExpressionBuilder<Database & { b: BlobsTable }, 'b'>, cutoff: string) =>
  eb.or([
    eb('b.state', '=', 'deleting'),
    eb.and([
      eb('b.touched_at', '<', cutoff),
      eb.not(
        eb.exists(eb.selectFrom('media_items as i').select('i.id').whereRef('i.sha256', '=', 'b.sha256')),
      ),
      eb.not(
        eb.exists(
          eb
            .selectFrom('organization_blobs as ob')
            .select('ob.sha256')
            .whereRef('ob.sha256', '=', 'b.sha256'),
        ),
      ),
    ]),
  ]);

/** Blobs nothing references and nobody touched since `cutoff`, and those whose removal was cut short. */
async function collectable(db: Executor, cutoff: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('blobs as b')
    .select('b.sha256')
    .where((eb) => collectableBlob(eb, cutoff))
    .limit(limit)
    .execute();
  return rows.map((row) => row.sha256);
}

/**
 * Marks a blob as being deleted, only if it is still unreferenced and untouched since `cutoff`
 * (checked in the same statement): from then on an upload of the same bytes waits for the row to
 * go rather than count on a file about to be removed.
 */
async function markDeleting(db: Executor, sha256: string, cutoff: string): Promise<boolean> {
  const result = await db
    .updateTable('blobs as b')
    .set({ state: 'deleting' })
    .where('b.sha256', '=', sha256)
    .where((eb) => collectableBlob(eb, cutoff))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function deleteBlobRow(db: Executor, sha256: string): Promise<void> {
  await db.deleteFrom('blobs').where('sha256', '=', sha256).where('state', '=', 'deleting').execute();
}

export const blobCollectionRepository = {
  organizationsWithUnusedHolds,
  releaseUnusedHolds,
  collectable,
  markDeleting,
  deleteBlobRow,
};
