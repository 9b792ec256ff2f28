/**
 * The fastlane metadata layouts (stores.md §7): deliver's `metadata/<locale>/<file>.txt` for the
 * App Store and supply's `metadata/android/<language>/<file>.txt` for Google Play, so that a team
 * can move between fastlane and appmeta without rewriting anything.
 *
 * An import reads only the tree fastlane itself reads — `fastlane/metadata` — or the folder the
 * user names; a repository's other `metadata` folders (resources, sources, tooling) are not
 * listings. Inside the tree, every file that is not read is reported with the reason.
 */
import { invalidField } from '../../errors.js';
import { STORE_LOCALES, suggestLocales, withArticle, type Store } from '../../shared/stores.js';
import { isSingleLine } from '../../shared/listing-fields.js';
import type { FieldEdits, Listing } from './listing.js';
import type { ListingEdits } from './listing-writer.js';
import { DETAIL_FIELDS } from '../../shared/detail-fields.js';
import { allFolders, chooseTree, type FileTree } from './fastlane-trees.js';
import {
  DELIVER_FILES,
  DELIVER_SPECIAL,
  FASTLANE_TREE,
  fieldOfFile,
  SUPPLY_FILES,
  SUPPLY_SPECIAL,
} from './fastlane-layout.js';

/** deliver's folder of App Review information. */
const REVIEW_FOLDER = 'review_information';

export type { FileTree } from './fastlane-trees.js';

/** The App Store detail a deliver file holds (`copyright.txt`, `review_information/notes.txt`, ...). */
const detailOfFile = (path: string): string | undefined =>
  Object.entries(DETAIL_FIELDS.appstore).find(([, rule]) => rule.file === path)?.[0];

/** The files of a fastlane tree for these listings (working copies), paths relative to the archive root. */
export function toFastlaneFiles(listings: Listing[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const listing of listings) {
    const table = listing.store === 'appstore' ? DELIVER_FILES : SUPPLY_FILES;
    const dir =
      listing.store === 'appstore'
        ? `${FASTLANE_TREE}/${listing.locale}`
        : `${FASTLANE_TREE}/android/${listing.locale}`;
    for (const [field, view] of Object.entries(listing.fields)) {
      const file = table[field];
      // Written as it is: no line break is added, so files round-trip byte for byte.
      if (file !== undefined && view.value !== null) files.set(`${dir}/${file}`, view.value);
    }
  }
  return files;
}

/** A file or folder of the tree that was not imported, and why. A folder's path ends with `/`. */
export interface Skipped {
  path: string;
  reason: string;
}

export interface ParsedTree {
  /** The folder read as fastlane's metadata tree ('' for the root itself). */
  tree: string;
  batch: ListingEdits[];
  /** Where each field's value came from, to name the file in errors. */
  sources: Map<string, string>;
  skipped: Skipped[];
  /** supply's `changelogs/<versionCode>.txt` and `changelogs/default.txt` (versionCode null). */
  changelogs: Changelog[];
  /** deliver's app-wide files: copyright, categories, review_information/* (design.md §19). */
  details: DetailFile[];
}

/** An App Store detail as deliver keeps it: a file of the tree and its text. */
export interface DetailFile {
  field: string;
  path: string;
  value: string;
}

/** A Google Play release note as supply keeps it: per language and version code (or default). */
export interface Changelog {
  locale: string;
  versionCode: string | null;
  /** The file, to name in errors. */
  path: string;
  text: string;
}

const sourceKey = (store: Store, locale: string, field?: string) => `${store}/${locale}/${field ?? ''}`;
const join = (folder: string, name: string) => (folder === '' ? name : `${folder}/${name}`);

/** A locale folder's code as the store writes it (folders are matched case-insensitively), or null. */
function storeLocale(store: Store, folder: string): string | null {
  const lower = folder.toLowerCase();
  return [...STORE_LOCALES[store]].find((code) => code.toLowerCase() === lower) ?? null;
}

function notALocale(store: Store, folder: string, layout: string): string {
  const suggestions = suggestLocales(store, folder);
  return (
    `not ${withArticle(store)} locale folder` +
    (suggestions.length > 0 ? ` (did you mean ${suggestions.join(', ')}?)` : '') +
    `; ${layout}`
  );
}

/**
 * A file's text as the value fastlane would send: deliver strips surrounding whitespace; supply's
 * files lose one final line break (an editor's or a translation platform's file convention, not
 * part of the text), single-line fields their surrounding whitespace too. A UTF-8 byte order mark
 * is never part of the text.
 */
function valueOf(store: Store, field: string, content: string): string {
  const text = content.replace(/^\uFEFF/, '');
  if (store === 'appstore' || isSingleLine(store, field)) return text.trim();
  return text.replace(/\r?\n$/, '');
}

