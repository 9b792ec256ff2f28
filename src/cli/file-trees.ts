/** The directories an import reads: fastlane trees of texts and of media. */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { invalidField } from '../errors.js';
import { IMPORT_LIMITS, type FileTree } from '../modules/listings/index.js';

/** Folders that never hold a project's own fastlane tree, and may hold a great many files. */
const NOT_WALKED = new Set(['node_modules', 'Pods', 'Carthage', 'DerivedData']);

/**
 * A directory as an import reads it: every file and folder (empty ones too), by path relative to
 * it, and the contents of the text files that can be listing texts (those under a `metadata`
 * folder or the named one). Hidden entries, links and dependency folders are left out.
 */
export async function readTree(root: string, named?: string): Promise<FileTree> {
  const texts = new Map<string, string>();
  const files: string[] = [];
  const folders: string[] = [];
  const within = named === undefined ? null : `${named.replace(/^(\.\/)+|\/+$/g, '')}/`;
  const mayBeListing = (relative: string) =>
    relative.endsWith('.txt') &&
    (relative.startsWith('metadata/') ||
      relative.includes('/metadata/') ||
      (within !== null && relative.startsWith(within)));

  async function walk(folder: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(root, folder), { withFileTypes: true });
    } catch (error) {
      const field = folder === '' ? '--dir' : folder;
      throw invalidField(field, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || NOT_WALKED.has(entry.name)) continue;
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        folders.push(relative);
        await walk(relative);
      } else if (entry.isFile()) {
        files.push(relative);
        if (!mayBeListing(relative)) continue;
        const full = path.join(root, relative);
        if ((await fs.stat(full)).size > IMPORT_LIMITS.maxEntryBytes) {
          throw invalidField(relative, `is larger than ${IMPORT_LIMITS.maxEntryBytes} bytes`);
        }
        texts.set(relative, await fs.readFile(full, 'utf8'));
      }
    }
  }
  await walk('');
  return { texts, files, folders };
}

/** Walks a directory for a media import, handing each wanted file to `onFile` as a stream. */
export async function readMediaTree(
  root: string,
  want: (path: string) => boolean,
  onFile: (path: string, content: Readable) => Promise<void>,
): Promise<{ names: string[] }> {
  const names: string[] = [];
  async function walk(folder: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(root, folder), { withFileTypes: true });
    } catch (error) {
      throw invalidField(
        folder === '' ? '--dir' : folder,
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.') || NOT_WALKED.has(entry.name)) continue;
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) await walk(relative);
      else if (entry.isFile()) {
        names.push(relative);
        if (want(relative)) await onFile(relative, createReadStream(path.join(root, relative)));
      }
    }
  }
  await walk('');
  return { names };
}
