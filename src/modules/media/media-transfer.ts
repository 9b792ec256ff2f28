/**
 * Import and export of a project's media in the fastlane layouts (fastlane-media.ts), from and to
 * a tar.gz or a directory. Import is all or nothing: every file is spooled and read first, every
 * rule checked (each problem names its path), and only then are files stored and the slots the
 * tree holds replaced, in one transaction.
 */
import type { Readable } from 'node:stream';
import { AppError, invalid, type ErrorDetail } from '../../errors.js';
import { newId } from '../../shared/ids.js';
import { isStoreLocale, STORE_LABEL, unknownLocaleMessage, type Store } from '../../shared/stores.js';
import { authorize, requireLocalesInScope, type RequestContext } from '../access/index.js';
import { isLinked, STORE_IDENTIFIER, type Project } from '../projects/index.js';
import { fastlanePath, placeOf, shadowedByFramed, type MediaFile } from './fastlane-media.js';
import { createIngest, fileKey, type Ingested } from './media-ingest.js';
import { createSlotWriter, parseList, toSlots } from './media-slots.js';
import { mediaRepository as repo } from './media.repository.js';
import { checkFile, displayTypeForSize, MAX_UPLOAD_BYTES, slotRule } from './slots.js';
import type { MediaServiceDeps } from './media.service.js';

/** Reads a tree, calling `onFile` for each file in turn; answers every path it saw. */
export type TreeReader = (
  want: (path: string) => boolean,
  onFile: (path: string, content: Readable) => Promise<void>,
) => Promise<{ names: string[] }>;

export interface ExportEntry {
  path: string;
  sha256: string;
  bytes: number;
  open(): Promise<Readable>;
}

export interface MediaImportResult {
  imported: { store: Store; locale: string; slotType: string; items: number }[];
  skipped: { path: string; reason: string }[];
}

/** A tree holds at most this many media files (40 locales × every slot of both stores, and more). */
const MAX_FILES = 3_000;

type TreeFile = { file: MediaFile; ingested: Ingested };

/** The files of a slot, to be imported together. */
interface SlotGroup {
  store: Store;
  locale: string;
  slotType: string;
  entries: TreeFile[];
}

/** Groups the tree's files by slot: App Store screenshots go where their pixel size says. */
function groupBySlot(kept: TreeFile[], details: ErrorDetail[]): Map<string, SlotGroup> {
  const bySlot = new Map<string, SlotGroup>();
  for (const entry of kept) {
    const { file, ingested } = entry;
    const { facts } = ingested.inspection;
    const slotType =
      file.slotType ??
      (facts.width && facts.height ? displayTypeForSize(facts.width, facts.height, file.path) : undefined);
    if (slotType === undefined) {
      details.push({
        field: file.path,
        message: `${facts.width}×${facts.height} is not the size of any App Store display type`,
      });
      continue;
    }
    const key = `${file.store}/${file.locale}/${slotType}`;
    const group = bySlot.get(key) ?? { store: file.store, locale: file.locale, slotType, entries: [] };
    group.entries.push(entry);
    bySlot.set(key, group);
  }
  return bySlot;
}

/** Checks every group against the project, the store's locales and the slot's rules. */
function checkGroups(project: Project, bySlot: Map<string, SlotGroup>, details: ErrorDetail[]): void {
  for (const group of bySlot.values()) {
    group.entries.sort((a, b) =>
      a.file.sortKey < b.file.sortKey ? -1 : a.file.sortKey > b.file.sortKey ? 1 : 0,
    );
    const rule = slotRule(group.store, group.slotType)!;
    const where = group.entries[0]!.file.path;
    if (!isLinked(project, group.store)) {
      details.push({
        field: where,
        message: `the project has no ${STORE_IDENTIFIER[group.store]}: link it to ${STORE_LABEL[group.store]} first`,
      });
      continue;
    }
    if (!isStoreLocale(group.store, group.locale)) {
      details.push({ field: where, message: unknownLocaleMessage(group.store, group.locale) });
      continue;
    }
    // supply takes the last of several icon.png / icon.jpg files.
    if (rule.maxItems === 1 && group.entries.length > 1) group.entries = group.entries.slice(-1);
    if (group.entries.length > rule.maxItems) {
      details.push({
        field: where,
        message: `${rule.label} hold at most ${rule.maxItems} files; ${group.store}/${group.locale} has ${group.entries.length}`,
        limit: rule.maxItems,
        length: group.entries.length,
      });
    }
    const firstPath = new Map<string, string>();
    for (const { file, ingested } of group.entries) {
      for (const b of checkFile(rule, ingested.inspection.facts).breaks) {
        details.push({ field: file.path, message: b.message });
      }
      const first = firstPath.get(ingested.spooled.sha256);
      if (first !== undefined) {
        details.push({
          field: file.path,
          message: `is the same file as ${first}; a slot holds each file once`,
        });
      } else firstPath.set(ingested.spooled.sha256, file.path);
    }
  }
}