/** What reading a tree gathers, and the rules of its layout. */
function readingOf(input: FileTree, path?: string) {
  const tree = chooseTree(input, path);
  const supplyOnly = tree === 'android' || tree.endsWith('/android');
  const supplyRoot = supplyOnly ? tree : join(tree, 'android');
  const deliverRoot = supplyOnly ? null : tree;
  const prefix = tree === '' ? '' : `${tree}/`;

  const edits: Record<Store, Map<string, FieldEdits>> = { appstore: new Map(), playstore: new Map() };
  const localeFolders: Record<Store, Map<string, string>> = { appstore: new Map(), playstore: new Map() };
  const defaults: FieldEdits = {};
  const sources = new Map<string, string>();
  const skipped = new Map<string, string>();
  const skip = (at: string, reason: string) => {
    if (!skipped.has(at)) skipped.set(at, reason);
  };
  const changelogs: Changelog[] = [];
  const details: DetailFile[] = [];

  const deliverLayout = `deliver reads ${join(tree, '<locale>')}/*.txt`;
  const supplyLayout = `supply reads ${join(supplyRoot, '<language>')}/*.txt`;

  /** Which store and locale a folder directly under a root is; reports the folders that are none. */
  const localeOf = (store: Store, root: string, folder: string): string | null => {
    const at = `${join(root, folder)}/`;
    if (store === 'appstore') {
      if (folder.toLowerCase() === 'default' || folder === REVIEW_FOLDER) return null;
      const special = DELIVER_SPECIAL.get(folder.toLowerCase());
      if (special !== undefined) {
        skip(at, `${special}: not a listing text`);
        return null;
      }
    }
    const locale = storeLocale(store, folder);
    if (locale === null)
      skip(at, notALocale(store, folder, store === 'appstore' ? deliverLayout : supplyLayout));
    else localeFolders[store].set(locale, at);
    return locale;
  };

  return {
    tree,
    supplyRoot,
    deliverRoot,
    prefix,
    edits,
    localeFolders,
    defaults,
    sources,
    skipped,
    skip,
    changelogs,
    details,
    deliverLayout,
    supplyLayout,
    localeOf,
  };
}

type Reading = ReturnType<typeof readingOf>;

/** A folder directly under a root names a locale (or is reported as none). */
function readFolder(reading: Reading, folder: string): void {
  const { supplyRoot, deliverRoot, prefix, localeOf } = reading;
  const underSupply = folder.startsWith(`${supplyRoot}/`);
  const root = underSupply ? supplyRoot : deliverRoot;
  if (root === null || (!underSupply && !folder.startsWith(prefix)) || folder === supplyRoot) return;
  const parts = folder.slice(root === '' ? 0 : root.length + 1).split('/');
  if (parts.length === 1) localeOf(underSupply ? 'playstore' : 'appstore', root, parts[0]!);
}

/** One file of the tree: a listing text, a changelog, a deliver default, or something skipped. */
function readFile(reading: Reading, input: FileTree, file: string): void {
  const {
    supplyRoot,
    deliverRoot,
    prefix,
    edits,
    defaults,
    sources,
    skip,
    changelogs,
    details,
    deliverLayout,
    supplyLayout,
  } = reading;
  const underSupply = file.startsWith(`${supplyRoot}/`);
  if (!underSupply && (deliverRoot === null || !file.startsWith(prefix))) return;
  const store: Store = underSupply ? 'playstore' : 'appstore';
  const root = underSupply ? supplyRoot : deliverRoot!;
  const parts = file.slice(root === '' ? 0 : root.length + 1).split('/');
  // deliver's app-wide files and review_information/ (design.md §19).
  const detailField = store === 'appstore' && parts.length <= 2 ? detailOfFile(parts.join('/')) : undefined;
  if (detailField !== undefined) {
    const content = input.texts.get(file);
    if (content === undefined) throw invalidField(file, 'could not be read as text');
    const value = content.replace(/^\uFEFF/, '').trim();
    if (value === '') skip(file, 'empty: nothing to import (an empty file never clears a detail)');
    else details.push({ field: detailField, path: file, value });
    return;
  }
  if (store === 'appstore' && parts.length === 2 && parts[0] === REVIEW_FOLDER) {
    skip(file, 'not a file deliver reads in review_information/');
    return;
  }
  if (parts.length === 1) {
    skip(
      file,
      !file.endsWith('.txt')
        ? 'not a text file'
        : store === 'appstore'
          ? 'an app-wide value appmeta does not manage (it reads copyright.txt, the categories and review_information/)'
          : `not in a language folder; ${supplyLayout}`,
    );
    return;
  }
  const [folder, name] = parts as [string, string];
  const isDefault = store === 'appstore' && folder.toLowerCase() === 'default';
  const locale = isDefault ? null : storeLocale(store, folder);
  if (!isDefault && locale === null) return; // the folder is reported
  const changelog = store === 'playstore' && parts.length === 3 && name === 'changelogs' ? parts[2]! : null;
  const code = changelog === null ? null : /^(\d+|default)\.txt$/.exec(changelog)?.[1];
  if (code !== undefined && code !== null) {
    const content = input.texts.get(file);
    if (content === undefined) throw invalidField(file, 'could not be read as text');
    // As supply reads it: the file's text, less a byte order mark and one final line break.
    const text = content.replace(/^\uFEFF/, '').replace(/\r?\n$/, '');
    if (text.trim() === '') skip(file, 'empty: nothing to import (an empty file never clears notes)');
    else
      changelogs.push({ locale: locale!, versionCode: code === 'default' ? null : code, path: file, text });
    return;
  }
  if (parts.length > 2) {
    const special = store === 'playstore' ? SUPPLY_SPECIAL.get(name) : undefined;
    const layout = store === 'appstore' ? deliverLayout : supplyLayout;
    skip(`${join(root, `${folder}/${name}`)}/`, special ?? `not part of the layout: ${layout}`);
    return;
  }
  const field = fieldOfFile(store === 'appstore' ? DELIVER_FILES : SUPPLY_FILES, name);
  if (field === undefined) {
    skip(
      file,
      name.endsWith('.txt') ? `not ${withArticle(store)} listing text appmeta manages` : 'not a text file',
    );
    return;
  }
  const content = input.texts.get(file);
  if (content === undefined) throw invalidField(file, 'could not be read as text');
  const value = valueOf(store, field, content);
  if (value === '') {
    skip(file, 'empty: nothing to import (an empty file never clears a field)');
    return;
  }
  if (isDefault) {
    defaults[field] = value;
    sources.set(sourceKey(store, 'default', field), file);
    return;
  }
  const byLocale = edits[store];
  (byLocale.get(locale!) ?? byLocale.set(locale!, {}).get(locale!)!)[field] = value;
  sources.set(sourceKey(store, locale!, field), file);
}

