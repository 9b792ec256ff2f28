/**
 * The fastlane metadata layouts (stores.md §7): deliver's `metadata/<locale>/<file>.txt` for the
 * App Store and supply's `metadata/android/<language>/<file>.txt` for Google Play, so that a team
 * can move between fastlane and appmeta without rewriting anything.
 */
import { APPSTORE_LOCALES, type Store } from '../../shared/stores.js';
import type { FieldEdits, Listing } from './listing.js';
import type { ListingEdits } from './listing-writer.js';

export const DELIVER_FILES: Readonly<Record<string, string>> = {
  name: 'name.txt',
  subtitle: 'subtitle.txt',
  privacyPolicyUrl: 'privacy_url.txt',
  description: 'description.txt',
  keywords: 'keywords.txt',
  whatsNew: 'release_notes.txt',
  promotionalText: 'promotional_text.txt',
  supportUrl: 'support_url.txt',
  marketingUrl: 'marketing_url.txt',
};

export const SUPPLY_FILES: Readonly<Record<string, string>> = {
  title: 'title.txt',
  shortDescription: 'short_description.txt',
  fullDescription: 'full_description.txt',
  video: 'video.txt',
};

const ROOT = 'fastlane/metadata';
// deliver's non-locale directories (stores.md §7), skipped on import.
const DELIVER_SPECIAL = new Set([
  'android',
  'fonts',
  'review_information',
  'trade_representative_contact_information',
  'app_clip_review_information',
  'appletv',
  'imessage',
]);

/** The files of a fastlane tree for these listings (working copies), paths relative to the archive root. */
export function toFastlaneFiles(listings: Listing[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const listing of listings) {
    const table = listing.store === 'appstore' ? DELIVER_FILES : SUPPLY_FILES;
    const dir =
      listing.store === 'appstore' ? `${ROOT}/${listing.locale}` : `${ROOT}/android/${listing.locale}`;
    for (const [field, view] of Object.entries(listing.fields)) {
      const file = table[field];
      if (file === undefined || view.value === null) continue;
      // deliver downloads each value plus a trailing newline; supply writes values as they are.
      files.set(`${dir}/${file}`, listing.store === 'appstore' ? `${view.value}\n` : view.value);
    }
  }
  return files;
}

export interface ParsedTree {
  batch: ListingEdits[];
  /** Where each field's value came from, to name the file in errors. */
  sources: Map<string, string>;
  /** Files that are not listing texts (screenshots, changelogs, review information...). */
  skipped: string[];
}

const sourceKey = (store: Store, locale: string, field?: string) => `${store}/${locale}/${field ?? ''}`;

/**
 * Reads a fastlane tree. Accepts paths with or without a leading `fastlane/`, and an optional
 * single top-level folder around it. deliver values are trimmed and empty files skipped, and
 * `default/` fills locales that lack a file; supply values are taken as they are (stores.md §7).
 */
export function fromFastlaneFiles(files: Map<string, string>): ParsedTree {
  const deliver = new Map<string, FieldEdits>();
  const supply = new Map<string, FieldEdits>();
  const defaults: FieldEdits = {};
  const sources = new Map<string, string>();
  const skipped: string[] = [];
  const appleByLowerCase = new Map([...APPSTORE_LOCALES].map((code) => [code.toLowerCase(), code]));

  for (const [path, content] of files) {
    const match = /(?:^|\/)metadata\/(.+)$/.exec(path);
    const parts = match?.[1]?.split('/') ?? [];
    if (parts[0] === 'android' && parts.length === 3) {
      const [, language, file] = parts as [string, string, string];
      const field = Object.keys(SUPPLY_FILES).find((f) => SUPPLY_FILES[f] === file);
      if (field === undefined) {
        skipped.push(path);
        continue;
      }
      (supply.get(language) ?? supply.set(language, {}).get(language)!)[field] = content;
      sources.set(sourceKey('playstore', language, field), path);
      sources.set(sourceKey('playstore', language), path.slice(0, path.lastIndexOf('/')));
      continue;
    }
    if (parts.length === 2 && !DELIVER_SPECIAL.has(parts[0]!.toLowerCase())) {
      const [dir, file] = parts as [string, string];
      const field = Object.keys(DELIVER_FILES).find((f) => DELIVER_FILES[f] === file);
      const value = content.trim();
      if (field === undefined || value === '') {
        skipped.push(path);
        continue;
      }
      if (dir.toLowerCase() === 'default') {
        defaults[field] = value;
        continue;
      }
      // deliver matches locale folders case-insensitively; unknown ones fail validation by name.
      const locale = appleByLowerCase.get(dir.toLowerCase()) ?? dir;
      (deliver.get(locale) ?? deliver.set(locale, {}).get(locale)!)[field] = value;
      sources.set(sourceKey('appstore', locale, field), path);
      sources.set(sourceKey('appstore', locale), path.slice(0, path.lastIndexOf('/')));
      continue;
    }
    skipped.push(path);
  }
  for (const edits of deliver.values()) {
    for (const [field, value] of Object.entries(defaults)) edits[field] ??= value;
  }
  const batch: ListingEdits[] = [
    ...[...deliver].map(([locale, edits]) => ({ store: 'appstore' as const, locale, edits })),
    ...[...supply].map(([locale, edits]) => ({ store: 'playstore' as const, locale, edits })),
  ];
  return { batch, sources, skipped: skipped.sort() };
}

/** Names the file behind an edit in validation errors. */
export function describeSource(tree: ParsedTree) {
  return (entry: ListingEdits, field?: string): string =>
    tree.sources.get(sourceKey(entry.store, entry.locale, field)) ??
    (entry.store === 'appstore' ? `metadata/${entry.locale}` : `metadata/android/${entry.locale}`);
}
