/** Queries of the media library: blobs, the files organizations hold, items, slots, history. */
import { sql } from 'kysely';
import type { Executor } from '../../db/database.js';
import type {
  BlobsTable,
  MediaHistoryTable,
  MediaItemsTable,
  MediaSlotsTable,
  StoreMediaFilesTable,
} from '../../db/tables.js';
import { blobCollectionRepository } from './blob-collection.repository.js';

export type BlobRow = BlobsTable;
export type ItemRow = MediaItemsTable;
export type SlotRow = MediaSlotsTable;
export type MediaHistoryRow = MediaHistoryTable;
export type ItemWithBlob = ItemRow & Omit<BlobRow, 'sha256' | 'state' | 'touched_at' | 'created_at'>;

async function findBlob(db: Executor, sha256: string): Promise<BlobRow | undefined> {
  return db.selectFrom('blobs').selectAll().where('sha256', '=', sha256).executeTakeFirst();
}

/**
 * Records (or refreshes) a blob before its file is written: collection leaves it alone for the
 * grace period from now. Answers the row's state: `deleting` means collection is removing the
 * file at this moment, and the caller must wait until the row is gone.
 */
async function touchBlob(db: Executor, row: BlobRow): Promise<string> {
  await db
    .insertInto('blobs')
    .values(row)
    .onConflict((oc) =>
      oc
        .column('sha256')
        .doUpdateSet({ touched_at: row.touched_at, has_thumbnail: row.has_thumbnail })
        .where('blobs.state', '=', 'stored'),
    )
    .execute();
  const stored = await findBlob(db, row.sha256);
  return stored?.state ?? 'missing';
}

/** Locks the organization row until the transaction ends (uploads and collection of its holds). */
async function lockOrganization(db: Executor, organizationId: string): Promise<void> {
  await db
    .updateTable('organizations')
    .set((eb) => ({ media_bytes: eb.ref('media_bytes') }))
    .where('id', '=', organizationId)
    .execute();
}

/**
 * Makes the organization hold the file, counting its bytes once against `limit` (null: no
 * limit). Locks the organization row for the rest of the transaction either way, so collection's
 * release of unused holds cannot interleave with an item being added. False when over the limit.
 */