/** deliver's default/ fills the locale folders that lack a value; empty locale folders are skipped. */
function completeLocales(reading: Reading): void {
  const { tree, edits, localeFolders, defaults, sources, skip } = reading;
  // deliver's default/: every locale folder of the tree takes the values it lacks.
  if (Object.keys(defaults).length > 0 && localeFolders.appstore.size === 0) {
    skip(`${join(tree, 'default')}/`, 'default/ fills the locale folders of the tree, and it has none');
  }
  for (const locale of localeFolders.appstore.keys()) {
    for (const [field, value] of Object.entries(defaults)) {
      const own = edits.appstore.get(locale) ?? edits.appstore.set(locale, {}).get(locale)!;
      if (own[field] === undefined) {
        own[field] = value;
        sources.set(
          sourceKey('appstore', locale, field),
          sources.get(sourceKey('appstore', 'default', field))!,
        );
      }
    }
  }
  for (const store of ['appstore', 'playstore'] as const) {
    for (const [locale, folder] of localeFolders[store]) {
      if (Object.keys(edits[store].get(locale) ?? {}).length === 0) {
        edits[store].delete(locale);
        skip(folder, 'an empty locale folder: nothing to import');
      }
    }
  }
}

/**
 * Reads the fastlane tree of a file tree: which folder is the metadata tree, the listing edits it
 * holds, and what was not read. deliver's `default/` fills the locale folders that lack a file.
 */
export function parseFastlaneTree(input: FileTree, path?: string): ParsedTree {
  const reading = readingOf(input, path);
  for (const folder of allFolders(input)) readFolder(reading, folder);
  for (const file of [...input.files].sort()) readFile(reading, input, file);
  completeLocales(reading);
  const { tree, edits, localeFolders, sources, skipped, changelogs, details } = reading;
  const batch: ListingEdits[] = (['appstore', 'playstore'] as const).flatMap((store) =>
    [...edits[store]].map(([locale, fields]) => ({ store, locale, edits: fields })),
  );
  for (const entry of batch)
    sources.set(sourceKey(entry.store, entry.locale), localeFolders[entry.store].get(entry.locale)!);
  return {
    tree,
    batch,
    sources,
    skipped: [...skipped]
      .map(([at, reason]) => ({ path: at, reason }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    changelogs,
    details,
  };
}

/** Where the fastlane tree of an export puts a file of supply's language folders. */
export const supplyPath = (locale: string, name: string) => `${FASTLANE_TREE}/android/${locale}/${name}`;

/** Names the file behind an edit in validation errors, relative to the root the user gave. */
export function describeSource(tree: ParsedTree) {
  return (entry: ListingEdits, field?: string): string =>
    tree.sources.get(sourceKey(entry.store, entry.locale, field)) ??
    tree.sources.get(sourceKey(entry.store, entry.locale)) ??
    `${entry.store}/${entry.locale}`;
}
