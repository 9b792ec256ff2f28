import { Type } from '@sinclair/typebox';
import type Busboy from 'busboy';
import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, PageQuery, pageOf, StringEnum } from '../../http/schemas.js';
import { lazyModule } from '../../shared/lazy-module.js';
import { AppError, invalidField } from '../../errors.js';
import { ProjectParams } from '../projects/index.js';
import type { BlobRange } from '../../blobs/index.js';
import type { MediaService } from './media.service.js';
import type { MediaTransfer } from './media-transfer.js';
import { SLOT_RULES } from './slots.js';
import * as S from './media.schemas.js';
import { slotName } from './slot-names.js';
import { mediaTransferRoutes } from './media-transfer.routes.js';

/** The multipart parser, loaded by the first upload rather than at start-up. */
const busboy = lazyModule<typeof Busboy>('busboy');

const tags = ['media'];
const UPLOAD_TYPES = [
  'image/png',
  'image/jpeg',
  'video/mp4',
  'video/quicktime',
  'video/x-m4v',
  'application/octet-stream',
];

/** The file of a multipart/form-data body: its first file part, as it streams. */
function multipartFile(raw: IncomingMessage): Promise<{ stream: Readable; fileName: string }> {
  return new Promise((resolve, reject) => {
    let parser: Busboy.Busboy;
    try {
      parser = busboy()({ headers: raw.headers, limits: { files: 1, fields: 20, parts: 30 } });
    } catch {
      reject(invalidField('file', 'the multipart body has no boundary'));
      return;
    }
    parser.on('file', (_name, stream, info) => resolve({ stream, fileName: info.filename ?? 'upload' }));
    parser.on('error', () => reject(invalidField('file', 'the multipart body cannot be read')));
    parser.on('close', () => reject(invalidField('file', 'the multipart body has no file part')));
    raw.pipe(parser);
  });
}

/** `Range: bytes=a-b` (one range; suffix and open ranges too) against a file of `size` bytes. */
function parseRange(header: string | undefined, size: number): BlobRange | null {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) {
    throw new AppError(
      'INVALID_REQUEST',
      `Range ${header} is outside the file's ${size} bytes`,
      undefined,
      416,
    );
  }
  return { start, end };
}

