/**
 * Every slot type of both stores and the rules each enforces on a file, from stores-media.md
 * (A1.2, A1.7, A2.3). Rules are data: validation, the dashboard's hints and the fastlane import
 * (display type from pixel size) all read them from here.
 */
import { invalid } from '../../errors.js';
import { parsePageSlot } from '../../shared/page-slots.js';
import type { Store } from '../../shared/stores.js';

export type MediaKind = 'image' | 'video';
export type ImageFormat = 'png' | 'jpeg';
export type VideoContainer = 'mp4' | 'mov' | 'm4v';

interface Size {
  width: number;
  height: number;
}

export interface SlotRule {
  store: Store;
  slotType: string;
  kind: MediaKind;
  /** What a person calls it. */
  label: string;
  maxItems: number;
  formats: (ImageFormat | VideoContainer)[];
  /** Exact pixel sizes accepted (portrait as listed; the transposed size is accepted too). */
  sizes?: Size[];
  /** Google Play's screenshot range: each side within [min, max], long side ≤ ratio × short side. */
  range?: { min: number; max: number; maxRatio: number; aspect?: number };
  /** `forbidden`: the store refuses an alpha channel; `required`: it wants one (Play's icon). */
  alpha: 'forbidden' | 'required' | 'allowed';
  /** Bytes the store accepts at most for one file. */
  maxBytes: number;
  /** Video length accepted, in seconds. */
  durationSeconds?: { min: number; max: number };
}

const sizes = (...list: [number, number][]): Size[] => list.map(([width, height]) => ({ width, height }));

/** Apple publishes no maximum for screenshots; this bounds what one upload may hold (design.md §12). */
const APPSTORE_SCREENSHOT_MAX_BYTES = 30 * 1024 * 1024;
/** Google Play's media upload cap (the discovery document's maxSize). */
const PLAY_MAX_BYTES = 15 * 1024 * 1024;
const PREVIEW_MAX_BYTES = 500 * 1024 * 1024;

/** App Store screenshot sizes per display type, after fastlane's DEVICE_RESOLUTIONS (A1.2). */
const APPSTORE_SCREENSHOT_SIZES: Record<string, Size[]> = {
  APP_IPHONE_67: sizes([1260, 2736], [1290, 2796], [1320, 2868]),
  APP_IPHONE_65: sizes([1242, 2688], [1284, 2778]),
  APP_IPHONE_61: sizes([1179, 2556], [1206, 2622]),
  APP_IPHONE_58: sizes([1170, 2532], [1125, 2436], [1080, 2340]),
  APP_IPHONE_55: sizes([1242, 2208]),
  APP_IPHONE_47: sizes([750, 1334]),
  APP_IPHONE_40: sizes([640, 1096], [640, 1136], [1136, 600]),
  APP_IPHONE_35: sizes([640, 920], [640, 960], [960, 600]),
  APP_IPAD_PRO_3GEN_129: sizes([2048, 2732], [2064, 2752]),
  APP_IPAD_PRO_3GEN_11: sizes([1488, 2266], [1668, 2420], [1668, 2388], [1640, 2360]),
  APP_IPAD_PRO_129: sizes([2048, 2732]),
  APP_IPAD_105: sizes([1668, 2224]),
  APP_IPAD_97: sizes([768, 1004], [768, 1024], [1536, 2008], [1536, 2048], [1024, 748], [2048, 1496]),
  APP_DESKTOP: sizes([1280, 800], [1440, 900], [2560, 1600], [2880, 1800]),
  APP_APPLE_TV: sizes([1920, 1080], [3840, 2160]),
  APP_APPLE_VISION_PRO: sizes([3840, 2160]),
  APP_WATCH_ULTRA: sizes([410, 502], [422, 514]),
  APP_WATCH_SERIES_10: sizes([416, 496]),
  APP_WATCH_SERIES_7: sizes([396, 484]),
  APP_WATCH_SERIES_4: sizes([368, 448]),
  APP_WATCH_SERIES_3: sizes([312, 390]),
};
for (const twin of [
  'IPHONE_67',
  'IPHONE_61',
  'IPHONE_65',
  'IPHONE_58',
  'IPHONE_55',
  'IPHONE_47',
  'IPHONE_40',
  'IPAD_PRO_3GEN_129',
  'IPAD_PRO_3GEN_11',
  'IPAD_PRO_129',
  'IPAD_105',
  'IPAD_97',
]) {
  APPSTORE_SCREENSHOT_SIZES[`IMESSAGE_APP_${twin}`] = APPSTORE_SCREENSHOT_SIZES[`APP_${twin}`]!;
}

/**
 * App preview sizes where a source gives them (A1.7); the other preview types accept any size and
 * the check says the dimensions were not verified.
 */
