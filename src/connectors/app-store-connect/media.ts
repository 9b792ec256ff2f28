/**
 * App Store screenshots and app previews (stores-media.md A1): read the sets of a version's
 * localizations, and bring a changed slot to its files. A file is known by the MD5 of its source
 * bytes (`sourceFileChecksum`); a record counts as settled only when it is COMPLETE and shows its
 * checksum (A1.6), so an unsettled record is waited for, never uploaded beside. Each slot is
 * reconciled with what the store holds now, which makes a repeated or resumed push upload only
 * what the store does not have settled yet.
 */
import { setTimeout as sleep } from 'node:timers/promises';
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

/** Slot types of app previews carry this prefix before Apple's previewType. */
export const PREVIEW_PREFIX = 'PREVIEW_';
/** Parts of one file sent at once. */
const PART_CONCURRENCY = 4;
/** Files of one slot uploaded at once (their order is set afterwards). */
const FILE_CONCURRENCY = 3;

export interface ProcessingPolicy {
  /** First wait after a commit, doubled up to `maxDelayMs`. */
  initialDelayMs: number;
  maxDelayMs: number;
  /** A file still unsettled this long after its commit is given up (and its record deleted). */
  timeoutMs: number;
}

/**
 * Apple processes "within a few seconds up to a few minutes" (A1.3): a quick first look, then
 * doubling waits — about as many polls as fastlane's fixed 2–5 s for a slow file, fewer for a fast one.
 */
export const DEFAULT_PROCESSING: ProcessingPolicy = {
  initialDelayMs: 250,
  maxDelayMs: 10_000,
  timeoutMs: 10 * 60_000,
};

/** What differs between screenshots and previews in Apple's API (A1.1, A1.7). */
interface Kind {
  setType: 'appScreenshotSets' | 'appPreviewSets';
  itemType: 'appScreenshots' | 'appPreviews';
  typeAttribute: 'screenshotDisplayType' | 'previewType';
  setRelationship: 'appScreenshotSet' | 'appPreviewSet';
  delivery: 'assetDeliveryState' | 'videoDeliveryState';
  slotOf: (storeType: string) => string;
  storeTypeOf: (slotType: string) => string;
}

const SCREENSHOTS: Kind = {
  setType: 'appScreenshotSets',
  itemType: 'appScreenshots',
  typeAttribute: 'screenshotDisplayType',
  setRelationship: 'appScreenshotSet',
  delivery: 'assetDeliveryState',
  slotOf: (type) => type,
  storeTypeOf: (slot) => slot,
};
const PREVIEWS: Kind = {
  setType: 'appPreviewSets',
  itemType: 'appPreviews',
  typeAttribute: 'previewType',
  setRelationship: 'appPreviewSet',
  delivery: 'videoDeliveryState',
  slotOf: (type) => `${PREVIEW_PREFIX}${type}`,
  storeTypeOf: (slot) => slot.slice(PREVIEW_PREFIX.length),
};
const kindOf = (slotType: string) => (slotType.startsWith(PREVIEW_PREFIX) ? PREVIEWS : SCREENSHOTS);

interface UploadOperation {
  method: string;
  url: string;
  length: number;
  offset: number;
  requestHeaders?: { name: string; value: string }[] | null;
}

/** A screenshot or preview record as the connector needs it. */
interface AssetRecord {
  id: string;
  state: string;
  checksum: string | null;
  fileName: string;
  fileSize: number;
  url: string | null;
  uploadOperations: UploadOperation[];
  errors: { code: string; description: string }[];
}

const isSettled = (record: AssetRecord) => record.state === 'COMPLETE' && record.checksum !== null;
/** Committed, or COMPLETE without its checksum yet: the store is still working on it. */
const isProcessing = (record: AssetRecord) =>
  record.state === 'UPLOAD_COMPLETE' ||
  record.state === 'PROCESSING' ||
  (record.state === 'COMPLETE' && record.checksum === null);

function recordOf(kind: Kind, resource: JsonApiResource): AssetRecord {
  const a = resource.attributes ?? {};
  const delivery = (a[kind.delivery] ?? {}) as { state?: string; errors?: AssetRecord['errors'] };
  const fileName = typeof a.fileName === 'string' ? a.fileName : '';
  let url: string | null = null;
  const asset = a.imageAsset as { templateUrl?: string; width?: number; height?: number } | null | undefined;
  if (asset?.templateUrl !== undefined) {
    const format = /\.jpe?g$/i.test(fileName) ? 'jpg' : 'png';
    url = asset.templateUrl
      .replace('{w}', String(asset.width))
      .replace('{h}', String(asset.height))
      .replace('{f}', format);
  } else if (typeof a.videoUrl === 'string') {
    url = a.videoUrl;
  }
  return {
    id: resource.id,
    state: delivery.state ?? 'AWAITING_UPLOAD',
    checksum: typeof a.sourceFileChecksum === 'string' ? a.sourceFileChecksum : null,
    fileName,
    fileSize: Number(a.fileSize ?? 0),
    url,
    uploadOperations: (a.uploadOperations as UploadOperation[] | null | undefined) ?? [],
    errors: delivery.errors ?? [],
  };
}

