/**
 * Apple's rules as the App Store Connect emulator enforces them (stores.md §2.1, §3, §4). Kept
 * apart from the service's own tables on purpose: an emulator must not inherit a connector's
 * mistake.
 */

/** Apple's 50 locale codes (case-sensitive, stores.md §4). */
export const LOCALES: ReadonlySet<string> = new Set(
  (
    'ar-SA bn-BD ca cs da de-DE el en-AU en-CA en-GB en-US es-ES es-MX fi fr-CA fr-FR gu-IN he hi hr hu id it ja ' +
    'kn-IN ko ml-IN mr-IN ms nl-NL no or-IN pa-IN pl pt-BR pt-PT ro ru sk sl-SI sv ta-IN te-IN th tr uk ur-PK vi ' +
    'zh-Hans zh-Hant'
  ).split(' '),
);

export const INFO_ATTRIBUTES = [
  'name',
  'subtitle',
  'privacyPolicyUrl',
  'privacyChoicesUrl',
  'privacyPolicyText',
];
export const VERSION_ATTRIBUTES = [
  'description',
  'keywords',
  'marketingUrl',
  'promotionalText',
  'supportUrl',
  'whatsNew',
];
export const LIMITS: Record<string, number> = {
  name: 30,
  subtitle: 30,
  description: 4000,
  keywords: 100,
  promotionalText: 170,
  whatsNew: 4000,
};
export const EDITABLE_INFO = new Set([
  'PREPARE_FOR_SUBMISSION',
  'DEVELOPER_REJECTED',
  'REJECTED',
  'WAITING_FOR_REVIEW',
]);
export const EDITABLE_VERSION = new Set([
  'PREPARE_FOR_SUBMISSION',
  'DEVELOPER_REJECTED',
  'REJECTED',
  'METADATA_REJECTED',
  'WAITING_FOR_REVIEW',
  'INVALID_BINARY',
]);
export const MAX_TOKEN_LIFETIME_S = 20 * 60;

/** Accepted screenshot sizes per display type, portrait (stores-media.md A1.2; turned sideways too). */
export const SCREENSHOT_SIZES: Record<string, [number, number][]> = {
  APP_IPHONE_67: [
    [1260, 2736],
    [1290, 2796],
    [1320, 2868],
  ],
  APP_IPHONE_65: [
    [1242, 2688],
    [1284, 2778],
  ],
  APP_IPHONE_61: [
    [1179, 2556],
    [1206, 2622],
  ],
  APP_IPHONE_58: [
    [1170, 2532],
    [1125, 2436],
    [1080, 2340],
  ],
  APP_IPHONE_55: [[1242, 2208]],
  APP_IPHONE_47: [[750, 1334]],
  APP_IPHONE_40: [
    [640, 1096],
    [640, 1136],
    [1136, 600],
  ],
  APP_IPHONE_35: [
    [640, 920],
    [640, 960],
    [960, 600],
  ],
  APP_IPAD_PRO_3GEN_129: [
    [2048, 2732],
    [2064, 2752],
  ],
  APP_IPAD_PRO_3GEN_11: [
    [1488, 2266],
    [1668, 2420],
    [1668, 2388],
    [1640, 2360],
  ],
  APP_IPAD_PRO_129: [[2048, 2732]],
  APP_IPAD_105: [[1668, 2224]],
  APP_IPAD_97: [
    [768, 1004],
    [768, 1024],
    [1536, 2008],
    [1536, 2048],
    [1024, 748],
    [2048, 1496],
  ],
  APP_DESKTOP: [
    [1280, 800],
    [1440, 900],
    [2560, 1600],
    [2880, 1800],
  ],
  APP_APPLE_TV: [
    [1920, 1080],
    [3840, 2160],
  ],
  APP_APPLE_VISION_PRO: [[3840, 2160]],
  APP_WATCH_ULTRA: [
    [410, 502],
    [422, 514],
  ],
  APP_WATCH_SERIES_10: [[416, 496]],
  APP_WATCH_SERIES_7: [[396, 484]],
  APP_WATCH_SERIES_4: [[368, 448]],
  APP_WATCH_SERIES_3: [[312, 390]],
};
for (const type of Object.keys(SCREENSHOT_SIZES)) {
  if (/^APP_(IPHONE|IPAD)_/.test(type)) SCREENSHOT_SIZES[`IMESSAGE_${type}`] = SCREENSHOT_SIZES[type]!;
}
