/**
 * The store calls a push of one media slot is expected to make, for a dry run: derived from what
 * the store had (base) and what the slot should hold, the way each connector writes (App Store:
 * delete, reserve + parts + commit + poll per new file, one reorder; Google Play: keep the
 * longest unchanged prefix, delete the rest, upload the tail). The real push re-reads the store
 * first, so it may do less.
 */
import type { Store } from '../shared/stores.js';
import { PREVIEW_PREFIX } from './app-store-connect/media.js';

/** Apple's part size is undocumented; the emulator and the build API use 5 MiB (A1.3). */
const APPLE_PART_BYTES = 5 * 1024 * 1024;
const SINGLE_IMAGES = new Set(['icon', 'featureGraphic', 'tvBanner']);

export function plannedMediaCalls(
  store: Store,
  slotType: string,
  change: { old: string[]; new: string[] },
  bytesOf: (sha256: string) => number,
): string[] {
  return store === 'appstore'
    ? appStoreCalls(slotType, change, bytesOf)
    : playCalls(slotType, change, bytesOf);
}

function appStoreCalls(
  slotType: string,
  change: { old: string[]; new: string[] },
  bytesOf: (sha256: string) => number,
) {
  const preview = slotType.startsWith(PREVIEW_PREFIX);
  const items = preview ? 'appPreviews' : 'appScreenshots';
  const sets = preview ? 'appPreviewSets' : 'appScreenshotSets';
  const calls: string[] = [];
  if (change.old.length === 0 && change.new.length > 0)
    calls.push(`POST /v1/${sets} (when the set is missing)`);
  for (const sha of change.old.filter((s) => !change.new.includes(s))) {
    calls.push(`DELETE /v1/${items}/{id} (${short(sha)})`);
  }
  const added = change.new.filter((s) => !change.old.includes(s));
  for (const sha of added) {
    const bytes = bytesOf(sha);
    calls.push(
      `POST /v1/${items} (reserve ${short(sha)}, ${bytes} bytes)`,
      `PUT ${Math.max(1, Math.ceil(bytes / APPLE_PART_BYTES))} part(s) to the upload URLs`,
      `PATCH /v1/${items}/{id} (commit with the MD5)`,
      `GET /v1/${items}/{id} until processed`,
    );
  }
  // New files are appended: the order is set when the result differs from kept-then-added.
  const appended = [...change.old.filter((s) => change.new.includes(s)), ...added];
  if (JSON.stringify(appended) !== JSON.stringify(change.new)) {
    calls.push(`PATCH /v1/${sets}/{id}/relationships/${items} (order)`);
  }
  return calls;
}

function playCalls(
  slotType: string,
  change: { old: string[]; new: string[] },
  bytesOf: (sha256: string) => number,
) {
  const path = `…/edits/{editId}/listings/{language}/${slotType}`;
  let keep = 0;
  while (keep < change.old.length && keep < change.new.length && change.old[keep] === change.new[keep])
    keep += 1;
  const calls: string[] = [];
  const replaces = SINGLE_IMAGES.has(slotType) && change.new.length === 1 && keep === 0;
  if (!replaces)
    for (const sha of change.old.slice(keep)) calls.push(`DELETE ${path}/{imageId} (${short(sha)})`);
  for (const sha of change.new.slice(keep)) {
    calls.push(`POST /upload${path}?uploadType=media (${short(sha)}, ${bytesOf(sha)} bytes)`);
  }
  return calls;
}

const short = (sha256: string) => sha256.slice(0, 12);
