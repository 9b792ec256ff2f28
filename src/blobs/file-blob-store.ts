/** The blob store in a local directory: one file per key, written by rename so never half there. */
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { BlobNotFoundError, type BlobRange, type BlobStore } from './blob-store.js';

export function createFileBlobStore(root: string): BlobStore {
  const directory = path.resolve(root);
  const spoolDirectory = path.join(directory, '.spool');
  const pathOf = (key: string) => {
    const resolved = path.resolve(directory, key);
    if (!resolved.startsWith(directory + path.sep) || key.startsWith('.'))
      throw new Error(`Bad blob key ${key}`);
    return resolved;
  };

  return {
    description: `file:${directory}`,
    spoolDirectory,

    async put(key, localPath) {
      const target = pathOf(key);
      await fs.mkdir(path.dirname(target), { recursive: true });
      try {
        await fs.rename(localPath, target);
      } catch (error) {
        // Another filesystem (a spool elsewhere): copy beside the target, then rename.
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        const beside = `${target}.${process.pid}.${Date.now()}.part`;
        await fs.copyFile(localPath, beside);
        await fs.rename(beside, target);
        await fs.rm(localPath, { force: true });
      }
    },

    async exists(key) {
      return fs.stat(pathOf(key)).then(
        () => true,
        () => false,
      );
    },

    async read(key, range?: BlobRange): Promise<Readable> {
      const file = pathOf(key);
      const handle = await fs.open(file).catch((error: NodeJS.ErrnoException) => {
        throw error.code === 'ENOENT' ? new BlobNotFoundError(key) : error;
      });
      return createReadStream(file, { fd: handle, ...(range && { start: range.start, end: range.end }) });
    },

    async delete(key) {
      await fs.rm(pathOf(key), { force: true });
    },

    async isEmpty() {
      // Folders left empty by deletions do not count, nor does the spool of uploads on their way.
      const entries = await fs
        .readdir(directory, { recursive: true, withFileTypes: true })
        .catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return [];
          throw error;
        });
      return !entries.some(
        (entry) =>
          !entry.isDirectory() &&
          path.relative(directory, path.join(entry.parentPath, entry.name)).split(path.sep)[0] !== '.spool',
      );
    },

    async close() {},
  };
}