export function mediaRoutes(app: Api, services: { media: MediaService; mediaTransfer: MediaTransfer }): void {
  const { media, mediaTransfer } = services;

  // Export and import of fastlane trees come first, as they always have in the API reference.
  mediaTransferRoutes(app, mediaTransfer);

  app.get('/media/slot-types', {
    schema: {
      operationId: 'media.slotTypes',
      tags,
      summary: 'Every slot type of both stores and its rules',
      description: 'Formats, accepted sizes or ranges, alpha, count and byte limits (stores-media.md).',
      security: BEARER,
      response: { 200: S.SlotTypesResponse, ...ERRORS },
    },
    handler: async () =>
      ok({ slotTypes: SLOT_RULES.map((rule) => ({ ...rule, name: slotName(rule.store, rule.slotType) })) }),
  });

  app.get('/projects/:projectId/media', {
    schema: {
      operationId: 'media.list',
      tags,
      summary: 'Screenshots and previews of a project',
      description:
        'Slots with items (in order) or a store base, by store, locale and slot type: those of the default ' +
        'product page, or with `?productPage=` those of that custom product page.',
      security: BEARER,
      params: ProjectParams,
      querystring: Type.Object({
        store: Type.Optional(S.StoreParam),
        locale: Type.Optional(Type.String({ maxLength: 20 })),
        ...S.PageQuery.properties,
      }),
      response: { 200: S.SlotsResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await media.list(contextOf(request), request.params.projectId, request.query)),
  });

  // The file streams to the service after it checked the caller's role, the project and the
  // slot: nothing parses the body before the handler runs.
  app.register(async (scope: Api) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    scope.post('/projects/:projectId/media/:store/:locale/:slotType', {
      config: { noIdempotencyKey: 'the file is read as it streams; the same bytes are stored once anyway' },
      schema: {
        operationId: 'media.upload',
        tags,
        summary: 'Upload a screenshot or preview into a slot',
        description:
          'Body: the file itself (Content-Type image/png, image/jpeg, video/mp4, video/quicktime, or ' +
          'application/octet-stream; name it with `?fileName=`) or multipart/form-data with one file part. ' +
          'Format, dimensions and alpha are read from the bytes; every rule of the slot is checked before ' +
          "anything is stored (400, one `details` entry per broken rule, `file.<rule>`); over the slot's byte " +
          "limit is 413; over the plan's storage 403 USAGE_LIMIT_EXCEEDED (nothing stored); a file already in the " +
          'slot is 409 (a slot holds each file once). The item goes to the end of the slot; ' +
          'in a single-image slot (icon, featureGraphic, tvBanner) it replaces the image.',
        security: BEARER,
        params: S.SlotParams,
        querystring: Type.Object({
          fileName: Type.Optional(Type.String({ maxLength: 200 })),
          ...S.PageQuery.properties,
        }),
        consumes: [...UPLOAD_TYPES, 'multipart/form-data'],
        response: { 201: S.UploadResponse, ...ERRORS },
      },
      handler: async (request, reply) => {
        const { projectId, store, locale, slotType } = request.params;
        const contentType = request.headers['content-type'] ?? '';
        const multipart = contentType.toLowerCase().startsWith('multipart/form-data');
        const essence = contentType.split(';')[0]!.trim().toLowerCase();
        try {
          if (!multipart && !UPLOAD_TYPES.includes(essence)) {
            throw new AppError(
              'INVALID_REQUEST',
              `Content-Type ${essence || '(none)'} is not accepted; send ${UPLOAD_TYPES.join(', ')} or multipart/form-data`,
              [{ field: 'Content-Type', message: 'not an accepted upload type' }],
              415,
            );
          }
          const result = await media.upload(
            contextOf(request),
            projectId,
            { store, locale, slotType, productPage: request.query.productPage },
            {
              open: async () =>
                multipart
                  ? multipartFile(request.raw)
                  : { stream: request.raw, fileName: request.query.fileName ?? 'upload' },
            },
          );
          return reply
            .code(201)
            .send(ok({ ...result.item, replaced: result.replaced, notVerified: result.notVerified }));
        } catch (error) {
          // Refused before the whole body was read: close the connection rather than drain it.
          if (!request.raw.readableEnded) void reply.header('Connection', 'close');
          throw error;
        }
      },
    });
  });

  app.put('/projects/:projectId/media/:store/:locale/:slotType/order', {
    schema: {
      operationId: 'media.reorder',
      tags,
      summary: 'Reorder a slot',
      description: '`items`: every item id of the slot, each once, in the new order.',
      security: BEARER,
      params: S.SlotParams,
      querystring: S.PageQuery,
      body: S.OrderBody,
      response: { 200: S.SlotResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, store, locale, slotType } = request.params;
      const slot = await media.reorder(
        contextOf(request),
        projectId,
        { store, locale, slotType, productPage: request.query.productPage },
        request.body.items,
      );
      return ok({ slot });
    },
  });

  app.delete('/projects/:projectId/media/:store/:locale/:slotType/:itemId', {
    schema: {
      operationId: 'media.delete',
      tags,
      summary: 'Remove an item from a slot',
      description:
        'The file stays in the history (a revert can bring it back) and in storage while anything uses it.',
      security: BEARER,
      params: S.ItemParams,
      querystring: S.PageQuery,
      response: {
        200: Type.Object({
          success: Type.Literal(true),
          data: Type.Object({ deleted: Type.Literal(true), slot: S.MediaSlotSchema }),
        }),
        ...ERRORS,
      },
    },
    handler: async (request) => {
      const { projectId, store, locale, slotType, itemId } = request.params;
      const slot = { store, locale, slotType, productPage: request.query.productPage };
      return ok(await media.remove(contextOf(request), projectId, slot, itemId));
    },
  });

  app.post('/projects/:projectId/media/copy', {
    schema: {
      operationId: 'media.copy',
      tags,
      summary: 'Copy media between locales or stores',
      description:
        'The same files in new items, no bytes copied. Across stores, App Store iPhone/iPad/TV screenshots go to ' +
        'phoneScreenshots/tenInchScreenshots/tvScreenshots and Play screenshots to the display type of their size; ' +
        '`slotTypes` entries `source:target` override. Every file is checked against the target slot first; ' +
        'all or nothing. The target slots are replaced. `productPage` on either side names a custom product ' +
        "page (App Store): `from` without it and `to` with it copies the default page's media into that page.",
      security: BEARER,
      params: ProjectParams,
      body: S.CopyBody,
      response: { 200: S.CopyResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await media.copy(contextOf(request), request.params.projectId, request.body)),
  });

  app.get('/projects/:projectId/media/:store/:locale/:slotType/history', {
    schema: {
      operationId: 'media.history',
      tags,
      summary: 'Change history of a slot',
      description:
        'Every change of the slot: the files before and after (SHA-256, in order), who, when, why. Newest first.',
      security: BEARER,
      params: S.SlotParams,
      querystring: Type.Object({ ...PageQuery().properties, ...S.PageQuery.properties }),
      response: { 200: S.MediaHistoryResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, store, locale, slotType } = request.params;
      const query = pageOf(request.query);
      const slot = { store, locale, slotType, productPage: request.query.productPage };
      const page = await media.history(contextOf(request), projectId, slot, query);
      return ok({ ...page, ...query });
    },
  });

  app.post('/projects/:projectId/media/:store/:locale/:slotType/revert', {
    schema: {
      operationId: 'media.revert',
      tags,
      summary: 'Restore a slot to a history entry',
      description:
        'The files and order before the entry (`to: "before"`, undo) or after it; recorded as a new change.',
      security: BEARER,
      params: S.SlotParams,
      querystring: S.PageQuery,
      body: S.RevertBody,
      response: { 200: S.SlotResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, store, locale, slotType } = request.params;
      const slot = { store, locale, slotType, productPage: request.query.productPage };
      return ok({ slot: await media.revert(contextOf(request), projectId, slot, request.body) });
    },
  });

  app.get('/media/:sha256', {
    schema: {
      operationId: 'media.download',
      tags,
      summary: 'The bytes of a media file',
      description:
        'For files a project of your organization uses (404 otherwise). `?thumb=1`: a WebP thumbnail, at most ' +
        '320 pixels a side (images only; 404 for a video). Supports one `Range` (206; 416 outside the file) and ' +
        '`If-None-Match` (304); the content never changes, so it may be cached privately for a year.',
      security: BEARER,
      params: Type.Object({ sha256: Type.String({ maxLength: 64 }) }),
      querystring: Type.Object({ thumb: Type.Optional(StringEnum(['0', '1'])) }),
      response: {
        200: { description: 'The file', content: { 'application/octet-stream': { schema: S.Binary } } },
        206: {
          description: 'A range of the file',
          content: { 'application/octet-stream': { schema: S.Binary } },
        },
        304: { description: 'Not modified', type: 'null' },
        ...ERRORS,
      },
    },
    handler: async (request, reply) => {
      const thumbnail = request.query.thumb === '1';
      const rangeHeader = thumbnail ? undefined : request.headers.range;
      const file = await media.open(contextOf(request), request.params.sha256, {
        thumbnail,
        range: (size) => parseRange(rangeHeader, size),
      });
      void reply
        .header('ETag', file.etag)
        .header('Cache-Control', 'private, max-age=31536000, immutable')
        .type(file.contentType);
      if (request.headers['if-none-match'] === file.etag) {
        file.stream.destroy();
        return reply.code(304).send();
      }
      if (file.bytes !== null) void reply.header('Accept-Ranges', 'bytes');
      if (file.range !== null) {
        return reply
          .code(206)
          .header('Content-Range', `bytes ${file.range.start}-${file.range.end}/${file.bytes}`)
          .header('Content-Length', file.range.end - file.range.start + 1)
          .send(file.stream);
      }
      if (file.bytes !== null) void reply.header('Content-Length', file.bytes);
      return reply.send(file.stream);
    },
  });
}
