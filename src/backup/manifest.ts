/**
 * The first entry of a backup archive: what it holds, checked before anything of the archive is
 * used, so that a restore refuses an archive it cannot restore before it writes anything.
 */
import type { Dialect } from '../db/database.js';

export const BACKUP_FORMAT = 'appmeta-backup';
export const BACKUP_VERSION = 1;
export const MANIFEST_ENTRY = 'manifest.json';
/** SQLite: the database file made by the online backup. */
export const SQLITE_ENTRY = 'database.sqlite';
/** PostgreSQL: one JSON-lines file per table (and the job queue's own table, by its qualified name). */
export const tableEntry = (table: string) => `tables/${table}.jsonl`;
export const blobEntry = (key: string) => `blobs/${key}`;

export interface BackedUpBlob {
  key: string;
  contentType: string;
}

export interface Manifest {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  createdAt: string;
  dialect: Dialect;
  /** The migrations applied when the snapshot was taken, in order. */
  migrations: string[];
  /** PostgreSQL: rows per exported table; SQLite: the file holds them. */
  tables: Record<string, number>;
  blobs: BackedUpBlob[];
}

export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** The manifest of an archive, or BackupError saying why it is not one this build restores. */
export function parseManifest(text: string, known: readonly string[]): Manifest {
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(text) as Partial<Manifest>;
  } catch {
    throw new BackupError('the archive’s manifest.json is not JSON: not an appmeta backup');
  }
  if (manifest.format !== BACKUP_FORMAT)
    throw new BackupError('not an appmeta backup (manifest.json has no format)');
  if (manifest.version !== BACKUP_VERSION)
    throw new BackupError(
      `backup format version ${String(manifest.version)} is not one this appmeta reads (${BACKUP_VERSION})`,
    );
  if (
    (manifest.dialect !== 'sqlite' && manifest.dialect !== 'postgres') ||
    !Array.isArray(manifest.migrations) ||
    !Array.isArray(manifest.blobs) ||
    typeof manifest.tables !== 'object'
  )
    throw new BackupError('the backup’s manifest.json is incomplete');
  const unknown = manifest.migrations.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new BackupError(
      `the backup was made by a newer appmeta (migrations ${unknown.join(', ')} are unknown here): restore it with that version`,
    );
  return manifest as Manifest;
}
