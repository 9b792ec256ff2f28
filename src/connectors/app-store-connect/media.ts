/**
 * App Store screenshots and app previews (stores-media.md A1): read the sets of a version's
 * localizations, and bring a changed slot to its files. A file is known by the MD5 of its source
 * bytes (`sourceFileChecksum`); a record counts as settled only when it is COMPLETE and shows its
 * checksum (A1.6), so an unsettled record is waited for, never uploaded beside. Each slot is
 * reconciled with what the store holds now, which makes a repeated or resumed push upload only
 * what the store does not have settled yet.
 */
import {
  StoreError,
  type MediaFile,
  type MediaItemFailure,
  type MediaProgress,
  type MediaSlotChange,
  type MediaSlotResult,
  type StoreMedia,
  type StoreMediaFile,
} from '../store-connector.js';
import type { AscClient, Counter } from './client.js';
import type { JsonApiResource } from './mapper.js';
import {
  createAscAssets,
  isProcessing,
  isSettled,
  kindOf,
  PREVIEWS,
  recordOf,
  SCREENSHOTS,
  type AssetRecord,
  type Kind,
  type ProcessingPolicy,
} from './asc-assets.js';

export { DEFAULT_PROCESSING, PREVIEW_PREFIX, type ProcessingPolicy } from './asc-assets.js';

/** Files of one slot uploaded at once (their order is set afterwards). */
const FILE_CONCURRENCY = 3;

interface StoreSet {
  id: string;
  /** Records in display order. */
  records: AssetRecord[];
}

type Included = JsonApiResource & { relationships?: Record<string, { data?: { id: string }[] }> };

/**
 * A localization holding screenshot and preview sets: an App Store version's, or a custom product
 * page version's (stores-more.md §B1) — same sets, another parent.
 */
export interface SetParent {
  type: 'appStoreVersionLocalizations' | 'appCustomProductPageLocalizations';
  id: string;
}

const PARENT_RELATIONSHIP: Record<SetParent['type'], string> = {
  appStoreVersionLocalizations: 'appStoreVersionLocalization',
  appCustomProductPageLocalizations: 'appCustomProductPageLocalization',
};

const parentOf = (localization: string | SetParent): SetParent =>
  typeof localization === 'string'
    ? { type: 'appStoreVersionLocalizations', id: localization }
    : localization;

/** What a push left in a slot the store refused (or that could not be tried): nothing known. */
export const slotRefused = (
  slot: { locale: string; slotType: string },
  code: string,
  message: string,
): MediaSlotResult => ({
  locale: slot.locale,
  slotType: slot.slotType,
  stored: null,
  uploaded: 0,
  deleted: 0,
  reordered: false,
  failures: [{ locale: slot.locale, slotType: slot.slotType, sha256: null, error: { code, message } }],
});