const APPSTORE_PREVIEW_SIZES: Record<string, Size[] | undefined> = {
  IPHONE_67: sizes([886, 1920]),
  IPHONE_65: sizes([886, 1920]),
  IPHONE_55: sizes([1080, 1920]),
  IPHONE_47: sizes([750, 1334]),
  IPHONE_40: sizes([1080, 1920]),
  IPAD_PRO_3GEN_129: sizes([1200, 1600]),
  IPAD_PRO_129: sizes([1200, 1600], [900, 1200]),
  IPAD_97: sizes([900, 1200]),
};
const APPSTORE_PREVIEW_TYPES = [
  'IPHONE_67',
  'IPHONE_61',
  'IPHONE_65',
  'IPHONE_58',
  'IPHONE_55',
  'IPHONE_47',
  'IPHONE_40',
  'IPHONE_35',
  'IPAD_PRO_3GEN_129',
  'IPAD_PRO_3GEN_11',
  'IPAD_PRO_129',
  'IPAD_105',
  'IPAD_97',
  'DESKTOP',
  'APPLE_TV',
  'APPLE_VISION_PRO',
];

/** App preview slots are named `PREVIEW_<previewType>` here, so they never clash with display types. */
export const previewSlot = (previewType: string) => `PREVIEW_${previewType}`;

const PLAY_SCREENSHOT_RANGE = { min: 320, max: 3840, maxRatio: 2 };

/** A Google Play image slot: PNG or JPEG, no transparency, Play's size cap, unless `rule` says otherwise. */
function playImage(
  slotType: string,
  rule: Pick<SlotRule, 'maxItems'> & Partial<Omit<SlotRule, 'store' | 'slotType' | 'kind' | 'label'>>,
): SlotRule {
  return {
    store: 'playstore',
    slotType,
    kind: 'image',
    label: `Google Play ${slotType}`,
    formats: ['png', 'jpeg'],
    alpha: 'forbidden',
    maxBytes: PLAY_MAX_BYTES,
    ...rule,
  };
}

const rules: SlotRule[] = [
  ...Object.entries(APPSTORE_SCREENSHOT_SIZES).map(([slotType, accepted]): SlotRule => ({
    store: 'appstore',
    slotType,
    kind: 'image',
    label: `App Store screenshots ${slotType}`,
    maxItems: 10,
    formats: ['png', 'jpeg'],
    sizes: accepted,
    alpha: 'forbidden',
    maxBytes: APPSTORE_SCREENSHOT_MAX_BYTES,
  })),
  ...APPSTORE_PREVIEW_TYPES.map((previewType): SlotRule => ({
    store: 'appstore',
    slotType: previewSlot(previewType),
    kind: 'video',
    label: `App Store app previews ${previewType}`,
    maxItems: 3,
    formats: ['mp4', 'mov', 'm4v'],
    ...(APPSTORE_PREVIEW_SIZES[previewType] && { sizes: APPSTORE_PREVIEW_SIZES[previewType] }),
    alpha: 'allowed',
    maxBytes: PREVIEW_MAX_BYTES,
    durationSeconds: { min: 15, max: 30 },
  })),
  ...(['phoneScreenshots', 'sevenInchScreenshots', 'tenInchScreenshots'] as const).map((slotType) =>
    playImage(slotType, { maxItems: 8, range: PLAY_SCREENSHOT_RANGE }),
  ),
  playImage('tvScreenshots', { maxItems: 8, range: { ...PLAY_SCREENSHOT_RANGE, aspect: 16 / 9 } }),
  playImage('wearScreenshots', { maxItems: 8, range: { min: 384, max: 3840, maxRatio: 1, aspect: 1 } }),
  playImage('icon', {
    maxItems: 1,
    formats: ['png'],
    sizes: sizes([512, 512]),
    alpha: 'required',
    maxBytes: 1024 * 1024,
  }),
  playImage('featureGraphic', { maxItems: 1, sizes: sizes([1024, 500]) }),
  playImage('tvBanner', { maxItems: 1, sizes: sizes([1280, 720]), alpha: 'allowed' }),
];

const byKey = new Map(rules.map((rule) => [`${rule.store}/${rule.slotType}`, rule]));

export const SLOT_RULES: readonly SlotRule[] = rules;

/**
 * The rule of a slot, by slot type or by a custom product page's slot key (App Store only: the
 * page's sets follow the default page's rules).
 */
export function slotRule(store: Store, slotType: string): SlotRule | undefined {
  const page = parsePageSlot(slotType);
  if (page !== null) return store === 'appstore' ? byKey.get(`${store}/${page.slotType}`) : undefined;
  return byKey.get(`${store}/${slotType}`);
}

/** The largest upload any slot accepts: the bound of the streaming limit before the slot is known. */
export const MAX_UPLOAD_BYTES = Math.max(...rules.map((rule) => rule.maxBytes));

const fits = (accepted: readonly Size[], width: number, height: number) =>
  accepted.some(
    (size) =>
      (size.width === width && size.height === height) || (size.width === height && size.height === width),
  );

/** What was read from a file's bytes. */
export interface FileFacts {
  kind: MediaKind;
  format: ImageFormat | VideoContainer;
  width: number | null;
  height: number | null;
  hasAlpha: boolean;
  bytes: number;
  durationMs: number | null;
}

export interface RuleBreak {
  rule: string;
  message: string;
}

