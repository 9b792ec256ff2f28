/**
 * The media library of a project (design.md §12): upload (streamed, hashed, read from the bytes,
 * checked against the slot's store rules before anything is stored), order, remove, copy between
 * locales and stores, history and revert, and the bytes themselves for whoever's organization
 * uses them. Files are content-addressed: the same bytes in 40 locales are one blob.
 */
import type { Readable } from 'node:stream';
import { BlobNotFoundError, type BlobRange, type BlobStore } from '../../blobs/index.js';
import type { Executor } from '../../db/database.js';
import { AppError, invalid, invalidField, notFound } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { isStoreLocale, STORE_LABEL, unknownLocaleMessage, type Store } from '../../shared/stores.js';
import { authorize, requireLocalesInScope, type OperationId, type RequestContext } from '../access/index.js';
import { historyActor, type AuditLog } from '../audit/index.js';
import type { OrganizationsRepository } from '../organizations/index.js';
import { type Project, type ProjectsService } from '../projects/index.js';
import { createIngest, fileKey, thumbnailKey } from './media-ingest.js';
import { createSlotWriter, parseList, requireLinked, toSlots } from './media-slots.js';
import type {
  MediaEditSource,
  MediaHistoryEntry,
  MediaItem,
  MediaSlot,
  PageLocks,
  SlotRef,
} from './media.js';
import { parsePageSlot, slotKey } from '../../shared/page-slots.js';
import { mediaRepository as repo } from './media.repository.js';
import { checkFile, countBreak, slotRule, type SlotRule } from './slots.js';
import { createMediaCopy } from './media-copy.js';

export interface MediaServiceDeps {
  db: Executor;
  clock: Clock;
  blobs: BlobStore;
  projects: Pick<ProjectsService, 'require'>;
  organizations: Pick<OrganizationsRepository, 'find'>;
  audit: Pick<AuditLog, 'record'>;
  /** A custom product page of the project, and why the store refuses changes to it now (design.md §18). */
  pages: PageLocks;
}

/** The file of an upload, opened only once the caller, the project and the slot are checked. */
export interface Upload {
  open(): Promise<{ stream: Readable; fileName: string }>;
}

export interface Download {
  stream: Readable;
  contentType: string;
  /** Size of the whole file; null for a thumbnail (made once, its size not kept). */
  bytes: number | null;
  etag: string;
  range: BlobRange | null;
}

