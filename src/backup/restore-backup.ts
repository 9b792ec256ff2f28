/**
 * `appmeta restore <file>` (design.md §21): a backup into an empty database and an empty blob
 * store, refused before anything is written when either holds anything, when the archive is not
 * a backup, was made on the other kind of database, or by a newer appmeta. The database is
 * restored to the backup's migration, then migrated to this build's. Keys, sessions and store
 * credentials come back as they were stored: still sealed, opened by the same APPMETA_SECRET_KEY
 * (a backup never holds that key).
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import type * as tarStream from 'tar-stream';
import type { BlobStore } from '../blobs/index.js';
import type { DatabaseConfig } from '../config.js';
import { createDb, type Db } from '../db/database.js';
import { knownMigrations, migrateTo, migrateToLatest } from '../db/migrate.js';
import { isEmptyPostgres, isEmptySqlite, loadOrder, loadRows } from '../db/snapshot.js';
import type { JobQueue } from '../jobs/index.js';
import { lazyModule } from '../shared/lazy-module.js';
import { BackupError, MANIFEST_ENTRY, parseManifest, SQLITE_ENTRY, type Manifest } from './manifest.js';

const tar = lazyModule<typeof tarStream>('tar-stream');

export interface RestoreDeps {
  database: DatabaseConfig;
  blobs: BlobStore;
  /** The job queue of the restored database (pg-boss keeps its jobs in a schema of its own). */
  queueOf: (db: Db) => JobQueue;
  progress?: (line: string) => void;
}

export interface RestoreSummary {
  dialect: Manifest['dialect'];
  createdAt: string;
  rows: number | null;
  blobs: number;
  migrated: number;
}

const LOAD_LINES = 500;

export async function restoreBackup(deps: RestoreDeps, file: string): Promise<RestoreSummary> {
  const progress = deps.progress ?? (() => undefined);
  const { database, blobs } = deps;
  if (!existsSync(file)) throw new BackupError(`no backup at ${path.resolve(file)}`);
  const sqlitePath = database.kind === 'sqlite' ? path.resolve(database.path) : null;
  if (sqlitePath !== null) await fs.mkdir(path.dirname(sqlitePath), { recursive: true });
  const staging = await fs.mkdtemp(
    path.join(sqlitePath === null ? os.tmpdir() : path.dirname(sqlitePath), '.appmeta-restore-'),
  );
  let manifest: Manifest | null = null;
  let db: Db | null = null;
  const stagedTables = new Map<string, string>();
  let blobsByKey: Map<string, Manifest['blobs'][number]> | null = null;
  let restoredBlobs = 0;
  let migrated = 0;

  const loadDatabase = async () => {
    if (db !== null) return;
    if (sqlitePath !== null) {
      const staged = path.join(staging, SQLITE_ENTRY);
      if (!existsSync(staged)) throw new BackupError('the backup holds no database file');
      await fs.rename(staged, sqlitePath);
      db = createDb(database);
    } else {
      db = createDb(database);
      await migrateTo(db, manifest!.migrations.at(-1)!);
      const order = await loadOrder(db.kysely);
      const open = db;
      await open.kysely.transaction().execute(async (trx) => {
        for (const table of order) {
          const staged = stagedTables.get(table);
          if (staged !== undefined) await eachBatch(staged, (lines) => loadRows(trx, table, lines));
        }
      });
    }
    migrated = (await migrateToLatest(db)).results?.length ?? 0;
    // The job queue's own table (pg-boss), once the queue has made its schema.
    const queue = deps.queueOf(db);
    try {
      const storage = queue.storage?.table;
      const staged = storage === undefined ? undefined : stagedTables.get(storage);
      if (staged !== undefined) {
        await queue.prepare();
        await eachBatch(staged, (lines) => loadRows(db!.kysely, storage!, lines));
      }
    } finally {
      await queue.close();
    }
    progress(`database restored (${manifest!.dialect}, ${manifest!.migrations.length} migrations)`);
  };

  const extract = tar().extract();
  const gunzip = zlib.createGunzip();
  // Marked as the streams fail (their listeners run before the loop below sees the error). Made
  // just before the loop reads it: streamx's iterator, made after the stream failed, never settles.
  let unreadable: Error | null = null;
  for (const stream of [gunzip, extract]) stream.on('error', (error: Error) => void (unreadable ??= error));
  const reading = pipeline(createReadStream(file), gunzip, extract);
  reading.catch(() => undefined);

  try {
    for await (const entry of extract) {
      const name = entry.header.name;
      if (manifest === null) {
        if (name !== MANIFEST_ENTRY)
          throw new BackupError('not an appmeta backup: manifest.json does not come first');
        manifest = parseManifest(await text(entry), knownMigrations());
        await refuseUnlessEmpty(manifest, deps, sqlitePath);
        continue;
      }
      if (name === SQLITE_ENTRY && manifest.dialect === 'sqlite') {
        await pipeline(entry, createWriteStream(path.join(staging, SQLITE_ENTRY), { mode: 0o600 }));
      } else if (name.startsWith('tables/') && name.endsWith('.jsonl') && manifest.dialect === 'postgres') {
        const staged = path.join(staging, `${stagedTables.size}.jsonl`);
        await pipeline(entry, createWriteStream(staged, { mode: 0o600 }));
        stagedTables.set(name.slice('tables/'.length, -'.jsonl'.length), staged);
      } else if (name.startsWith('blobs/')) {
        await loadDatabase();
        const key = name.slice('blobs/'.length);
        blobsByKey ??= new Map(manifest.blobs.map((listed) => [listed.key, listed]));
        const blob = blobsByKey.get(key);
        if (blob === undefined)
          throw new BackupError(`the archive holds ${name}, which its manifest does not list`);
        await fs.mkdir(blobs.spoolDirectory, { recursive: true });
        const spooled = path.join(blobs.spoolDirectory, `restore-${restoredBlobs}-${process.pid}`);
        await pipeline(entry, createWriteStream(spooled));
        await blobs.put(key, spooled, blob.contentType);
        restoredBlobs += 1;
        if (restoredBlobs % 100 === 0) progress(`media files: ${restoredBlobs} of ${manifest.blobs.length}`);
      } else {
        entry.resume();
      }
    }
    await reading;
    if (manifest === null) throw new BackupError('the archive is empty: not an appmeta backup');
    await loadDatabase();
    if (restoredBlobs !== manifest.blobs.length)
      throw new BackupError(
        `the archive holds ${restoredBlobs} of the ${manifest.blobs.length} media files it lists`,
      );
    progress(`media files: ${restoredBlobs}`);
    return {
      dialect: manifest.dialect,
      createdAt: manifest.createdAt,
      rows:
        manifest.dialect === 'postgres' ? Object.values(manifest.tables).reduce((a, b) => a + b, 0) : null,
      blobs: restoredBlobs,
      migrated,
    };
  } catch (error) {
    const cause = unreadable as Error | null;
    if (cause !== null && !(error instanceof BackupError))
      throw new BackupError(`${path.resolve(file)} is not a readable backup archive: ${cause.message}`);
    throw error;
  } finally {
    extract.destroy();
    await (db as Db | null)?.destroy();
    await fs.rm(staging, { recursive: true, force: true });
  }
}

