/** Media in and out of fastlane trees, as .tar.gz archives streamed both ways. */
import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, Ok } from '../../http/schemas.js';
import { ArchiveError, packTarGzStream, streamTarGz, type ArchiveLimits } from '../../shared/archive.js';
import { AppError } from '../../errors.js';
import { ProjectParams } from '../projects/index.js';
import type { MediaTransfer } from './media-transfer.js';
import * as S from './media.schemas.js';

const tags = ['media'];

const GiB = 1024 ** 3;
/** A media tree is large (previews alone up to 500 MB each) but bounded; entries stream to disk. */
export const MEDIA_IMPORT_LIMITS: ArchiveLimits = {
  maxCompressedBytes: 2 * GiB,
  maxTotalBytes: 4 * GiB,
  maxEntryBytes: 500 * 1024 * 1024,
  maxEntries: 10_000,
  maxRatio: 100,
  maxDepth: 16,
};

export function mediaTransferRoutes(app: Api, mediaTransfer: MediaTransfer): void {
  app.get('/projects/:projectId/media/export', {
    schema: {
      operationId: 'media.export',
      tags,
      summary: 'Export screenshots and previews in the fastlane layout',
      description:
        'A tar.gz, streamed, of `fastlane/screenshots/<locale>/<displayType>_NN.<ext>` (appleTV/ and iMessage/ ' +
        'folders as deliver reads them), `fastlane/app_previews/<locale>/<previewType>_NN.<ext>` and ' +
        '`fastlane/metadata/android/<language>/images/<type>/NN.<ext>` or `images/<icon|featureGraphic|tvBanner>.<ext>` ' +
        '(supply), the working copies in slot order.',
      security: BEARER,
      params: ProjectParams,
      response: {
        200: { description: 'The archive', content: { 'application/gzip': { schema: S.Binary } } },
        ...ERRORS,
      },
    },
    handler: async (request, reply) => {
      const entries = await mediaTransfer.exportEntries(contextOf(request), request.params.projectId);
      const archive = packTarGzStream(
        entries.map((e) => ({ path: e.path, size: e.bytes, open: () => e.open() })),
      );
      // The schema describes the bytes as a Buffer; Fastify streams a Readable the same way.
      return reply
        .type('application/gzip')
        .header('Content-Disposition', `attachment; filename="${request.params.projectId}-media.tar.gz"`)
        .send(archive as unknown as Buffer);
    },
  });

  app.register(async (scope: Api) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      ['application/gzip', 'application/x-gzip', 'application/octet-stream'],
      (_r, _p, done) => done(null),
    );
    scope.post('/projects/:projectId/media/import', {
      config: { noIdempotencyKey: 'the archive is read as it streams; importing it again changes nothing' },
      schema: {
        operationId: 'media.import',
        tags,
        summary: 'Import screenshots and previews from a fastlane tree',
        description:
          'Body: a tar.gz (Content-Type application/gzip), read as it streams, each file spooled to disk. The layout ' +
          "is the export's, or any deliver/supply tree: App Store screenshots go to the display type their pixel " +
          "size says (deliver's rule, `_framed` files preferred), previews by the preview type in their name. " +
          'Every file is checked against its slot; all or nothing (400 naming each path and rule). The slots in ' +
          'the tree are replaced; others stay. Up to 2 GiB compressed, 4 GiB expanded, 500 MiB per file (413).',
        security: BEARER,
        params: ProjectParams,
        consumes: ['application/gzip'],
        response: {
          200: Ok(
            Type.Object({
              imported: Type.Array(
                Type.Object({
                  store: S.StoreParam,
                  locale: Type.String(),
                  slotType: Type.String(),
                  items: Type.Integer(),
                }),
              ),
              skipped: Type.Array(Type.Object({ path: Type.String(), reason: Type.String() })),
            }),
          ),
          ...ERRORS,
        },
      },
      handler: async (request, reply) => {
        try {
          return ok(
            await mediaTransfer.importTree(contextOf(request), request.params.projectId, (want, onFile) =>
              streamTarGz(request.raw, MEDIA_IMPORT_LIMITS, want, (path, content) =>
                onFile(path, content),
              ).catch((error: unknown) => {
                if (error instanceof ArchiveError) {
                  throw new AppError(
                    'INVALID_REQUEST',
                    error.message,
                    undefined,
                    error.kind === 'tooLarge' ? 413 : 400,
                  );
                }
                throw error;
              }),
            ),
          );
        } catch (error) {
          if (!request.raw.readableEnded) void reply.header('Connection', 'close');
          throw error;
        }
      },
    });
  });
}