export function createAscMedia(client: AscClient, processing: ProcessingPolicy) {
  /** A localization's sets of one kind, by our slot type, with their records in display order. */
  async function readSets(counter: Counter, parent: SetParent, kind: Kind) {
    const page = (await client.call(
      counter,
      'GET',
      `/v1/${parent.type}/${parent.id}/${kind.setType}?include=${kind.itemType}&limit=50&limit[${kind.itemType}]=50`,
    )) as { data: Included[]; included?: JsonApiResource[] };
    const byId = new Map((page.included ?? []).map((r) => [r.id, recordOf(kind, r)]));
    const sets = new Map<string, StoreSet>();
    for (const set of page.data) {
      // Matched on the attribute: one report says the type filter was ignored (A1.1).
      const type = set.attributes?.[kind.typeAttribute];
      if (typeof type !== 'string') continue;
      const order = set.relationships?.[kind.itemType]?.data ?? [];
      const records = order.map((link) => byId.get(link.id)).filter((r) => r !== undefined);
      sets.set(kind.slotOf(type), { id: set.id, records });
    }
    return sets;
  }

  async function readSet(counter: Counter, parent: SetParent, slotType: string) {
    const kind = kindOf(slotType);
    return (await readSets(counter, parent, kind)).get(slotType) ?? null;
  }

  const { deleteRecord, settle, upload } = createAscAssets(client, processing);

  /** Finds the slot's set, creating it when missing; a set that "Already Exists" is read again. */
  async function ensureSet(counter: Counter, parent: SetParent, slotType: string): Promise<StoreSet> {
    const found = await readSet(counter, parent, slotType);
    if (found !== null) return found;
    const kind = kindOf(slotType);
    try {
      const answer = await client.call(counter, 'POST', `/v1/${kind.setType}`, {
        data: {
          type: kind.setType,
          attributes: { [kind.typeAttribute]: kind.storeTypeOf(slotType) },
          relationships: {
            [PARENT_RELATIONSHIP[parent.type]]: { data: { type: parent.type, id: parent.id } },
          },
        },
      });
      return { id: (answer.data as JsonApiResource).id, records: [] };
    } catch (error) {
      if (!(error instanceof StoreError) || error.status !== 409) throw error;
      const again = await readSet(counter, parent, slotType);
      if (again === null) throw error;
      return again;
    }
  }

  /** Uploads the files a slot lacks, a few at once; answers their new records' ids by MD5. */
  async function uploadMissing(
    counter: Counter,
    kind: Kind,
    setId: string,
    change: MediaSlotChange,
    missing: MediaFile[],
    known: Set<string>,
    onItem: ((progress: MediaProgress) => void) | undefined,
  ) {
    const done = { count: 0, bytes: 0, failures: [] as MediaItemFailure[], ids: new Map<string, string>() };
    const queue = [...missing];
    const worker = async () => {
      for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
        const outcome = await upload(counter, kind, setId, file, known);
        const where = { locale: change.locale, slotType: change.slotType, sha256: file.sha256 };
        if ('record' in outcome) {
          done.ids.set(file.md5, outcome.record.id);
          done.count += 1;
          done.bytes += outcome.bytes;
          onItem?.({ ...where, state: 'uploaded' });
        } else {
          done.failures.push({ ...where, error: outcome.error });
          onItem?.({ ...where, state: 'failed' });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(FILE_CONCURRENCY, queue.length) }, worker));
    return done;
  }

  /**
   * Brings one slot to `change.files`: waits for records still processing, deletes what is not
   * wanted (and failed or abandoned records), uploads what the store lacks, then sets the order.
   */
  async function writeSlot(
    counter: Counter,
    localization: string | SetParent,
    change: MediaSlotChange,
    onItem: ((progress: MediaProgress) => void) | undefined,
  ): Promise<MediaSlotResult & { bytes: number }> {
    const kind = kindOf(change.slotType);
    const parent = parentOf(localization);
    const result = {
      locale: change.locale,
      slotType: change.slotType,
      stored: null as string[] | null,
      uploaded: 0,
      deleted: 0,
      reordered: false,
      failures: [] as MediaItemFailure[],
      bytes: 0,
    };
    const existing =
      change.files.length === 0
        ? await readSet(counter, parent, change.slotType)
        : await ensureSet(counter, parent, change.slotType);
    if (existing === null) {
      result.stored = [];
      return result;
    }
    // Never upload beside a record that may still turn out to be the same file.
    const records = (
      await Promise.all(
        existing.records.map((r) => (isProcessing(r) ? settle(counter, kind, r) : Promise.resolve(r))),
      )
    ).filter((r): r is AssetRecord => r !== null);

    const wanted = new Map(change.files.map((file) => [file.md5, file]));
    const kept = new Map<string, AssetRecord>();
    const unwanted: AssetRecord[] = [];
    for (const record of records) {
      if (isSettled(record) && wanted.has(record.checksum!) && !kept.has(record.checksum!)) {
        kept.set(record.checksum!, record);
      } else {
        unwanted.push(record);
      }
    }
    for (const record of unwanted) {
      await deleteRecord(counter, kind, record.id);
      result.deleted += 1;
    }

    const missing = change.files.filter((file) => !kept.has(file.md5));
    const uploaded = await uploadMissing(
      counter,
      kind,
      existing.id,
      change,
      missing,
      new Set(records.map((r) => r.id)),
      onItem,
    );
    result.uploaded = uploaded.count;
    result.bytes = uploaded.bytes;
    result.failures.push(...uploaded.failures);
    const settledIds = uploaded.ids;
    // New records are appended in the order they were reserved, which parallel uploads scramble:
    // the order is read back rather than guessed.
    let order = [...kept.values()].map((r) => r.id);
    if (missing.length > 0) {
      const links = await client.call(
        counter,
        'GET',
        `/v1/${kind.setType}/${existing.id}/relationships/${kind.itemType}?limit=50`,
      );
      order = (links.data as { id: string }[]).map((link) => link.id);
    }

    const present = change.files.filter((file) => kept.has(file.md5) || settledIds.has(file.md5));
    const desired = present.map((file) => kept.get(file.md5)?.id ?? settledIds.get(file.md5)!);
    if (JSON.stringify(desired) !== JSON.stringify(order)) {
      try {
        await client.call(
          counter,
          'PATCH',
          `/v1/${kind.setType}/${existing.id}/relationships/${kind.itemType}`,
          {
            data: desired.map((id) => ({ type: kind.itemType, id })),
          },
        );
        result.reordered = true;
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        result.failures.push({
          locale: change.locale,
          slotType: change.slotType,
          sha256: null,
          error: { code: error.code, message: `Reordering: ${error.message}` },
        });
        result.stored = null;
        return result;
      }
    }
    result.stored = present.map((file) => file.sha256);
    return result;
  }

  return {
    /** The settled files of every slot of the localizations (locale → slot type → files). */
    async read(
      counter: Counter,
      localizations: Map<string, JsonApiResource>,
      parentType: SetParent['type'] = 'appStoreVersionLocalizations',
    ): Promise<StoreMedia> {
      const media: StoreMedia = new Map();
      await Promise.all(
        [...localizations].map(async ([locale, localization]) => {
          const slots = new Map<string, StoreMediaFile[]>();
          for (const kind of [SCREENSHOTS, PREVIEWS]) {
            const parent = { type: parentType, id: localization.id };
            for (const [slotType, set] of await readSets(counter, parent, kind)) {
              const shown = set.records.filter((r) => r.state !== 'FAILED' && r.state !== 'AWAITING_UPLOAD');
              slots.set(
                slotType,
                shown.map((r) => ({
                  checksum: isSettled(r) ? r.checksum : null,
                  url: r.url,
                  fileName: r.fileName,
                })),
              );
            }
          }
          media.set(locale, slots);
        }),
      );
      return media;
    },
    writeSlot,
  };
}

export type AscMedia = ReturnType<typeof createAscMedia>;