export function createMediaService({
  db,
  clock,
  blobs,
  projects,
  organizations,
  audit,
  pages,
}: MediaServiceDeps) {
  const ingest = createIngest({ db, clock, blobs });
  const { readSlot, writeSlot, writeProject, holdAll, checkRoom } = createSlotWriter({
    db,
    clock,
    organizations,
  });
  const copy = createMediaCopy({ db, clock, projects, audit, writeProject, writeSlot, pages });
  /** Records a slot's change as `action`, in the transaction that wrote it. */
  const recordSlot = (
    trx: Executor,
    ctx: RequestContext,
    action: OperationId,
    projectId: string,
    view: MediaSlot,
  ) =>
    audit.record(
      trx,
      ctx,
      action,
      {
        type: 'mediaSlot',
        id: `${view.store}/${view.locale}/${slotKey(view.slotType, view.productPage)}`,
        projectId,
      },
      { items: view.items.map((item) => item.sha256) },
    );

  /**
   * The slot named by a route, checked: linked store, store locale, known slot type, and for a
   * custom product page's slot the page (App Store) and a state in which the store takes changes.
   * Answers the slot's key in the library.
   */
  async function requireSlot(
    ctx: RequestContext,
    projectId: string,
    slot: SlotRef,
    writing = true,
  ): Promise<{ project: Project; rule: SlotRule; key: { store: Store; locale: string; slotType: string } }> {
    const { store, locale, slotType } = slot;
    const project = await projects.require(ctx, projectId);
    requireLinked(project, store, 'store');
    if (!isStoreLocale(store, locale)) throw invalidField('locale', unknownLocaleMessage(store, locale));
    const rule = parsePageSlot(slotType) === null ? slotRule(store, slotType) : undefined;
    if (rule === undefined) {
      throw invalidField('slotType', `${slotType} is not a ${STORE_LABEL[store]} screenshot or preview slot`);
    }
    if (slot.productPage !== undefined) {
      if (store !== 'appstore')
        throw invalidField('productPage', 'custom product pages are App Store pages (store appstore)');
      const page = await pages.lockOf(projectId, slot.productPage);
      if (page === undefined) throw notFound(`Custom product page ${slot.productPage}`);
      if (writing && page.locked !== null) {
        throw new AppError('CONFLICT', page.locked, [{ field: 'productPage', message: 'not editable now' }]);
      }
    }
    return { project, rule, key: { store, locale, slotType: slotKey(slotType, slot.productPage) } };
  }

  return {
    /** Slots with items, by store, locale and slot type; `store`/`locale` narrow them. */
    async list(
      ctx: RequestContext,
      projectId: string,
      filter: { store?: Store; locale?: string; productPage?: string } = {},
    ): Promise<{ slots: MediaSlot[] }> {
      authorize(ctx, 'media.list');
      await projects.require(ctx, projectId);
      const { productPage, ...where } = filter;
      // The default page's slots, or one custom product page's.
      const rows = (await repo.listSlots(db, projectId, where)).filter(
        (row) => (parsePageSlot(row.slot_type)?.pageId ?? undefined) === productPage,
      );
      const slots = await toSlots(db, rows);
      return { slots: slots.filter((slot) => slot.items.length > 0 || slot.base !== null) };
    },

    /**
     * Takes one file into a slot: streamed to a spool file while hashed and counted (413 past the
     * slot's byte limit), read from its bytes, checked against every rule of the slot (400 naming
     * each broken rule with the file's values), stored once by content, then placed at the end of
     * the slot (single-image slots: in place of the image they had).
     */
    async upload(
      ctx: RequestContext,
      projectId: string,
      ref: SlotRef,
      upload: Upload,
    ): Promise<{ item: MediaItem; replaced: string | null; notVerified: string[] }> {
      authorize(ctx, 'media.upload');
      const { rule, key: slot } = await requireSlot(ctx, projectId, ref);
      requireLocalesInScope(ctx, [slot.locale]);
      const existing = parseList(
        (await readSlot(db, projectId, slot.store, slot.locale, slot.slotType))?.items ?? null,
      );
      if (rule.maxItems > 1 && existing.length >= rule.maxItems) {
        throw countBreak(rule, existing.length);
      }

      const file = await upload.open();
      const fileName = file.fileName.trim().slice(0, 200) || 'upload';
      const ingested = await ingest.ingest(file.stream, rule.maxBytes, 'file', rule.label);
      try {
        const { breaks, notVerified } = checkFile(rule, ingested.inspection.facts);
        if (breaks.length > 0) {
          throw invalid(
            `file: ${breaks.map((b) => b.message).join('; ')}`,
            breaks.map((b) => ({ field: `file.${b.rule}`, message: b.message })),
          );
        }
        await checkRoom(ctx, [ingested.spooled]);
        const touchedAt = await ingest.store(ingested);
        const { spooled } = ingested;
        const itemId = newId('med');
        let replaced: string | null = null;
        const view = await writeProject(projectId, async (trx) => {
          await holdAll(trx, ctx, [spooled]);
          await repo.insertItems(trx, [
            {
              id: itemId,
              organization_id: ctx.organizationId,
              project_id: projectId,
              store: slot.store,
              locale: slot.locale,
              slot_type: slot.slotType,
              sha256: spooled.sha256,
              file_name: fileName,
              created_at: clock.now().toISOString(),
            },
          ]);
          const written = await writeSlot(trx, ctx, projectId, slot, 'upload', async (current) => {
            if (rule.maxItems === 1) {
              replaced = current[0] ?? null;
              return [itemId];
            }
            // Checked again under the lock: parallel uploads cannot overfill a slot.
            if (current.length >= rule.maxItems) throw countBreak(rule, current.length);
            // The stores keep a file once per slot: App Store Connect refuses to order a set that
            // holds the same screenshot twice, so every later push of the slot would fail.
            const same = [...(await repo.itemsWithBlobs(trx, current)).values()].find(
              (item) => item.sha256 === spooled.sha256,
            );
            if (same !== undefined) {
              throw new AppError(
                'CONFLICT',
                `This file is already in ${slot.store}/${slot.locale}/${ref.slotType}${ref.productPage === undefined ? '' : ` of page ${ref.productPage}`} (item ${same.id}, "${same.file_name}"); a slot holds each file once`,
              );
            }
            return [...current, itemId];
          });
          await recordSlot(trx, ctx, 'media.upload', projectId, written);
          return written;
        }).catch(async (error: unknown) => {
          // Another upload took the room meanwhile: the bytes stored for this one go at once.
          if (error instanceof AppError && error.code === 'USAGE_LIMIT_EXCEEDED') {
            await ingest.removeUnused(spooled.sha256, touchedAt);
          }
          throw error;
        });
        return { item: view.items.find((item) => item.id === itemId)!, replaced, notVerified };
      } finally {
        await ingest.discard(ingested);
      }
    },

    /** Sets the order of a slot: `items` must name every item of the working copy once. */
    async reorder(ctx: RequestContext, projectId: string, ref: SlotRef, items: string[]): Promise<MediaSlot> {
      authorize(ctx, 'media.reorder');
      const { key: slot } = await requireSlot(ctx, projectId, ref);
      requireLocalesInScope(ctx, [slot.locale]);
      return writeProject(projectId, async (trx) => {
        const written = await writeSlot(trx, ctx, projectId, slot, 'reorder', (current) => {
          const missing = current.filter((id) => !items.includes(id));
          const unknown = items.filter((id) => !current.includes(id));
          const repeated = items.filter((id, index) => items.indexOf(id) !== index);
          if (missing.length > 0 || unknown.length > 0 || repeated.length > 0) {
            const problems = [
              missing.length > 0 && `missing ${missing.join(', ')}`,
              unknown.length > 0 && `not in this slot ${unknown.join(', ')}`,
              repeated.length > 0 && `repeated ${repeated.join(', ')}`,
            ].filter(Boolean);
            throw invalidField(
              'items',
              `must list every item of the slot exactly once (${problems.join('; ')})`,
            );
          }
          return items;
        });
        await recordSlot(trx, ctx, 'media.reorder', projectId, written);
        return written;
      });
    },

    async remove(
      ctx: RequestContext,
      projectId: string,
      ref: SlotRef,
      itemId: string,
    ): Promise<{ deleted: true; slot: MediaSlot }> {
      authorize(ctx, 'media.delete');
      const { key: slot } = await requireSlot(ctx, projectId, ref);
      requireLocalesInScope(ctx, [slot.locale]);
      const view = await writeProject(projectId, async (trx) => {
        const written = await writeSlot(trx, ctx, projectId, slot, 'remove', (current) => {
          if (!current.includes(itemId)) throw notFound(`Media item ${itemId}`);
          return current.filter((id) => id !== itemId);
        });
        await recordSlot(trx, ctx, 'media.delete', projectId, written);
        return written;
      });
      return { deleted: true, slot: view };
    },

    copy,

    /** The default page's media of one App Store locale copied into a custom product page (none: nothing). */
    async copyIntoPage(
      ctx: RequestContext,
      projectId: string,
      input: { locale: string; pageId: string },
    ): Promise<{ slots: number; items: number }> {
      const rows = await repo.listSlots(db, projectId, { store: 'appstore', locale: input.locale });
      if (!rows.some((row) => parsePageSlot(row.slot_type) === null && parseList(row.items).length > 0))
        return { slots: 0, items: 0 };
      const done = await copy(ctx, projectId, {
        from: { store: 'appstore', locale: input.locale },
        to: { store: 'appstore', locale: input.locale, productPage: input.pageId },
      });
      return { slots: done.copied.length, items: done.copied.reduce((n, c) => n + c.items, 0) };
    },

    /** Per custom product page, the first screenshots of its first slot with any (thumbnails, for a list). */
    async pagePreviews(projectId: string) {
      const rows = (await repo.listSlots(db, projectId, { store: 'appstore' })).filter(
        (row) => parsePageSlot(row.slot_type) !== null && parseList(row.items).length > 0,
      );
      const previews = new Map<string, { locale: string; slotType: string; thumbnails: string[] }>();
      for (const slot of await toSlots(db, rows)) {
        if (slot.kind !== 'image' || previews.has(slot.productPage!)) continue;
        previews.set(slot.productPage!, {
          locale: slot.locale,
          slotType: slot.slotType,
          thumbnails: slot.items.slice(0, 3).map((item) => item.thumbnailUrl ?? item.url),
        });
      }
      return previews;
    },

    async history(
      ctx: RequestContext,
      projectId: string,
      ref: SlotRef,
      page: { limit: number; offset: number },
    ): Promise<{ entries: MediaHistoryEntry[]; total: number }> {
      authorize(ctx, 'media.history');
      const { key: slot } = await requireSlot(ctx, projectId, ref, false);
      const { rows, total } = await repo.listHistory(db, { projectId, ...slot }, page);
      const ids = rows.flatMap((row) => [...parseList(row.old_items), ...parseList(row.new_items)]);
      const items = await repo.itemsWithBlobs(db, [...new Set(ids)]);
      const shas = (json: string) => parseList(json).map((id) => items.get(id)?.sha256 ?? id);
      return {
        total,
        entries: rows.map((row) => ({
          id: row.id,
          old: shas(row.old_items),
          new: shas(row.new_items),
          source: row.source as MediaEditSource,
          actor: historyActor(row, slot.store),
          createdAt: row.created_at,
        })),
      };
    },

    /** Restores a slot to what it held before (default) or after a history entry; a new change. */
    async revert(
      ctx: RequestContext,
      projectId: string,
      ref: SlotRef,
      input: { historyId: string; to?: 'before' | 'after' },
    ): Promise<MediaSlot> {
      authorize(ctx, 'media.revert');
      const { key: slot } = await requireSlot(ctx, projectId, ref);
      requireLocalesInScope(ctx, [slot.locale]);
      const entry = await repo.findHistoryEntry(db, projectId, input.historyId);
      if (
        entry === undefined ||
        entry.store !== slot.store ||
        entry.locale !== slot.locale ||
        entry.slot_type !== slot.slotType
      ) {
        throw notFound('History entry');
      }
      const restored = parseList(input.to === 'after' ? entry.new_items : entry.old_items);
      return writeProject(projectId, async (trx) => {
        const written = await writeSlot(trx, ctx, projectId, slot, 'revert', () => restored);
        await recordSlot(trx, ctx, 'media.revert', projectId, written);
        return written;
      });
    },

    /** The bytes of a file (or its thumbnail) that a project of the caller's organization uses. */
    async open(
      ctx: RequestContext,
      sha256: string,
      options: { thumbnail: boolean; range: (size: number) => BlobRange | null },
    ): Promise<Download> {
      authorize(ctx, 'media.download');
      const blob = /^[0-9a-f]{64}$/.test(sha256) ? await repo.findBlob(db, sha256) : undefined;
      if (blob === undefined || !(await repo.holds(db, ctx.organizationId, sha256)))
        throw notFound('Media file');
      if (options.thumbnail && blob.has_thumbnail !== 1) throw notFound('Thumbnail (videos have none)');
      const key = options.thumbnail ? thumbnailKey(sha256) : fileKey(sha256);
      const bytes = options.thumbnail ? null : Number(blob.bytes);
      const range = bytes === null ? null : options.range(bytes);
      try {
        const stream = await blobs.read(key, range ?? undefined);
        return {
          stream,
          contentType: options.thumbnail ? 'image/webp' : blob.content_type,
          bytes,
          etag: `"${sha256}${options.thumbnail ? '-thumb' : ''}"`,
          range,
        };
      } catch (error) {
        if (error instanceof BlobNotFoundError) throw notFound('Media file');
        throw error;
      }
    },
  };
}

export type MediaService = ReturnType<typeof createMediaService>;
