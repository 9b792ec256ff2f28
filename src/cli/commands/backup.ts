/** Backups of the instance (design.md §21): `appmeta backup --out <file>`, `appmeta restore <file>`. */
import type { Command } from 'commander';
import { restoreBackup, writeBackup } from '../../backup/index.js';
import { createBlobStore } from '../../blobs/index.js';
import { loadConfig } from '../../config.js';
import { createJobQueue } from '../../jobs/index.js';
import { emit, plural, withDatabase, type Output } from '../command-kit.js';

/** Progress goes to stderr, so that stdout holds only the result (one JSON object with --json). */
const progress = (line: string) => void process.stderr.write(`${line}\n`);

export function backupCommands(program: Command, output: () => Output): void {
  program
    .command('backup')
    .description(
      'write a consistent snapshot of the database and the media files to a tar.gz, while the service runs',
    )
    .requiredOption('--out <file>', 'the archive to write (replaced when it exists)')
    .action(async (options: { out: string }) => {
      const config = loadConfig();
      const blobs = createBlobStore(config.blobStore);
      const summary = await withDatabase(
        config,
        async (db) => {
          const queue = createJobQueue(db, config.database);
          try {
            return await writeBackup({ db, queue, blobs, progress }, options.out);
          } finally {
            await queue.close();
            await blobs.close();
          }
        },
        { migrate: false },
      );
      emit(output(), summary, [
        `Backed up the ${summary.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} database` +
          `${summary.rows === null ? '' : ` (${plural(summary.rows, 'row')})`} and ${plural(summary.blobs, 'media file')} ` +
          `to ${options.out}.`,
        'Keep APPMETA_SECRET_KEY (or data/secret.key) too, apart from the archive: stored credentials stay sealed under it.',
      ]);
    });

  program
    .command('restore')
    .description(
      'restore a backup into an empty database (DATABASE_URL) and an empty blob store (BLOB_STORE_URL)',
    )
    .argument('<file>', 'an archive written by appmeta backup')
    .action(async (file: string) => {
      const config = loadConfig();
      const blobs = createBlobStore(config.blobStore);
      try {
        const summary = await restoreBackup(
          {
            database: config.database,
            blobs,
            queueOf: (db) => createJobQueue(db, config.database),
            progress,
          },
          file,
        );
        emit(output(), summary, [
          `Restored the backup of ${summary.createdAt}: the database` +
            `${summary.rows === null ? '' : ` (${plural(summary.rows, 'row')})`} and ${plural(summary.blobs, 'media file')}` +
            `${summary.migrated > 0 ? `, then ${plural(summary.migrated, 'migration')} of this version` : ''}.`,
        ]);
      } finally {
        await blobs.close();
      }
    });
}
