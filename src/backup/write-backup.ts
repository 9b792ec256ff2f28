/**
 * `appmeta backup --out <file>` (design.md §21): one consistent snapshot of the database — SQLite's
 * online backup, or PostgreSQL's rows read in one REPEATABLE READ transaction, the job queue's
 * pending jobs included — and the media files it refers to, into a tar.gz, while the service
 * runs. Files are content-addressed and never rewritten, so those the snapshot names are the
 * ones it needs, whatever is uploaded meanwhile. The archive is written beside its name and
 * renamed when complete: a failed backup leaves no archive that looks whole.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type * as tarStream from 'tar-stream';
import { BlobNotFoundError, type BlobStore } from '../blobs/index.js';
import type { Db } from '../db/database.js';
import { appliedMigrations } from '../db/migrate.js';
import { exportPostgres, readSqliteTable } from '../db/snapshot.js';
import type { JobQueue } from '../jobs/index.js';
import { fileKey, thumbnailKey } from '../modules/media/index.js';
import { lazyModule } from '../shared/lazy-module.js';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  BackupError,
  blobEntry,
  MANIFEST_ENTRY,
  SQLITE_ENTRY,
  tableEntry,
  type BackedUpBlob,
  type Manifest,
} from './manifest.js';

const tar = lazyModule<typeof tarStream>('tar-stream');

export interface BackupDeps {
  db: Db;
  queue: JobQueue;
  blobs: BlobStore;
  /** Progress, one line at a time (the CLI writes it to stderr). */
  progress?: (line: string) => void;
}

export interface BackupSummary {
  file: string;
  bytes: number;
  dialect: Db['dialect'];
  migrations: number;
  rows: number | null;
  blobs: number;
}

interface BlobRow {
  state: unknown;
  sha256: unknown;
  content_type: unknown;
  bytes: unknown;
  has_thumbnail: unknown;
}

/** The files a blobs row stands for: the file (its size known), and its thumbnail when it has one. */
const filesOf = (row: BlobRow): (BackedUpBlob & { bytes: number | null })[] => [
  { key: fileKey(String(row.sha256)), contentType: String(row.content_type), bytes: Number(row.bytes) },
  ...(Number(row.has_thumbnail) === 1
    ? [{ key: thumbnailKey(String(row.sha256)), contentType: 'image/webp', bytes: null }]
    : []),
];

export async function writeBackup(deps: BackupDeps, out: string): Promise<BackupSummary> {
  const { db, blobs } = deps;
  const progress = deps.progress ?? (() => undefined);
  const target = path.resolve(out);
  const staging = await fs.mkdtemp(path.join(path.dirname(target), '.appmeta-backup-'));
  const partial = `${target}.part`;
  try {
    const migrations = await appliedMigrations(db);
    const tables: Record<string, number> = {};
    const staged: { entry: string; file: string }[] = [];
    const blobRows: BlobRow[] = [];
    if (db.backupTo !== null) {
      const file = path.join(staging, SQLITE_ENTRY);
      await db.backupTo(file);
      staged.push({ entry: SQLITE_ENTRY, file });
      blobRows.push(...((await readSqliteTable(file, 'blobs')) as unknown as BlobRow[]));
      progress(`database: SQLite online backup, ${migrations.length} migrations`);
    } else {
      const files = new Map<string, string>();
      const exported = await exportPostgres(
        db.kysely,
        async (table, lines) => {
          let file = files.get(table);
          if (file === undefined) {
            file = path.join(staging, `${files.size}.jsonl`);
            files.set(table, file);
          }
          await fs.appendFile(file, `${lines.join('\n')}\n`);
          if (table === 'blobs') blobRows.push(...lines.map((line) => JSON.parse(line) as BlobRow));
        },
        deps.queue.storage === null ? [] : [deps.queue.storage],
      );
      for (const { table, rows } of exported) {
        tables[table] = rows;
        const file = files.get(table);
        if (file !== undefined) staged.push({ entry: tableEntry(table), file });
      }
      progress(
        `database: ${exported.length} tables, ${Object.values(tables).reduce((a, b) => a + b, 0)} rows in one snapshot`,
      );
    }
    // A row being deleted by media collection is unused, and its file may be gone already.
    const files = blobRows.filter((row) => row.state !== 'deleting').flatMap(filesOf);
    const manifest: Manifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt: new Date().toISOString(),
      dialect: db.dialect,
      migrations,
      tables,
      blobs: files.map(({ key, contentType }) => ({ key, contentType })),
    };

    const pack = tar().pack();
    const written = pipeline(pack, zlib.createGzip(), createWriteStream(partial, { mode: 0o600 }));
    const entry = async (name: string, size: number, source: NodeJS.ReadableStream | Buffer) => {
      if (Buffer.isBuffer(source)) {
        await new Promise<void>((resolve, reject) =>
          pack.entry({ name, size, mode: 0o600 }, source, (error) => (error ? reject(error) : resolve())),
        );
        return;
      }
      await pipeline(source, pack.entry({ name, size, mode: 0o600 }));
    };
    await entry(MANIFEST_ENTRY, 0, Buffer.from(JSON.stringify(manifest, null, 2)));
    for (const { entry: name, file } of staged) {
      await entry(name, (await fs.stat(file)).size, createReadStream(file));
    }
    for (const [index, blob] of files.entries()) {
      const source = await blobs.read(blob.key).catch((error: unknown) => {
        throw error instanceof BlobNotFoundError
          ? new BackupError(`media file ${blob.key} was removed while the backup ran: run it again`)
          : error;
      });
      if (blob.bytes !== null) await entry(blobEntry(blob.key), blob.bytes, source);
      else {
        // A thumbnail's size is known only once read (they are small).
        const chunks: Buffer[] = [];
        for await (const chunk of source) chunks.push(chunk as Buffer);
        const bytes = Buffer.concat(chunks);
        await entry(blobEntry(blob.key), bytes.length, bytes);
      }
      if ((index + 1) % 100 === 0) progress(`media files: ${index + 1} of ${files.length}`);
    }
    pack.finalize();
    await written;
    await fs.rename(partial, target);
    const bytes = (await fs.stat(target)).size;
    progress(`media files: ${files.length}`);
    return {
      file: target,
      bytes,
      dialect: db.dialect,
      migrations: migrations.length,
      rows: db.dialect === 'postgres' ? Object.values(tables).reduce((a, b) => a + b, 0) : null,
      blobs: files.length,
    };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
    await fs.rm(partial, { force: true });
  }
}
