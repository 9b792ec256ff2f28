/** Import and export of a project's listings in the fastlane layouts, as archives or file maps. */
import type { Readable } from 'node:stream';
import { AppError, invalid, invalidField } from '../../errors.js';
import {
  ArchiveError,
  packArchive,
  readArchive,
  type ArchiveFormat,
  type ArchiveLimits,
} from '../../shared/archive.js';
import type { Executor } from '../../db/database.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { ProjectsService } from '../projects/index.js';
import { describeSource, fromFastlaneFiles, toFastlaneFiles } from './fastlane.js';
import { toListing, type ListingWriter } from './listing-writer.js';
import { listingsRepository as repo } from './listings.repository.js';

const MIB = 1024 * 1024;
/**
 * A fastlane metadata tree is a few hundred small text files; these limits leave room for whole
 * repositories' fastlane folders (screenshots are listed, not read) and nothing like a bomb.
 */
export const IMPORT_LIMITS: ArchiveLimits = {
  maxCompressedBytes: 10 * MIB,
  maxTotalBytes: 20 * MIB,
  maxEntryBytes: 5 * MIB,
  maxEntries: 5_000,
  maxRatio: 100,
  maxDepth: 16,
};

/** The files of a tree that are read: listing texts. Everything else is only listed as skipped. */
const isText = (path: string) => path.endsWith('.txt');

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes the text files of an archive; a file that is not UTF-8 is 400 naming it. */
function decodeTexts(files: Map<string, Buffer>): Map<string, string> {
  const texts = new Map<string, string>();
  for (const [path, bytes] of files) {
    try {
      texts.set(path, utf8.decode(bytes));
    } catch {
      throw invalidField(path, 'is not UTF-8 text');
    }
  }
  return texts;
}

export interface FastlaneTransferDeps {
  db: Executor;
  projects: Pick<ProjectsService, 'require'>;
  writer: Pick<ListingWriter, 'applyAll'>;
}

export function createFastlaneTransfer({ db, projects, writer }: FastlaneTransferDeps) {
  /** The files of the project's listings (working copies) in the fastlane layouts. */
  async function exportFiles(ctx: RequestContext, projectId: string): Promise<Map<string, string>> {
    authorize(ctx, 'listings.export');
    await projects.require(ctx, projectId);
    const rows = await repo.listWithFields(db, ctx.organizationId, projectId);
    return toFastlaneFiles(rows.filter((row) => row.status === 'active').map(toListing));
  }

  /**
   * All or nothing: every file is validated before anything is written. `unread` names files of
   * the tree that were not read (not text), reported as skipped.
   */
  async function importFiles(
    ctx: RequestContext,
    projectId: string,
    files: Map<string, string>,
    unread: string[] = [],
  ) {
    authorize(ctx, 'listings.import');
    const project = await projects.require(ctx, projectId);
    const tree = fromFastlaneFiles(files);
    tree.skipped = [...tree.skipped, ...unread].sort();
    if (tree.batch.length === 0) {
      throw invalid(
        'No listing texts found: expected fastlane/metadata/<locale>/*.txt or fastlane/metadata/android/<language>/*.txt',
      );
    }
    const written = await writer.applyAll(ctx, project, tree.batch, 'import', describeSource(tree));
    return {
      imported: written.map(({ listing }) => ({
        store: listing.store,
        locale: listing.locale,
        fields: Object.keys(
          tree.batch.find((b) => b.store === listing.store && b.locale === listing.locale)?.edits ?? {},
        ).length,
      })),
      skipped: tree.skipped,
      warnings: written.flatMap(({ listing, warnings }) =>
        warnings.map((w) => ({ ...w, store: listing.store, locale: listing.locale })),
      ),
    };
  }

  return {
    exportFiles,
    importFiles,
    async exportArchive(ctx: RequestContext, projectId: string, format: ArchiveFormat): Promise<Buffer> {
      return packArchive(await exportFiles(ctx, projectId), format);
    },

    /**
     * Imports an archive sent as a stream. The caller's role and the project are checked before
     * a byte of the body is read; the archive is read within IMPORT_LIMITS (413 or 400 naming
     * the limit or the entry).
     */
    async importArchive(ctx: RequestContext, projectId: string, archive: Readable | Buffer) {
      authorize(ctx, 'listings.import');
      await projects.require(ctx, projectId);
      let files: Map<string, Buffer>;
      let names: string[];
      try {
        ({ files, names } = await readArchive(archive, IMPORT_LIMITS, isText));
      } catch (error) {
        if (!(error instanceof ArchiveError)) throw error;
        throw error.kind === 'tooLarge'
          ? new AppError('INVALID_REQUEST', error.message, undefined, 413)
          : invalid(error.message);
      }
      const unread = names.filter((name) => !files.has(name));
      return importFiles(ctx, projectId, decodeTexts(files), unread);
    },
  };
}

export type FastlaneTransfer = ReturnType<typeof createFastlaneTransfer>;
