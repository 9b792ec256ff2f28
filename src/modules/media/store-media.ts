/**
 * Media to and from the stores, on our side (stores-media.md A1, A2): a sync maps the store's
 * files to ours — downloading each unknown file once and keeping the store's name for it beside
 * our SHA-256 — and merges each slot three-way like a text field; a push is planned from the
 * approved changeset and, once the store holds the files, moves each slot's base up to them.
 */
import type {
  MediaFile,
  MediaSlotChange,
  MediaSlotResult,
  StoreConnector,
  StoreMedia,
  StoreMediaFile,
} from '../../connectors/store-connector.js';
import type { BlobStore } from '../../blobs/index.js';
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import type { Store } from '../../shared/stores.js';
import type { RequestContext } from '../access/index.js';
import { actorOf } from '../audit/index.js';
import type { OrganizationsRepository } from '../organizations/index.js';
import { lockProject } from '../projects/index.js';
import type { MediaChange } from './media.js';
import { createIngest, fileKey, type Ingested } from './media-ingest.js';
import { mediaRepository as repo, type ItemRow, type SlotRow } from './media.repository.js';
import { createSlotWriter, parseList } from './media-slots.js';
import { mergeSlot } from './slot-merge.js';
import { slotRule } from './slots.js';
import { parsePageSlot, slotKey } from '../../shared/page-slots.js';

/** Downloads of one sync at once. */
const DOWNLOAD_CONCURRENCY = 3;
/** A downloaded file larger than this is refused (App Store previews go up to 500 MB). */
const MAX_DOWNLOAD_BYTES = 600 * 1024 * 1024;

/** A slot changed both here and in the store, as sync reports it beside text conflicts. */
export interface MediaConflict {
  store: Store;
  locale: string;
  field: string;
  localValue: null;
  storeValue: null;
  localMedia: string[];
  storeMedia: string[];
}

export interface MediaMerge {
  conflicts: MediaConflict[];
  /** Slots whose working copy now follows the store. */
  changedSlots: number;
  downloaded: number;
  /** Slots left as they were because the store has not finished processing a file of theirs. */
  unsettledSlots: number;
}

const same = (a: string[], b: string[]) => JSON.stringify(a) === JSON.stringify(b);
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
};

/**
 * A store's media changes (locale → slot key → change) of one page, by slot type: the default
 * page's without `pageId`, else that custom product page's.
 */
export function ofPage(
  changes: Record<string, Record<string, MediaChange>>,
  pageId?: string,
): Record<string, Record<string, MediaChange>> {
  const result: Record<string, Record<string, MediaChange>> = {};
  for (const [locale, bySlot] of Object.entries(changes)) {
    for (const [key, change] of Object.entries(bySlot)) {
      const page = parsePageSlot(key);
      if ((page?.pageId ?? undefined) !== pageId) continue;
      (result[locale] ??= {})[page?.slotType ?? key] = change;
    }
  }
  return result;
}

/** The custom product pages a store's media changes touch. */
export const pagesWithMedia = (changes: Record<string, Record<string, MediaChange>>): string[] => [
  ...new Set(
    Object.values(changes).flatMap((bySlot) =>
      Object.keys(bySlot)
        .map((key) => parsePageSlot(key)?.pageId)
        .filter((id) => id !== undefined),
    ),
  ),
];

