/**
 * App Store media assets one by one: the two kinds (screenshots, previews), a record as the store
 * shows it, and uploading a file — reserve, send the parts, commit, wait for processing — with
 * reads, deletes and settling of single records.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreError, type MediaFile } from '../store-connector.js';
import type { AscClient, Counter } from './client.js';
import type { JsonApiResource } from './mapper.js';

/** Slot types of app previews carry this prefix before Apple's previewType. */
export const PREVIEW_PREFIX = 'PREVIEW_';
/** Parts of one file sent at once. */
const PART_CONCURRENCY = 4;

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
export interface Kind {
  setType: 'appScreenshotSets' | 'appPreviewSets';
  itemType: 'appScreenshots' | 'appPreviews';
  typeAttribute: 'screenshotDisplayType' | 'previewType';
  setRelationship: 'appScreenshotSet' | 'appPreviewSet';
  delivery: 'assetDeliveryState' | 'videoDeliveryState';
  slotOf: (storeType: string) => string;
  storeTypeOf: (slotType: string) => string;
}

export const SCREENSHOTS: Kind = {
  setType: 'appScreenshotSets',
  itemType: 'appScreenshots',
  typeAttribute: 'screenshotDisplayType',
  setRelationship: 'appScreenshotSet',
  delivery: 'assetDeliveryState',
  slotOf: (type) => type,
  storeTypeOf: (slot) => slot,
};
export const PREVIEWS: Kind = {
  setType: 'appPreviewSets',
  itemType: 'appPreviews',
  typeAttribute: 'previewType',
  setRelationship: 'appPreviewSet',
  delivery: 'videoDeliveryState',
  slotOf: (type) => `${PREVIEW_PREFIX}${type}`,
  storeTypeOf: (slot) => slot.slice(PREVIEW_PREFIX.length),
};
export const kindOf = (slotType: string) => (slotType.startsWith(PREVIEW_PREFIX) ? PREVIEWS : SCREENSHOTS);

export interface UploadOperation {
  method: string;
  url: string;
  length: number;
  offset: number;
  requestHeaders?: { name: string; value: string }[] | null;
}

/** A screenshot or preview record as the connector needs it. */
export interface AssetRecord {
  id: string;
  state: string;
  checksum: string | null;
  fileName: string;
  fileSize: number;
  url: string | null;
  uploadOperations: UploadOperation[];
  errors: { code: string; description: string }[];
}

export const isSettled = (record: AssetRecord) => record.state === 'COMPLETE' && record.checksum !== null;
/** Committed, or COMPLETE without its checksum yet: the store is still working on it. */
export const isProcessing = (record: AssetRecord) =>
  record.state === 'UPLOAD_COMPLETE' ||
  record.state === 'PROCESSING' ||
  (record.state === 'COMPLETE' && record.checksum === null);

export function recordOf(kind: Kind, resource: JsonApiResource): AssetRecord {
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

export function createAscAssets(client: AscClient, processing: ProcessingPolicy) {
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

  return { getRecord, deleteRecord, settle, upload };
}
