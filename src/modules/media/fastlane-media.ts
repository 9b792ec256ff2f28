/**
 * Screenshots and previews in fastlane's layouts, both ways:
 *
 * - deliver: `fastlane/screenshots/<locale>/*.png|jpg|jpeg` (plus `appleTV/<locale>` and
 *   `iMessage/<locale>`), the display type decided by the pixel size as deliver decides it
 *   (displayTypeForSize), files sorted by name, a `*_framed.*` file winning over its plain twin;
 *   app previews in `fastlane/app_previews/<locale>/*.mp4|mov|m4v` with the preview type as a
 *   token of the name (IPHONE_67, ...), as deliver's preview upload reads them.
 * - supply: `fastlane/metadata/android/<language>/images/<type>/*.png|jpg|jpeg` for screenshot
 *   types, `images/<icon|featureGraphic|tvBanner>.png|jpg|jpeg` for the single images.
 *
 * Exported names sort in slot order, so a re-import restores the same order.
 */
import type { Store } from '../../shared/stores.js';
import { previewSlot } from './slots.js';

const IMAGE_EXTENSIONS = /\.(png|jpe?g)$/i;
const VIDEO_EXTENSIONS = /\.(mp4|mov|m4v)$/i;
const PLAY_SINGLE = ['icon', 'featureGraphic', 'tvBanner'];
const PLAY_SCREENSHOTS = [
  'phoneScreenshots',
  'sevenInchScreenshots',
  'tenInchScreenshots',
  'tvScreenshots',
  'wearScreenshots',
];
/** Longest first, so IPAD_PRO_3GEN_129 is not read as IPAD_PRO_129. */
const PREVIEW_TOKENS = [
  'IPAD_PRO_3GEN_129',
  'IPAD_PRO_3GEN_11',
  'IPAD_PRO_129',
  'APPLE_VISION_PRO',
  'APPLE_TV',
  'IPHONE_67',
  'IPHONE_65',
  'IPHONE_61',
  'IPHONE_58',
  'IPHONE_55',
  'IPHONE_47',
  'IPHONE_40',
  'IPHONE_35',
  'IPAD_105',
  'IPAD_97',
  'DESKTOP',
];

const extensionOf = (contentType: string) =>
  ({
    'image/png': 'png',
    'image/jpeg': 'jpg',
    'video/mp4': 'mp4',
    'video/quicktime': 'mov',
    'video/x-m4v': 'm4v',
  })[contentType] ?? 'bin';

const pad = (n: number) => String(n).padStart(2, '0');

/** Where an item goes in the fastlane layout (1-based position). */
export function fastlanePath(item: {
  store: Store;
  locale: string;
  slotType: string;
  position: number;
  contentType: string;
}): string {
  const ext = extensionOf(item.contentType);
  if (item.store === 'playstore') {
    const images = `fastlane/metadata/android/${item.locale}/images`;
    return PLAY_SINGLE.includes(item.slotType)
      ? `${images}/${item.slotType}.${ext}`
      : `${images}/${item.slotType}/${pad(item.position)}.${ext}`;
  }
  if (item.slotType.startsWith('PREVIEW_')) {
    const type = item.slotType.slice('PREVIEW_'.length);
    return `fastlane/app_previews/${item.locale}/${type}_${pad(item.position)}.${ext}`;
  }
  const folder = item.slotType.startsWith('IMESSAGE_')
    ? `iMessage/${item.locale}`
    : item.slotType === 'APP_APPLE_TV'
      ? `appleTV/${item.locale}`
      : item.locale;
  return `fastlane/screenshots/${folder}/${item.slotType}_${pad(item.position)}.${ext}`;
}

/** A file of a fastlane tree that holds media, before its bytes are read. */
export interface MediaFile {
  path: string;
  store: Store;
  locale: string;
  /** Known from the path; for App Store screenshots decided from the pixel size once read. */
  slotType: string | null;
  /** Sorts the files of one slot. */
  sortKey: string;
}

export type Placement = { file: MediaFile } | { skipped: string; reason: string };

/**
 * Where a tree path belongs, or why it is skipped. The tree may sit anywhere in the archive or
 * directory: it starts at the first `screenshots`, `app_previews` or `metadata/android` folder.
 */
export function placeOf(path: string): Placement | null {
  const parts = path.split('/');
  const at = parts.findIndex(
    (part, index) =>
      part === 'screenshots' ||
      part === 'app_previews' ||
      (part === 'metadata' && parts[index + 1] === 'android'),
  );
  if (at < 0) return null;
  const rest = parts.slice(at + 1);
  const name = rest[rest.length - 1] ?? '';
  const skip = (reason: string): Placement => ({ skipped: path, reason });

  if (parts[at] === 'screenshots') {
    const special = rest[0] === 'appleTV' || rest[0] === 'iMessage';
    const locale = special ? rest[1] : rest[0];
    if (locale === undefined || rest.length !== (special ? 3 : 2))
      return skip('not a screenshots/<locale>/<file> path');
    if (!IMAGE_EXTENSIONS.test(name)) return skip('deliver reads .png, .jpg and .jpeg screenshots');
    return { file: { path, store: 'appstore', locale, slotType: null, sortKey: name.toLowerCase() } };
  }
  if (parts[at] === 'app_previews') {
    if (rest.length !== 2) return skip('not an app_previews/<locale>/<file> path');
    if (!VIDEO_EXTENSIONS.test(name)) return skip('app previews are .mp4, .mov or .m4v files');
    const upper = name.toUpperCase();
    const token = PREVIEW_TOKENS.find((t) => upper.includes(t));
    if (token === undefined) return skip(`the name names no preview type (${PREVIEW_TOKENS.join(', ')})`);
    return {
      file: { path, store: 'appstore', locale: rest[0]!, slotType: previewSlot(token), sortKey: upper },
    };
  }
  // metadata/android/<language>/images/...
  const [, language, images, type, file] = rest;
  if (images !== 'images' || language === undefined) return null;
  if (file === undefined) {
    const single = PLAY_SINGLE.find((s) => new RegExp(`^${s}\\.(png|jpe?g)$`, 'i').test(type ?? ''));
    if (single === undefined)
      return skip('not an images/<type>/<file> or images/<icon|featureGraphic|tvBanner> path');
    return {
      file: { path, store: 'playstore', locale: language, slotType: single, sortKey: name.toLowerCase() },
    };
  }
  if (rest.length !== 5 || !PLAY_SCREENSHOTS.includes(type!))
    return skip(`supply reads ${PLAY_SCREENSHOTS.join(', ')}`);
  if (!IMAGE_EXTENSIONS.test(name)) return skip('supply reads .png, .jpg and .jpeg images');
  return {
    file: { path, store: 'playstore', locale: language, slotType: type!, sortKey: name.toLowerCase() },
  };
}

/**
 * deliver's framed screenshots: `x_framed.png` is uploaded instead of `x.png` when both exist.
 * Answers the paths to drop.
 */
export function shadowedByFramed(files: MediaFile[]): Set<string> {
  const paths = new Set(files.map((f) => f.path.toLowerCase()));
  const dropped = new Set<string>();
  for (const file of files) {
    if (file.store !== 'appstore' || file.slotType !== null) continue;
    const framed = file.path.replace(/(\.[^.]+)$/, '_framed$1').toLowerCase();
    if (paths.has(framed)) dropped.add(file.path);
  }
  return dropped;
}
