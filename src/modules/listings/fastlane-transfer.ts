/** Import and export of a project's listings in the fastlane layouts, as archives or file maps. */
import { invalid } from '../../errors.js';
import { packArchive, unpackArchive, type ArchiveFormat } from '../../shared/archive.js';
import type { RequestContext } from '../access/context.js';
import { describeSource, fromFastlaneFiles, toFastlaneFiles } from './fastlane.js';
import type { ListingsService } from './listings.service.js';

const ARCHIVE_LIMITS = { maxFiles: 5_000, maxBytes: 20 * 1024 * 1024 };

export function createFastlaneTransfer(listings: ListingsService) {
  async function exportFiles(ctx: RequestContext, projectId: string): Promise<Map<string, string>> {
    return toFastlaneFiles(await listings.list(ctx, projectId));
  }

  /** All or nothing: every file is validated before anything is written. */
  async function importFiles(ctx: RequestContext, projectId: string, files: Map<string, string>) {
    const tree = fromFastlaneFiles(files);
    if (tree.batch.length === 0) {
      throw invalid(
        'No listing texts found: expected fastlane/metadata/<locale>/*.txt or fastlane/metadata/android/<language>/*.txt',
      );
    }
    const { listings: written, warnings } = await listings.applyBatch(
      ctx,
      projectId,
      tree.batch,
      'import',
      describeSource(tree),
    );
    return {
      imported: written.map((l) => ({
        store: l.store,
        locale: l.locale,
        fields: Object.keys(tree.batch.find((b) => b.store === l.store && b.locale === l.locale)?.edits ?? {})
          .length,
      })),
      skipped: tree.skipped,
      warnings,
    };
  }

  return {
    exportFiles,
    importFiles,
    async exportArchive(ctx: RequestContext, projectId: string, format: ArchiveFormat): Promise<Buffer> {
      return packArchive(await exportFiles(ctx, projectId), format);
    },
    async importArchive(ctx: RequestContext, projectId: string, archive: Buffer) {
      let files: Map<string, string>;
      try {
        files = await unpackArchive(archive, ARCHIVE_LIMITS);
      } catch (error) {
        throw invalid(`The body is not a readable tar.gz or zip archive: ${(error as Error).message}`);
      }
      return importFiles(ctx, projectId, files);
    },
  };
}

export type FastlaneTransfer = ReturnType<typeof createFastlaneTransfer>;
