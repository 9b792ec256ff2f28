/**
 * Which folder of a file tree is fastlane's metadata tree: `fastlane/metadata` at any depth, a
 * root `metadata`, or the folder the user names — one, or a 400 listing what there is.
 */
import { invalid, invalidField } from '../../errors.js';
import { FASTLANE_TREE } from './fastlane-layout.js';

/** What an import is given: paths relative to the root the user gave (archive or folder). */
export interface FileTree {
  /** The text files that were read. */
  texts: ReadonlyMap<string, string>;
  /** Every regular file. */
  files: readonly string[];
  /** Folders that the archive or directory lists, empty ones included. */
  folders: readonly string[];
}

const join = (folder: string, name: string) => (folder === '' ? name : `${folder}/${name}`);

/** Every folder of the tree: the ones listed, and the ones a file's path implies. */
export function allFolders(tree: FileTree): Set<string> {
  const folders = new Set<string>();
  for (const path of [...tree.folders, ...tree.files]) {
    const parts = path.split('/');
    const last = tree.folders.includes(path) ? parts.length : parts.length - 1;
    for (let i = 1; i <= last; i++) folders.add(parts.slice(0, i).join('/'));
  }
  return folders;
}

/** The folders fastlane would read as its metadata tree: `fastlane/metadata` at any depth, or a root `metadata`. */
export function metadataTrees(tree: FileTree): string[] {
  return [...allFolders(tree)]
    .filter(
      (folder) => folder === FASTLANE_TREE || folder.endsWith(`/${FASTLANE_TREE}`) || folder === 'metadata',
    )
    .sort();
}

const normalizePath = (raw: string) =>
  raw
    .trim()
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '')
    .replace(/^\.$/, '');

/**
 * The metadata tree to read: the one named by `path` (a folder holding `fastlane/metadata` or
 * `metadata`, or the metadata folder itself, `.` for the root), else the only candidate. None, or
 * several without a `path`, is 400 listing what there is.
 */
export function chooseTree(tree: FileTree, path: string | undefined): string {
  const folders = allFolders(tree);
  const candidates = metadataTrees(tree);
  if (path !== undefined) {
    const named = normalizePath(path);
    if (named !== '' && !folders.has(named)) {
      throw invalidField(
        'path',
        `there is no folder ${named}` +
          (candidates.length > 0 ? ` (fastlane trees found: ${candidates.join(', ')})` : ''),
      );
    }
    return [join(named, FASTLANE_TREE), join(named, 'metadata')].find((f) => folders.has(f)) ?? named;
  }
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) {
    throw invalid(
      `No fastlane metadata tree found: expected ${FASTLANE_TREE}/<locale>/*.txt (App Store) or ` +
        `${FASTLANE_TREE}/android/<language>/*.txt (Google Play). If the tree is elsewhere, name its folder ` +
        '(path; "." for the root).',
    );
  }
  throw invalid(
    `Found ${candidates.length} fastlane metadata trees: ${candidates.join(', ')}. ` +
      'Name the one to import (path).',
    candidates.map((candidate) => ({ field: 'path', message: `could be ${candidate}` })),
  );
}