async function hold(
  db: Executor,
  organizationId: string,
  blob: { sha256: string; bytes: number },
  limit: number | null,
  at: string,
): Promise<boolean> {
  await lockOrganization(db, organizationId);
  const inserted = await db
    .insertInto('organization_blobs')
    .values({ organization_id: organizationId, sha256: blob.sha256, bytes: blob.bytes, created_at: at })
    .onConflict((oc) => oc.columns(['organization_id', 'sha256']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return true;
  let update = db
    .updateTable('organizations')
    .set((eb) => ({ media_bytes: eb('media_bytes', '+', blob.bytes) }))
    .where('id', '=', organizationId);
  if (limit !== null) update = update.where(sql<boolean>`media_bytes + ${blob.bytes} <= ${limit}`);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

async function holds(db: Executor, organizationId: string, sha256: string): Promise<boolean> {
  const row = await db
    .selectFrom('organization_blobs')
    .select('sha256')
    .where('organization_id', '=', organizationId)
    .where('sha256', '=', sha256)
    .executeTakeFirst();
  return row !== undefined;
}

async function insertItems(db: Executor, rows: ItemRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('media_items').values(rows).execute();
}

async function itemsWithBlobs(db: Executor, ids: string[]): Promise<Map<string, ItemWithBlob>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('media_items')
    .innerJoin('blobs', 'blobs.sha256', 'media_items.sha256')
    .selectAll('media_items')
    .select([
      'blobs.md5',
      'blobs.bytes',
      'blobs.content_type',
      'blobs.kind',
      'blobs.width',
      'blobs.height',
      'blobs.has_alpha',
      'blobs.duration_ms',
      'blobs.has_thumbnail',
    ])
    .where('media_items.id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

async function listSlots(
  db: Executor,
  projectId: string,
  filter: { store?: string; locale?: string; slotType?: string } = {},
): Promise<SlotRow[]> {
  let query = db.selectFrom('media_slots').selectAll().where('project_id', '=', projectId);
  if (filter.store !== undefined) query = query.where('store', '=', filter.store);
  if (filter.locale !== undefined) query = query.where('locale', '=', filter.locale);
  if (filter.slotType !== undefined) query = query.where('slot_type', '=', filter.slotType);
  return query.orderBy('store').orderBy('locale').orderBy('slot_type').execute();
}

/** The locales the project has a listing in for a store (targets of "use for all locales"). */
async function listingLocales(db: Executor, projectId: string, store: string): Promise<string[]> {
  const rows = await db
    .selectFrom('listings')
    .select('locale')
    .where('project_id', '=', projectId)
    .where('store', '=', store)
    .where('status', '=', 'active')
    .execute();
  return rows.map((row) => row.locale);
}

async function upsertSlot(db: Executor, row: SlotRow): Promise<void> {
  await db
    .insertInto('media_slots')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'store', 'locale', 'slot_type']).doUpdateSet({
        items: row.items,
        base: row.base,
        conflict: row.conflict,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Sets what the store holds in a slot (after a push), leaving the working copy alone. */
async function setBase(
  db: Executor,
  slot: { projectId: string; store: string; locale: string; slotType: string },
  base: string[],
  at: string,
): Promise<void> {
  await db
    .updateTable('media_slots')
    .set({ base: JSON.stringify(base), updated_at: at })
    .where('project_id', '=', slot.projectId)
    .where('store', '=', slot.store)
    .where('locale', '=', slot.locale)
    .where('slot_type', '=', slot.slotType)
    .execute();
}

/**
 * Our SHA-256 of the files a store names by `checksums`: from what earlier syncs downloaded, and
 * from the files themselves (App Store: their MD5, as uploaded; Google Play: their SHA-256).
 */
async function storeFiles(
  db: Executor,
  organizationId: string,
  store: string,
  checksums: string[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  if (checksums.length === 0) return found;
  // Only files the organization holds: an MD5 is no proof of content between tenants.
  const column = store === 'appstore' ? 'blobs.md5' : 'blobs.sha256';
  const own = await db
    .selectFrom('blobs')
    .innerJoin('organization_blobs', 'organization_blobs.sha256', 'blobs.sha256')
    .select(['blobs.sha256 as sha256', `${column} as checksum`])
    .where('organization_blobs.organization_id', '=', organizationId)
    .where(column, 'in', checksums)
    .where('blobs.state', '=', 'stored')
    .execute();
  for (const row of own) found.set(row.checksum, row.sha256);
  const seen = await db
    .selectFrom('store_media_files')
    .select(['checksum', 'sha256'])
    .where('organization_id', '=', organizationId)
    .where('store', '=', store)
    .where('checksum', 'in', checksums)
    .execute();
  for (const row of seen) found.set(row.checksum, row.sha256);
  return found;
}

/** MD5, size and type of files by SHA-256. */
async function blobFacts(
  db: Executor,
  shas: string[],
): Promise<Map<string, { md5: string; bytes: number; contentType: string }>> {
  if (shas.length === 0) return new Map();
  const rows = await db
    .selectFrom('blobs')
    .select(['sha256', 'md5', 'bytes', 'content_type'])
    .where('sha256', 'in', shas)
    .execute();
  return new Map(
    rows.map((row) => [
      row.sha256,
      { md5: row.md5, bytes: Number(row.bytes), contentType: row.content_type },
    ]),
  );
}

/** The name a file was given in a project (its latest placement), by SHA-256. */
async function fileNames(db: Executor, projectId: string, shas: string[]): Promise<Map<string, string>> {
  if (shas.length === 0) return new Map();
  const rows = await db
    .selectFrom('media_items')
    .select(['sha256', 'file_name'])
    .where('project_id', '=', projectId)
    .where('sha256', 'in', shas)
    .orderBy('created_at')
    .execute();
  return new Map(rows.map((row) => [row.sha256, row.file_name]));
}

async function recordStoreFile(db: Executor, row: StoreMediaFilesTable): Promise<void> {
  await db
    .insertInto('store_media_files')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['organization_id', 'store', 'checksum']).doUpdateSet({ sha256: row.sha256 }),
    )
    .execute();
}

async function insertHistory(db: Executor, rows: MediaHistoryRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('media_history').values(rows).execute();
}

async function listHistory(
  db: Executor,
  slot: { projectId: string; store: string; locale: string; slotType: string },
  page: { limit: number; offset: number },
) {
  const base = db
    .selectFrom('media_history')
    .where('media_history.project_id', '=', slot.projectId)
    .where('media_history.store', '=', slot.store)
    .where('media_history.locale', '=', slot.locale)
    .where('media_history.slot_type', '=', slot.slotType);
  const rows = await base
    .leftJoin('members', 'members.id', 'media_history.actor_member_id')
    .selectAll('media_history')
    .select('members.name as actor_name')
    .orderBy('media_history.created_at', 'desc')
    .orderBy('media_history.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const { total } = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  return { rows, total: Number(total) };
}

async function findHistoryEntry(db: Executor, projectId: string, id: string) {
  return db
    .selectFrom('media_history')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export const mediaRepository = {
  ...blobCollectionRepository,
  findBlob,
  touchBlob,
  lockOrganization,
  hold,
  holds,
  insertItems,
  itemsWithBlobs,
  listSlots,
  listingLocales,
  upsertSlot,
  setBase,
  storeFiles,
  recordStoreFile,
  blobFacts,
  fileNames,
  insertHistory,
  listHistory,
  findHistoryEntry,
};

export type MediaRepository = typeof mediaRepository;