export function createMediaTransfer(deps: Omit<MediaServiceDeps, 'pages'>) {
  const { db, clock, blobs, projects } = deps;
  const ingest = createIngest({ db, clock, blobs });
  const slots = createSlotWriter(deps);

  /** Writes every changed slot in one transaction; what was stored goes again if the room ran out. */
  async function writeGroups(
    ctx: RequestContext,
    projectId: string,
    bySlot: Map<string, SlotGroup>,
    stored: { sha256: string; touchedAt: string }[],
  ): Promise<MediaImportResult['imported']> {
    const at = clock.now().toISOString();
    return slots
      .writeProject(projectId, async (trx) => {
        const written: MediaImportResult['imported'] = [];
        for (const group of bySlot.values()) {
          await slots.holdAll(
            trx,
            ctx,
            group.entries.map((e) => e.ingested.spooled),
          );
          const items = group.entries.map(({ file, ingested }) => ({
            id: newId('med'),
            organization_id: ctx.organizationId,
            project_id: projectId,
            store: group.store,
            locale: group.locale,
            slot_type: group.slotType,
            sha256: ingested.spooled.sha256,
            file_name: file.path.split('/').pop()!,
            created_at: at,
          }));
          // Unchanged files in the same order keep their items: re-importing changes nothing.
          const current = await slots.readSlot(trx, projectId, group.store, group.locale, group.slotType);
          const currentItems = await repo.itemsWithBlobs(trx, parseList(current?.items ?? null));
          const currentShas = parseList(current?.items ?? null).map((id) => currentItems.get(id)?.sha256);
          if (JSON.stringify(currentShas) === JSON.stringify(items.map((i) => i.sha256))) continue;
          await repo.insertItems(trx, items);
          await slots.writeSlot(trx, ctx, projectId, group, 'import', () => items.map((i) => i.id));
          written.push({
            store: group.store,
            locale: group.locale,
            slotType: group.slotType,
            items: items.length,
          });
        }
        await deps.audit.record(
          trx,
          ctx,
          'media.import',
          { type: 'project', id: projectId },
          { slots: written.map((w) => `${w.store}/${w.locale}/${w.slotType}`) },
        );
        return written;
      })
      .catch(async (error: unknown) => {
        // Other uploads took the room meanwhile: what was stored for this import goes at once.
        if (error instanceof AppError && error.code === 'USAGE_LIMIT_EXCEEDED') {
          for (const file of stored) await ingest.removeUnused(file.sha256, file.touchedAt);
        }
        throw error;
      });
  }

  return {
    /** Every item of the project's working copies, where fastlane keeps it. */
    async exportEntries(ctx: RequestContext, projectId: string): Promise<ExportEntry[]> {
      authorize(ctx, 'media.export');
      await projects.require(ctx, projectId);
      // fastlane knows the default product page only.
      const views = (await toSlots(db, await repo.listSlots(db, projectId))).filter(
        (slot) => slot.productPage === undefined,
      );
      return views.flatMap((slot) =>
        slot.items.map((item) => ({
          path: fastlanePath({ ...slot, position: item.position, contentType: item.contentType }),
          sha256: item.sha256,
          bytes: item.bytes,
          open: () => blobs.read(fileKey(item.sha256)),
        })),
      );
    },

    /** Reads a fastlane tree's media and replaces the slots it holds; all or nothing. */
    async importTree(ctx: RequestContext, projectId: string, read: TreeReader): Promise<MediaImportResult> {
      authorize(ctx, 'media.import');
      const project = await projects.require(ctx, projectId);
      const files: { file: MediaFile; ingested: Ingested }[] = [];
      const skipped: { path: string; reason: string }[] = [];
      try {
        const { names } = await read(
          (path) => {
            const place = placeOf(path);
            return place !== null && 'file' in place;
          },
          async (path, content) => {
            const place = placeOf(path);
            if (place === null || !('file' in place)) return;
            if (files.length >= MAX_FILES) throw invalid(`The tree holds more than ${MAX_FILES} media files`);
            const rule =
              place.file.slotType === null ? undefined : slotRule(place.file.store, place.file.slotType);
            const ingested = await ingest.ingest(
              content,
              rule?.maxBytes ?? MAX_UPLOAD_BYTES,
              path,
              rule?.label ?? 'screenshots',
            );
            files.push({ file: place.file, ingested });
          },
        );
        for (const name of names) {
          const place = placeOf(name);
          if (place === null) skipped.push({ path: name, reason: 'not a media file of the fastlane layout' });
          else if ('skipped' in place) skipped.push({ path: place.skipped, reason: place.reason });
        }

        const dropped = shadowedByFramed(files.map((f) => f.file));
        for (const path of dropped) skipped.push({ path, reason: 'its _framed twin is imported instead' });
        const kept = files.filter((f) => !dropped.has(f.file.path));

        // Slot by slot: App Store screenshots go where their pixel size says.
        const details: ErrorDetail[] = [];
        const bySlot = groupBySlot(kept, details);
        requireLocalesInScope(
          ctx,
          [...bySlot.values()].map((group) => group.locale),
        );
        checkGroups(project, bySlot, details);
        if (details.length > 0) {
          throw invalid(
            `The fastlane tree has ${details.length} problem(s): ${details.map((d) => `${d.field}: ${d.message}`).join('; ')}`,
            details,
          );
        }

        await slots.checkRoom(
          ctx,
          [...bySlot.values()].flatMap((group) => group.entries.map((entry) => entry.ingested.spooled)),
        );
        const stored: { sha256: string; touchedAt: string }[] = [];
        for (const group of bySlot.values()) {
          for (const entry of group.entries) {
            stored.push({
              sha256: entry.ingested.spooled.sha256,
              touchedAt: await ingest.store(entry.ingested),
            });
          }
        }
        const imported = await writeGroups(ctx, projectId, bySlot, stored);
        return { imported, skipped };
      } finally {
        for (const { ingested } of files) await ingest.discard(ingested);
      }
    },
  };
}

export type MediaTransfer = ReturnType<typeof createMediaTransfer>;
