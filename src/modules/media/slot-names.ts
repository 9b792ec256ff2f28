/**
 * What people call a slot (design.md §10: no raw ids in what a person reads): the device App Store
 * Connect's display type stands for — the enum says 67, the slot holds 6.9″ screens (stores-media.md
 * A1.2) — and Google Play's image types in Play Console's words.
 */
const APPLE_DEVICES: Record<string, string> = {
  IPHONE_67: 'iPhone 6.9″',
  IPHONE_65: 'iPhone 6.5″',
  IPHONE_61: 'iPhone 6.3″',
  IPHONE_58: 'iPhone 6.1″',
  IPHONE_55: 'iPhone 5.5″',
  IPHONE_47: 'iPhone 4.7″',
  IPHONE_40: 'iPhone 4″',
  IPHONE_35: 'iPhone 3.5″',
  IPAD_PRO_3GEN_129: 'iPad 13″',
  IPAD_PRO_3GEN_11: 'iPad 11″',
  IPAD_PRO_129: 'iPad 12.9″ (2nd generation)',
  IPAD_105: 'iPad 10.5″',
  IPAD_97: 'iPad 9.7″',
  DESKTOP: 'Mac',
  APPLE_TV: 'Apple TV',
  APPLE_VISION_PRO: 'Apple Vision Pro',
  WATCH_ULTRA: 'Apple Watch Ultra',
  WATCH_SERIES_10: 'Apple Watch Series 10',
  WATCH_SERIES_7: 'Apple Watch Series 7',
  WATCH_SERIES_4: 'Apple Watch Series 4',
  WATCH_SERIES_3: 'Apple Watch Series 3',
};

const PLAY_IMAGES: Record<string, string> = {
  phoneScreenshots: 'Phone',
  sevenInchScreenshots: '7-inch tablet',
  tenInchScreenshots: '10-inch tablet',
  tvScreenshots: 'TV',
  wearScreenshots: 'Wear OS',
  icon: 'App icon',
  featureGraphic: 'Feature graphic',
  tvBanner: 'TV banner',
};

/** A slot's name for people, e.g. "iPhone 6.9″", "App preview · iPad 13″", "7-inch tablet". */
export function slotName(store: 'appstore' | 'playstore', slotType: string): string {
  if (store === 'playstore') return PLAY_IMAGES[slotType] ?? slotType;
  const [, kind, device] = /^(APP_|IMESSAGE_APP_|PREVIEW_)?(.*)$/.exec(slotType)!;
  const name = APPLE_DEVICES[device!] ?? slotType;
  if (kind === 'IMESSAGE_APP_') return `iMessage · ${name}`;
  if (kind === 'PREVIEW_') return `App preview · ${name}`;
  return name;
}
