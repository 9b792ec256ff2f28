/** Import and export of a project's listings in the fastlane layouts, as archives or file maps. */
import type { Readable } from 'node:stream';
import { AppError, invalid, invalidField } from '../../errors.js';
import {
  ArchiveError,
  packArchive,
  readArchive,
  type ArchiveContents,
  type ArchiveFormat,
  type ArchiveLimits,
} from '../../shared/archive.js';
import type { Executor } from '../../db/database.js';
import { authorize, type RequestContext } from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import type { ProjectsService } from '../projects/index.js';
import {
  describeSource,
  parseFastlaneTree,
  supplyPath,
  toFastlaneFiles,
  type Changelog,
  type DetailFile,
  type FileTree,
} from './fastlane.js';
import { FASTLANE_TREE } from './fastlane-layout.js';
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

/** The files of a tree that are read: texts. Everything else is only listed (and reported as skipped). */
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

/**
 * Google Play release notes in supply's `changelogs/` folders: the releases module's, given here
 * so that listings know nothing of tracks.
 */
export interface ChangelogPort {
  /** The project's notes as supply writes them: language → file name (`<versionCode>.txt`) → text. */
  files(ctx: RequestContext, projectId: string): Promise<{ locale: string; name: string; text: string }[]>;
  /**
   * Checks the changelogs of a tree (languages the same import creates count as listed) and
   * answers how to write them; throws a 400 naming each file that cannot be taken.
   */
  prepare(
    ctx: RequestContext,
    projectId: string,
    changelogs: Changelog[],
    newLocales: string[],
  ): Promise<{ skipped: { path: string; reason: string }[]; write: () => Promise<number> }>;
}

/** App Store details in deliver's files (design.md §19): the details module's, given here likewise. */
export interface DetailsPort {
  /** The project's App Store details as deliver keeps them: path under the metadata tree → text. */
  files(ctx: RequestContext, projectId: string): Promise<Map<string, string>>;
  /** Checks a tree's details (a 400 naming each file) and answers how to write them. */
  prepare(
    ctx: RequestContext,
    projectId: string,
    details: DetailFile[],
  ): Promise<{ skipped: { path: string; reason: string }[]; write: () => Promise<number> }>;
}

export interface FastlaneTransferDeps {
  db: Executor;
  audit: Pick<AuditLog, 'record'>;
  projects: Pick<ProjectsService, 'require'>;
  writer: Pick<ListingWriter, 'applyAll'>;
  changelogs?: ChangelogPort;
  details?: DetailsPort;
}

/** Which folder to read as the metadata tree, when the user names one (see parseFastlaneTree). */
export interface ImportOptions {
  path?: string;
}

