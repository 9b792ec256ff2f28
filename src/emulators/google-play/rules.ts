/**
 * Google's rules as the Google Play emulator enforces them (stores.md §1.2, §3, §4). Kept apart
 * from the service's own tables on purpose: an emulator must not inherit a connector's mistake.
 */

/** Google Play's 87 language codes (stores.md §4). */
export const LOCALES: ReadonlySet<string> = new Set(
  (
    'af am ar az-AZ be bg bn-BD ca cs-CZ da-DK de-DE el-GR en-AU en-CA en-GB en-IN en-SG en-US en-ZA es-419 es-ES ' +
    'es-US et eu-ES fa fa-AE fa-AF fa-IR fi-FI fil fr-CA fr-FR gl-ES gu hi-IN hr hu-HU hy-AM id is-IS it-IT iw-IL ' +
    'ja-JP ka-GE kk km-KH kn-IN ko-KR ky-KG lo-LA lt lv mk-MK ml-IN mn-MN mr-IN ms ms-MY my-MM ne-NP nl-NL no-NO pa ' +
    'pl-PL pt-BR pt-PT rm ro ru-RU si-LK sk sl sq sr sv-SE sw ta-IN te-IN th tr-TR uk ur vi zh-CN zh-HK zh-TW zu'
  ).split(' '),
);

export const SCOPE = 'https://www.googleapis.com/auth/androidpublisher';
export const LIMITS = { title: 30, shortDescription: 80, fullDescription: 4000 } as const;
export const FIELD_WORDS = {
  title: 'title',
  shortDescription: 'short description (promotional text)',
  fullDescription: 'full description',
};