async function refuseUnlessEmpty(manifest: Manifest, deps: RestoreDeps, sqlitePath: string | null) {
  if (manifest.dialect !== deps.database.kind) {
    throw new BackupError(
      `the backup was made on ${manifest.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}; DATABASE_URL names a ${
        deps.database.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'
      } database`,
    );
  }
  if (sqlitePath !== null) {
    if (existsSync(sqlitePath) && !(await isEmptySqlite(sqlitePath)))
      throw new BackupError(
        `DATABASE_URL: ${sqlitePath} is not empty; restore goes only into a new database`,
      );
    if (existsSync(sqlitePath)) await fs.rm(sqlitePath);
    for (const suffix of ['-wal', '-shm']) await fs.rm(`${sqlitePath}${suffix}`, { force: true });
    await fs.mkdir(path.dirname(sqlitePath), { recursive: true });
  } else {
    const db = createDb(deps.database);
    try {
      await db.check();
      if (!(await isEmptyPostgres(db.kysely)))
        throw new BackupError(
          'DATABASE_URL: the database already has tables; restore goes only into an empty database',
        );
    } finally {
      await db.destroy();
    }
  }
  if (!(await deps.blobs.isEmpty()))
    throw new BackupError(
      `the blob store ${deps.blobs.description} is not empty; restore goes only into an empty store`,
    );
}

async function text(stream: AsyncIterable<unknown>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The lines of a staged file, LOAD_LINES at a time. */
async function eachBatch(file: string, load: (lines: string[]) => Promise<void>): Promise<void> {
  let batch: string[] = [];
  for await (const line of readline.createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    if (line === '') continue;
    batch.push(line);
    if (batch.length === LOAD_LINES) {
      await load(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await load(batch);
}