export function createFastlaneTransfer({
  db,
  audit,
  projects,
  writer,
  changelogs,
  details,
}: FastlaneTransferDeps) {
  /** The files of the project's listings (working copies) in the fastlane layouts. */
  async function exportFiles(ctx: RequestContext, projectId: string): Promise<Map<string, string>> {
    authorize(ctx, 'listings.export');
    await projects.require(ctx, projectId);
    const rows = await repo.listWithFields(db, ctx.organizationId, projectId);
    const files = toFastlaneFiles(rows.filter((row) => row.status === 'active').map(toListing));
    for (const note of (await changelogs?.files(ctx, projectId)) ?? []) {
      files.set(supplyPath(note.locale, `changelogs/${note.name}`), note.text);
    }
    for (const [path, text] of (await details?.files(ctx, projectId)) ?? [])
      files.set(`${FASTLANE_TREE}/${path}`, text);
    return files;
  }

  /**
   * All or nothing: every file is validated before anything is written. What the tree holds
   * besides listing texts is reported in `skipped`, each with the reason.
   */
  async function importTree(
    ctx: RequestContext,
    projectId: string,
    files: FileTree,
    options: ImportOptions = {},
  ) {
    authorize(ctx, 'listings.import');
    const project = await projects.require(ctx, projectId);
    const tree = parseFastlaneTree(files, options.path);
    const where = tree.tree === '' ? 'the root' : tree.tree;
    const notes = changelogs === undefined ? [] : tree.changelogs;
    const detailFiles = details === undefined ? [] : tree.details;
    if (tree.batch.length === 0 && notes.length === 0 && detailFiles.length === 0) {
      throw invalid(
        `${where} holds no listing texts to import` +
          (tree.skipped.length > 0 ? ` (${tree.skipped.length} files or folders skipped, see details)` : ''),
        tree.skipped.map((s) => ({ field: s.path, message: s.reason })),
      );
    }
    // Release notes are checked before any text is written, and written after the texts (their
    // languages may be created by this import).
    const prepared =
      notes.length === 0
        ? { skipped: [], write: async () => 0 }
        : await changelogs!.prepare(
            ctx,
            projectId,
            notes,
            tree.batch.filter((b) => b.store === 'playstore').map((b) => b.locale),
          );
    const preparedDetails =
      detailFiles.length === 0
        ? { skipped: [], write: async () => 0 }
        : await details!.prepare(ctx, projectId, detailFiles);
    const written =
      tree.batch.length === 0
        ? []
        : await writer.applyAll(ctx, project, tree.batch, 'import', describeSource(tree), (trx) =>
            audit.record(
              trx,
              ctx,
              'listings.import',
              { type: 'project', id: projectId },
              {
                tree: tree.tree,
                listings: tree.batch.map((entry) => `${entry.store}/${entry.locale}`),
              },
            ),
          );
    const releaseNotes = await prepared.write();
    const detailCount = await preparedDetails.write();
    return {
      tree: tree.tree,
      releaseNotes,
      details: detailCount,
      imported: written.map(({ listing }) => ({
        store: listing.store,
        locale: listing.locale,
        fields: Object.keys(
          tree.batch.find((b) => b.store === listing.store && b.locale === listing.locale)?.edits ?? {},
        ).length,
      })),
      skipped: [...tree.skipped, ...prepared.skipped, ...preparedDetails.skipped].sort((a, b) =>
        a.path < b.path ? -1 : 1,
      ),
      warnings: written.flatMap(({ listing, warnings }) =>
        warnings.map((w) => ({ ...w, store: listing.store, locale: listing.locale })),
      ),
    };
  }

  return {
    exportFiles,
    /** Imports files given as path → text (MCP, tests); their folders are the ones the paths imply. */
    importFiles: (
      ctx: RequestContext,
      projectId: string,
      texts: Map<string, string>,
      options?: ImportOptions,
    ) => importTree(ctx, projectId, { texts, files: [...texts.keys()], folders: [] }, options),
    /** Imports a directory's tree as the CLI read it. */
    importTree,
    async exportArchive(ctx: RequestContext, projectId: string, format: ArchiveFormat): Promise<Buffer> {
      return packArchive(await exportFiles(ctx, projectId), format);
    },

    /**
     * Imports an archive sent as a stream. The caller's role and the project are checked before
     * a byte of the body is read; the archive is read within IMPORT_LIMITS (413 or 400 naming
     * the limit or the entry).
     */
    async importArchive(
      ctx: RequestContext,
      projectId: string,
      archive: Readable | Buffer,
      options: ImportOptions = {},
    ) {
      authorize(ctx, 'listings.import');
      await projects.require(ctx, projectId);
      let contents: ArchiveContents;
      try {
        contents = await readArchive(archive, IMPORT_LIMITS, isText);
      } catch (error) {
        if (!(error instanceof ArchiveError)) throw error;
        throw error.kind === 'tooLarge'
          ? new AppError('INVALID_REQUEST', error.message, undefined, 413)
          : invalid(error.message);
      }
      const tree = { texts: decodeTexts(contents.files), files: contents.names, folders: contents.folders };
      return importTree(ctx, projectId, tree, options);
    },
  };
}

export type FastlaneTransfer = ReturnType<typeof createFastlaneTransfer>;