interface StoreSet {
  id: string;
  /** Records in display order. */
  records: AssetRecord[];
}

type Included = JsonApiResource & { relationships?: Record<string, { data?: { id: string }[] }> };

export function createAscMedia(client: AscClient, processing: ProcessingPolicy) {
  /** A localization's sets of one kind, by our slot type, with their records in display order. */
  async function readSets(counter: Counter, localizationId: string, kind: Kind) {
    const page = (await client.call(
      counter,
      'GET',
      `/v1/appStoreVersionLocalizations/${localizationId}/${kind.setType}?include=${kind.itemType}&limit=50&limit[${kind.itemType}]=50`,
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

  async function readSet(counter: Counter, localizationId: string, slotType: string) {
    const kind = kindOf(slotType);
    return (await readSets(counter, localizationId, kind)).get(slotType) ?? null;
  }

  async function getRecord(counter: Counter, kind: Kind, id: string): Promise<AssetRecord | null> {
    try {
      const answer = await client.call(counter, 'GET', `/v1/${kind.itemType}/${id}`);
      return recordOf(kind, answer.data as JsonApiResource);
    } catch (error) {
      if (error instanceof StoreError && error.status === 404) return null;
      throw error;
    }
  }

  async function deleteRecord(counter: Counter, kind: Kind, id: string): Promise<void> {
    try {
      await client.call(counter, 'DELETE', `/v1/${kind.itemType}/${id}`);
    } catch (error) {
      // A retried DELETE whose first attempt went through finds nothing: done either way.
      if (!(error instanceof StoreError && error.status === 404)) throw error;
    }
  }

  /**
   * Waits until processing settles the record (COMPLETE with its checksum), with backoff and a
   * time limit. Answers the last record seen; a record that disappeared is null.
   */
  async function settle(counter: Counter, kind: Kind, record: AssetRecord): Promise<AssetRecord | null> {
    const deadline = Date.now() + processing.timeoutMs;
    let delay = processing.initialDelayMs;
    let current: AssetRecord | null = record;
    while (current !== null && isProcessing(current) && Date.now() < deadline) {
      await sleep(Math.min(delay, Math.max(deadline - Date.now(), 0)));
      delay = Math.min(delay * 2, processing.maxDelayMs);
      current = await getRecord(counter, kind, current.id);
    }
    return current;
  }

  /** Reserves a record for a file; a reservation that failed but was created is found and used. */
  async function reserve(counter: Counter, kind: Kind, setId: string, file: MediaFile, known: Set<string>) {
    const body = {
      data: {
        type: kind.itemType,
        attributes: { fileName: file.fileName, fileSize: file.bytes },
        relationships: { [kind.setRelationship]: { data: { type: kind.setType, id: setId } } },
      },
    };
    try {
      const answer = await client.call(counter, 'POST', `/v1/${kind.itemType}`, body);
      return recordOf(kind, answer.data as JsonApiResource);
    } catch (error) {
      if (!(error instanceof StoreError) || !error.retryable) throw error;
      // The outcome is unknown (fastlane#16842: a 503 that still created the record): look for it.
      const set = await client.call(counter, 'GET', `/v1/${kind.setType}/${setId}/${kind.itemType}?limit=50`);
      const created = (set.data as JsonApiResource[])
        .map((r) => recordOf(kind, r))
        .find(
          (r) =>
            !known.has(r.id) &&
            r.state === 'AWAITING_UPLOAD' &&
            r.fileName === file.fileName &&
            r.fileSize === file.bytes,
        );
      if (created === undefined) throw error;
      return created;
    }
  }

  /** Sends every part exactly as the reservation says: no JWT, a few at a time, each re-sendable. */
  async function sendParts(counter: Counter, record: AssetRecord, file: MediaFile): Promise<number> {
    const operations = [...record.uploadOperations];
    let sent = 0;
    const worker = async () => {
      for (let op = operations.shift(); op !== undefined; op = operations.shift()) {
        const part = op;
        const headers = Object.fromEntries((part.requestHeaders ?? []).map((h) => [h.name, h.value]));
        await client.transfer(counter, {
          method: part.method,
          url: part.url,
          headers: { ...headers, 'content-length': String(part.length) },
          body: () => file.open({ start: part.offset, end: part.offset + part.length - 1 }),
          // Parts may be sent again until the commit (A1.3).
          idempotent: true,
        });
        sent += part.length;
      }
    };
    await Promise.all(Array.from({ length: Math.min(PART_CONCURRENCY, operations.length) }, worker));
    return sent;
  }

  /** Commits with the MD5; a commit that timed out but went through is recognised by the record. */
  async function commit(counter: Counter, kind: Kind, record: AssetRecord, file: MediaFile) {
    try {
      const answer = await client.call(counter, 'PATCH', `/v1/${kind.itemType}/${record.id}`, {
        data: {
          type: kind.itemType,
          id: record.id,
          attributes: { uploaded: true, sourceFileChecksum: file.md5 },
        },
      });
      return recordOf(kind, answer.data as JsonApiResource);
    } catch (error) {
      if (!(error instanceof StoreError) || !error.retryable) throw error;
      const after = await getRecord(counter, kind, record.id);
      if (after === null || after.state === 'AWAITING_UPLOAD') throw error;
      return after;
    }
  }

  /**
   * Uploads one file into the set and waits for it to settle. Answers the settled record, or a
   * failure (the record is deleted then, so that a retry starts clean).
   */
  async function upload(
    counter: Counter,
    kind: Kind,
    setId: string,
    file: MediaFile,
    known: Set<string>,
  ): Promise<{ record: AssetRecord; bytes: number } | { error: { code: string; message: string } }> {
    let record: AssetRecord | null = null;
    try {
      record = await reserve(counter, kind, setId, file, known);
      known.add(record.id);
      const bytes = await sendParts(counter, record, file);
      const committed = await commit(counter, kind, record, file);
      const settled = await settle(counter, kind, committed);
      if (settled !== null && isSettled(settled)) return { record: settled, bytes };
      const error =
        settled === null
          ? { code: 'NOT_FOUND', message: 'The store removed the file while processing it' }
          : settled.state === 'FAILED'
            ? {
                code: settled.errors[0]?.code ?? 'PROCESSING_FAILED',
                message: settled.errors[0]?.description ?? 'App Store Connect could not process the file',
              }
            : {
                code: 'PROCESSING_TIMEOUT',
                message: `App Store Connect did not finish processing the file within ${Math.round(processing.timeoutMs / 1000)} s`,
              };
      if (settled !== null) await deleteRecord(counter, kind, settled.id);
      return { error: { code: error.code, message: `${file.fileName}: ${error.message}` } };
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      if (record !== null) await deleteRecord(counter, kind, record.id).catch(() => undefined);
      return { error: { code: error.code, message: `${file.fileName}: ${error.message}` } };
    }
  }

  /** Finds the slot's set, creating it when missing; a set that "Already Exists" is read again. */
  async function ensureSet(counter: Counter, localizationId: string, slotType: string): Promise<StoreSet> {
    const found = await readSet(counter, localizationId, slotType);
    if (found !== null) return found;
    const kind = kindOf(slotType);
    try {
      const answer = await client.call(counter, 'POST', `/v1/${kind.setType}`, {
        data: {
          type: kind.setType,
          attributes: { [kind.typeAttribute]: kind.storeTypeOf(slotType) },
          relationships: {
            appStoreVersionLocalization: {
              data: { type: 'appStoreVersionLocalizations', id: localizationId },
            },
          },
        },
      });
      return { id: (answer.data as JsonApiResource).id, records: [] };
    } catch (error) {
      if (!(error instanceof StoreError) || error.status !== 409) throw error;
      const again = await readSet(counter, localizationId, slotType);
      if (again === null) throw error;
      return again;
    }
  }

  /**
   * Brings one slot to `change.files`: waits for records still processing, deletes what is not
   * wanted (and failed or abandoned records), uploads what the store lacks, then sets the order.
   */
  async function writeSlot(
    counter: Counter,
    localizationId: string,
    change: MediaSlotChange,
    onItem: ((progress: MediaProgress) => void) | undefined,
  ): Promise<MediaSlotResult & { bytes: number }> {
    const kind = kindOf(change.slotType);
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
        ? await readSet(counter, localizationId, change.slotType)
        : await ensureSet(counter, localizationId, change.slotType);
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
    const known = new Set(records.map((r) => r.id));
    const queue = [...missing];
    const settledIds = new Map<string, string>();
    const worker = async () => {
      for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
        const outcome = await upload(counter, kind, existing.id, file, known);
        if ('record' in outcome) {
          settledIds.set(file.md5, outcome.record.id);
          result.uploaded += 1;
          result.bytes += outcome.bytes;
          onItem?.({
            locale: change.locale,
            slotType: change.slotType,
            sha256: file.sha256,
            state: 'uploaded',
          });
        } else {
          result.failures.push({
            locale: change.locale,
            slotType: change.slotType,
            sha256: file.sha256,
            error: outcome.error,
          });
          onItem?.({
            locale: change.locale,
            slotType: change.slotType,
            sha256: file.sha256,
            state: 'failed',
          });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(FILE_CONCURRENCY, queue.length) }, worker));
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
    async read(counter: Counter, localizations: Map<string, JsonApiResource>): Promise<StoreMedia> {
      const media: StoreMedia = new Map();
      await Promise.all(
        [...localizations].map(async ([locale, localization]) => {
          const slots = new Map<string, StoreMediaFile[]>();
          for (const kind of [SCREENSHOTS, PREVIEWS]) {
            for (const [slotType, set] of await readSets(counter, localization.id, kind)) {
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