export function createStoreMedia(deps: {
  db: Executor;
  clock: Clock;
  blobs: BlobStore;
  organizations: Pick<OrganizationsRepository, 'find'>;
}) {
  const { db, clock, blobs } = deps;
  const ingest = createIngest(deps);
  const slots = createSlotWriter(deps);

  /** Downloads one store file into the library and remembers the store's name for it. */
  async function download(
    organizationId: string,
    store: Store,
    connector: StoreConnector,
    file: StoreMediaFile & { checksum: string; url: string },
  ): Promise<string> {
    let ingested: Ingested | null = null;
    await connector.download(file.url, async (body) => {
      if (ingested !== null) await ingest.discard(ingested); // an attempt that failed midway
      ingested = null;
      ingested = await ingest.ingest(body, MAX_DOWNLOAD_BYTES, 'store', 'store files');
    });
    const done = ingested as Ingested | null;
    if (done === null) throw new Error(`the store sent no body for ${file.url}`);
    await ingest.store(done);
    await repo.recordStoreFile(db, {
      organization_id: organizationId,
      store,
      checksum: file.checksum,
      sha256: done.spooled.sha256,
      created_at: clock.now().toISOString(),
    });
    return done.spooled.sha256;
  }

  /** Our SHA-256 for every store file with a checksum, downloading the files never seen. */
  async function resolve(
    organizationId: string,
    store: Store,
    media: StoreMedia,
    connector: StoreConnector,
  ): Promise<{ known: Map<string, string>; downloaded: number }> {
    const files = new Map<string, StoreMediaFile>();
    for (const slotsOf of media.values()) {
      for (const list of slotsOf.values()) {
        for (const file of list) if (file.checksum !== null) files.set(file.checksum, file);
      }
    }
    const known = await repo.storeFiles(db, organizationId, store, [...files.keys()]);
    const unknown = [...files.values()].filter(
      (f): f is StoreMediaFile & { checksum: string; url: string } =>
        !known.has(f.checksum!) && f.url !== null,
    );
    let downloaded = 0;
    const worker = async () => {
      for (let file = unknown.shift(); file !== undefined; file = unknown.shift()) {
        known.set(file.checksum, await download(organizationId, store, connector, file));
        downloaded += 1;
      }
    };
    await Promise.all(Array.from({ length: DOWNLOAD_CONCURRENCY }, worker));
    return { known, downloaded };
  }

  /**
   * Merges the store's media into the project's slots, three-way (design.md §9, as for texts):
   * a slot not edited here follows the store; an edited slot keeps its files, and is in sync when
   * the store has the same; changed on both sides to different files, it is a conflict.
   */
  async function merge(
    ctx: RequestContext,
    projectId: string,
    store: Store,
    media: StoreMedia,
    connector: StoreConnector,
    /**
     * The slots this read speaks for (locale, slot key): by default the default page's; a read of
     * custom product pages names its pages' slots, so neither read empties the other's.
     */
    covers: (locale: string, key: string) => boolean = (_locale, key) => parsePageSlot(key) === null,
  ): Promise<MediaMerge> {
    const { known, downloaded } = await resolve(ctx.organizationId, store, media, connector);
    return db.transaction().execute(async (trx) => {
      await lockProject(trx, projectId);
      const at = clock.now().toISOString();
      const rows = new Map(
        (await repo.listSlots(trx, projectId, { store })).map((row) => [
          `${row.locale}/${row.slot_type}`,
          row,
        ]),
      );
      const items = await repo.itemsWithBlobs(
        trx,
        [...rows.values()].flatMap((row) => parseList(row.items)),
      );
      const result: MediaMerge = { conflicts: [], changedSlots: 0, downloaded, unsettledSlots: 0 };
      const held = new Set<string>();
      const holds: { sha256: string; bytes: number }[] = [];
      const newItems: ItemRow[] = [];
      const history = [];

      /** The items of a slot that follows the store: kept where the file is, new ones for the rest. */
      const itemsOf = (
        incoming: string[],
        files: { fileName: string | null }[],
        workingIds: string[],
        slot: { locale: string; slotType: string },
      ) =>
        incoming.map((sha, index) => {
          const reuse = workingIds.find((id) => items.get(id)!.sha256 === sha);
          if (reuse !== undefined) return reuse;
          const item: ItemRow = {
            id: newId('med'),
            organization_id: ctx.organizationId,
            project_id: projectId,
            store,
            locale: slot.locale,
            slot_type: slot.slotType,
            sha256: sha,
            file_name: files[index]!.fileName ?? '',
            created_at: at,
          };
          newItems.push(item);
          return item.id;
        });

      // Every slot the store has, and every local slot of a locale the store has (empty there).
      const keys = new Set(rows.keys());
      for (const [locale, slotsOf] of media)
        for (const slotType of slotsOf.keys()) keys.add(`${locale}/${slotType}`);
      for (const key of keys) {
        const [locale, slotType] = key.split('/') as [string, string];
        if (!media.has(locale) || slotRule(store, slotType) === undefined || !covers(locale, slotType))
          continue;
        const files = media.get(locale)!.get(slotType) ?? [];
        const theirs = files.map((f) => (f.checksum === null ? undefined : known.get(f.checksum)));
        if (theirs.some((sha) => sha === undefined)) {
          result.unsettledSlots += 1;
          continue;
        }
        const incoming = theirs as string[];
        const row = rows.get(key);
        const workingIds = parseList(row?.items ?? null);
        const working = workingIds.map((id) => items.get(id)!.sha256);
        const decision = mergeSlot(
          row === undefined
            ? undefined
            : {
                working,
                base: row.base === null ? null : parseList(row.base),
                inConflict: row.conflict !== null,
              },
          incoming,
        );
        if (decision === null) continue;
        const next = {
          items: decision.follow ? itemsOf(incoming, files, workingIds, { locale, slotType }) : workingIds,
          base: decision.base,
          conflict: decision.conflict,
        };
        if (decision.follow) result.changedSlots += 1;
        if (decision.conflict !== null) {
          result.conflicts.push({
            store,
            locale,
            field: `media.${slotType}`,
            localValue: null,
            storeValue: null,
            localMedia: working,
            storeMedia: incoming,
          });
        }
        for (const sha of incoming) {
          if (!held.has(sha)) {
            held.add(sha);
            holds.push({ sha256: sha, bytes: 0 });
          }
        }
        const slotRow: SlotRow = {
          project_id: projectId,
          store,
          locale,
          slot_type: slotType,
          items: JSON.stringify(next.items),
          base: next.base === null ? null : JSON.stringify(next.base),
          conflict: next.conflict === null ? null : JSON.stringify(next.conflict),
          updated_at: at,
        };
        await repo.upsertSlot(trx, slotRow);
        if (!same(next.items, workingIds)) {
          const actor = actorOf(ctx);
          history.push({
            id: newId('mhist'),
            project_id: projectId,
            store,
            locale,
            slot_type: slotType,
            old_items: JSON.stringify(workingIds),
            new_items: JSON.stringify(next.items),
            source: 'sync',
            actor_member_id: actor.memberId,
            actor_operator: actor.operator,
            created_at: at,
          });
        }
      }
      // The store's files count in the organization's storage like uploads.
      const facts = await repo.blobFacts(trx, [...held]);
      await slots.holdAll(
        trx,
        ctx,
        holds.map((h) => ({ sha256: h.sha256, bytes: facts.get(h.sha256)?.bytes ?? 0 })),
      );
      for (const item of newItems) {
        if (item.file_name === '') {
          const ext = EXTENSIONS[facts.get(item.sha256)?.contentType ?? ''] ?? 'bin';
          item.file_name = `${item.slot_type}_${item.sha256.slice(0, 12)}.${ext}`;
        }
      }
      await repo.insertItems(trx, newItems);
      await repo.insertHistory(trx, history);
      return result;
    });
  }

  /**
   * The slots a push to `store` brings to their files, from the approved changeset: every
   * changed slot of the wanted locales, except those in conflict (reported apart).
   */
  async function plan(
    projectId: string,
    allChanges: Record<string, Record<string, MediaChange>>,
    locales: string[] | undefined,
    /** A custom product page's slots (by their slot types) rather than the default page's. */
    pageId?: string,
  ): Promise<{ slots: MediaSlotChange[]; conflicts: { locale: string; slotType: string }[] }> {
    const changes = ofPage(allChanges, pageId);
    const wanted = Object.entries(changes).filter(
      ([locale]) => locales === undefined || locales.includes(locale),
    );
    const shas = [...new Set(wanted.flatMap(([, bySlot]) => Object.values(bySlot).flatMap((c) => c.new)))];
    const facts = await repo.blobFacts(db, shas);
    const names = await repo.fileNames(db, projectId, shas);
    const fileOf = (sha256: string): MediaFile => {
      const fact = facts.get(sha256)!;
      return {
        sha256,
        md5: fact.md5,
        bytes: fact.bytes,
        contentType: fact.contentType,
        fileName: names.get(sha256) ?? `${sha256.slice(0, 12)}.${EXTENSIONS[fact.contentType] ?? 'bin'}`,
        open: (range) => blobs.read(fileKey(sha256), range),
      };
    };
    const result = {
      slots: [] as MediaSlotChange[],
      conflicts: [] as { locale: string; slotType: string }[],
    };
    for (const [locale, bySlot] of wanted) {
      for (const [slotType, change] of Object.entries(bySlot)) {
        if (change.conflict !== undefined) result.conflicts.push({ locale, slotType });
        else result.slots.push({ locale, slotType, files: change.new.map(fileOf) });
      }
    }
    return result;
  }

  /** After a push: each slot's base becomes what the store now holds. */
  async function recordPush(
    projectId: string,
    store: Store,
    results: MediaSlotResult[],
    pageId?: string,
  ): Promise<void> {
    const at = clock.now().toISOString();
    await db.transaction().execute(async (trx) => {
      for (const result of results) {
        if (result.stored === null) continue;
        await repo.setBase(
          trx,
          { projectId, store, locale: result.locale, slotType: slotKey(result.slotType, pageId) },
          result.stored,
          at,
        );
      }
    });
  }

  /** File sizes by SHA-256 (for the calls a dry run plans). */
  async function sizes(shas: string[]): Promise<Map<string, number>> {
    const facts = await repo.blobFacts(db, [...new Set(shas)]);
    return new Map([...facts].map(([sha, fact]) => [sha, fact.bytes]));
  }

  return { merge, plan, recordPush, sizes };
}

export type StoreMediaService = ReturnType<typeof createStoreMedia>;