const sizeList = (accepted: readonly Size[]) =>
  accepted.map((size) => `${size.width}×${size.height}`).join(', ');

/**
 * Every rule of the slot the file breaks (stores-media.md), each naming the rule and the file's
 * actual values; empty when it fits. `notVerified` lists what could not be read from the bytes.
 */
export function checkFile(rule: SlotRule, file: FileFacts): { breaks: RuleBreak[]; notVerified: string[] } {
  const breaks: RuleBreak[] = [];
  const notVerified: string[] = [];
  const where = rule.label;
  if (file.kind !== rule.kind || !rule.formats.includes(file.format)) {
    breaks.push({
      rule: 'format',
      message: `${where} accept ${rule.formats.join(', ')}; the file is ${file.format}`,
    });
    return { breaks, notVerified };
  }
  if (file.bytes > rule.maxBytes) {
    breaks.push({
      rule: 'bytes',
      message: `${where} accept files up to ${rule.maxBytes} bytes; the file has ${file.bytes}`,
    });
  }
  const { width, height } = file;
  if (width === null || height === null) {
    notVerified.push('dimensions');
  } else if (rule.sizes !== undefined && !fits(rule.sizes, width, height)) {
    breaks.push({
      rule: 'dimensions',
      message: `${where} accept ${sizeList(rule.sizes)} (or turned sideways); the file is ${width}×${height}`,
    });
  } else if (rule.range !== undefined) {
    const { min, max, maxRatio, aspect } = rule.range;
    const short = Math.min(width, height);
    const long = Math.max(width, height);
    if (short < min || long > max) {
      breaks.push({
        rule: 'dimensions',
        message: `${where} need each side between ${min} and ${max} px; the file is ${width}×${height}`,
      });
    } else if (aspect !== undefined && Math.abs(long / short - aspect) > 0.01) {
      breaks.push({
        rule: 'aspectRatio',
        message: `${where} need an aspect ratio of ${aspect === 1 ? '1:1' : '16:9'}; the file is ${width}×${height}`,
      });
    } else if (long > maxRatio * short) {
      breaks.push({
        rule: 'aspectRatio',
        message: `${where} need the long side at most ${maxRatio}× the short side; the file is ${width}×${height}`,
      });
    }
  } else if (rule.sizes === undefined && rule.kind === 'video') {
    notVerified.push('dimensions');
  }
  if (rule.alpha === 'forbidden' && file.hasAlpha) {
    breaks.push({
      rule: 'alpha',
      message: `${where} must have no alpha channel; the file has one (save it as RGB without transparency)`,
    });
  }
  if (rule.alpha === 'required' && !file.hasAlpha) {
    breaks.push({ rule: 'alpha', message: `${where} must be a 32-bit PNG with alpha; the file has none` });
  }
  if (rule.durationSeconds !== undefined) {
    if (file.durationMs === null) notVerified.push('duration');
    else {
      const seconds = file.durationMs / 1000;
      const { min, max } = rule.durationSeconds;
      if (seconds < min || seconds > max) {
        breaks.push({
          rule: 'duration',
          message: `${where} must last ${min}–${max} s; the file lasts ${seconds.toFixed(1)} s`,
        });
      }
    }
  }
  return { breaks, notVerified };
}

/**
 * The App Store display type of a screenshot from its pixel size, as fastlane deliver decides
 * (A1.5): 2048×2732 is the 12.9" 2nd generation only when the path says so, 3840×2160 is Vision
 * Pro only when the path says "vision". iMessage folders map to the IMESSAGE_ twins.
 */
export function displayTypeForSize(width: number, height: number, filePath: string): string | undefined {
  const lower = filePath.toLowerCase();
  const iMessage = /(^|\/)imessage\//i.test(filePath);
  const isSize = (w: number, h: number) => (width === w && height === h) || (width === h && height === w);
  if (isSize(2048, 2732)) {
    const second =
      lower.includes('app_ipad_pro_129') || (lower.includes('12.9') && lower.includes('2nd generation'));
    const type = second ? 'APP_IPAD_PRO_129' : 'APP_IPAD_PRO_3GEN_129';
    return iMessage ? `IMESSAGE_${type}` : type;
  }
  if (isSize(3840, 2160)) return lower.includes('vision') ? 'APP_APPLE_VISION_PRO' : 'APP_APPLE_TV';
  for (const [type, accepted] of Object.entries(APPSTORE_SCREENSHOT_SIZES)) {
    if (type.startsWith('IMESSAGE_') !== iMessage) continue;
    if (type === 'APP_IPAD_PRO_129' || type === 'IMESSAGE_APP_IPAD_PRO_129') continue;
    if (fits(accepted, width, height)) return type;
  }
  return undefined;
}

/** 400: a slot holds at most its rule's number of files. */
export const countBreak = (rule: SlotRule, count: number) =>
  invalid(`file: ${rule.label} hold at most ${rule.maxItems} files; the slot has ${count}`, [
    {
      field: 'file.count',
      message: `the slot holds at most ${rule.maxItems} files and has ${count}`,
      limit: rule.maxItems,
      length: count,
    },
  ]);
