/**
 * The stores' vocabulary, shared by every layer: the two stores, their names for people, and the
 * locale codes of each, exactly as each store spells them (stores.md §4). Codes stay store-native;
 * the mapping below is explicit, not algorithmic, because it is many-to-one in places.
 */
export const STORES = ['appstore', 'playstore'] as const;
export type Store = (typeof STORES)[number];

/** What an operation may be asked to run on: one store or both. */
export const STORE_SELECTIONS = [...STORES, 'both'] as const;
export type StoreSelection = (typeof STORE_SELECTIONS)[number];

/** How a person calls each store. */
export const STORE_LABEL: Record<Store, string> = { appstore: 'App Store', playstore: 'Google Play' };

/** Apple's 50 codes (case-sensitive). */
export const APPSTORE_LOCALES: ReadonlySet<string> = new Set(
  (
    'ar-SA bn-BD ca cs da de-DE el en-AU en-CA en-GB en-US es-ES es-MX fi fr-CA fr-FR gu-IN he hi hr hu id it ja ' +
    'kn-IN ko ml-IN mr-IN ms nl-NL no or-IN pa-IN pl pt-BR pt-PT ro ru sk sl-SI sv ta-IN te-IN th tr uk ur-PK vi ' +
    'zh-Hans zh-Hant'
  ).split(' '),
);

/** Google Play's 87 codes. */
export const PLAYSTORE_LOCALES: ReadonlySet<string> = new Set(
  (
    'af am ar az-AZ be bg bn-BD ca cs-CZ da-DK de-DE el-GR en-AU en-CA en-GB en-IN en-SG en-US en-ZA es-419 es-ES ' +
    'es-US et eu-ES fa fa-AE fa-AF fa-IR fi-FI fil fr-CA fr-FR gl-ES gu hi-IN hr hu-HU hy-AM id is-IS it-IT iw-IL ' +
    'ja-JP ka-GE kk km-KH kn-IN ko-KR ky-KG lo-LA lt lv mk-MK ml-IN mn-MN mr-IN ms ms-MY my-MM ne-NP nl-NL no-NO pa ' +
    'pl-PL pt-BR pt-PT rm ro ru-RU si-LK sk sl sq sr sv-SE sw ta-IN te-IN th tr-TR uk ur vi zh-CN zh-HK zh-TW zu'
  ).split(' '),
);

export const STORE_LOCALES: Record<Store, ReadonlySet<string>> = {
  appstore: APPSTORE_LOCALES,
  playstore: PLAYSTORE_LOCALES,
};

export const isStoreLocale = (store: Store, locale: string): boolean => STORE_LOCALES[store].has(locale);

/** Codes that both stores accept as written (26 of them): what an organization's default locale may be. */
export const isCommonLocale = (locale: string): boolean =>
  APPSTORE_LOCALES.has(locale) && PLAYSTORE_LOCALES.has(locale);

/** Apple code → the Google code for the same language, where they differ (stores.md §4). */
export const APPSTORE_TO_PLAYSTORE: Readonly<Record<string, string>> = {
  'ar-SA': 'ar',
  cs: 'cs-CZ',
  da: 'da-DK',
  el: 'el-GR',
  'es-MX': 'es-419',
  fi: 'fi-FI',
  'gu-IN': 'gu',
  he: 'iw-IL',
  hi: 'hi-IN',
  hu: 'hu-HU',
  it: 'it-IT',
  ja: 'ja-JP',
  ko: 'ko-KR',
  no: 'no-NO',
  'pa-IN': 'pa',
  pl: 'pl-PL',
  ru: 'ru-RU',
  'sl-SI': 'sl',
  sv: 'sv-SE',
  tr: 'tr-TR',
  'ur-PK': 'ur',
  'zh-Hans': 'zh-CN',
  'zh-Hant': 'zh-TW',
};

/** Google code → Apple code, where they differ; zh-HK has no default (Apple has one zh-Hant). */
export const PLAYSTORE_TO_APPSTORE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(APPSTORE_TO_PLAYSTORE).map(([apple, google]) => [google, apple]),
);

/**
 * The locale code in `to` for the same language as `locale` in `from`, or null when the target
 * store has no such locale (e.g. Apple or-IN on Google Play).
 */
export function mapLocale(from: Store, to: Store, locale: string): string | null {
  if (from === to) return locale;
  const table = from === 'appstore' ? APPSTORE_TO_PLAYSTORE : PLAYSTORE_TO_APPSTORE;
  const mapped = Object.hasOwn(table, locale) ? table[locale]! : locale;
  return isStoreLocale(to, mapped) ? mapped : null;
}

/** "an App Store", "a Google Play": the store's label with its article, for messages. */
export const withArticle = (store: Store): string =>
  `${/^[AEIOU]/.test(STORE_LABEL[store]) ? 'an' : 'a'} ${STORE_LABEL[store]}`;

// Made on first use: creating it maps ICU's language names into memory, 5 MB of resident memory
// that a service which never lists locales need not hold (BENCHMARKS.md, #22).
let languageNames: Intl.DisplayNames | null = null;

/** A locale code's name in English, e.g. zh-Hans → "Simplified Chinese", iw-IL → "Hebrew (Israel)". */
export function localeName(code: string): string {
  languageNames ??= new Intl.DisplayNames(['en'], { type: 'language' });
  try {
    return languageNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** Levenshtein distance, for suggesting a code that is one or two keystrokes away. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The store's codes nearest to a code it does not have, best first (at most three): the same code
 * in another case, the other store's code for the language, the codes of the same language, then
 * codes one or two keystrokes away.
 */
export function suggestLocales(store: Store, code: string): string[] {
  const codes = [...STORE_LOCALES[store]];
  const lower = code.toLowerCase().replace('_', '-');
  const language = lower.split('-')[0]!;
  const other: Store = store === 'appstore' ? 'playstore' : 'appstore';
  const mapped = STORE_LOCALES[other].has(code) ? mapLocale(other, store, code) : null;
  // Tiers, best first; the first that finds anything answers.
  const tiers = [
    [...codes.filter((candidate) => candidate.toLowerCase() === lower), ...(mapped === null ? [] : [mapped])],
    codes.filter((candidate) => candidate.toLowerCase().split('-')[0] === language),
    lower.length >= 4 ? codes.filter((candidate) => distance(candidate.toLowerCase(), lower) <= 2) : [],
  ];
  return [...new Set(tiers.find((tier) => tier.length > 0) ?? [])].slice(0, 3);
}

/** A person's message for a code the store does not have, with suggestions. */
export function unknownLocaleMessage(store: Store, code: string): string {
  const suggestions = suggestLocales(store, code);
  return (
    `"${code}" is not ${withArticle(store)} locale code` +
    (suggestions.length > 0 ? `; did you mean ${suggestions.join(', ')}?` : ' (see GET /api/v1/locales)')
  );
}
