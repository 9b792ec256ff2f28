/**
 * Google Play images in the emulator (stores-media.md A2, checklist C): list, upload, delete and
 * deleteall inside an edit; every upload protocol real clients use — `uploadType=media`,
 * `multipart` (multipart/related), `resumable` (session URI in Location), and the header protocol
 * (`X-Goog-Upload-Protocol: resumable`, as Ruby's client and so supply send it) — on both the
 * `/upload/` and `/resumable/upload/` paths; the 15 MiB cap; PNG/JPEG sniffed from the bytes;
 * Play's dimension rules at upload (403 invalidScreenshotDimensions); single images replaced on
 * upload; more than 8 screenshots of a type refused at commit. Answers checked against the
 * discovery document.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Faults } from '../faults.js';
import type { SpecValidator } from '../spec-validator.js';
import { PlayFailure, sendFailure } from './errors.js';
import { playAuthentication, playErrors, requireOpenEdit } from './access.js';
import type { PlayImage, PlayState } from './state.js';

export const IMAGE_TYPES = [
  'phoneScreenshots',
  'sevenInchScreenshots',
  'tenInchScreenshots',
  'tvScreenshots',
  'wearScreenshots',
  'icon',
  'featureGraphic',
  'tvBanner',
];
const SINGLE = new Set(['icon', 'featureGraphic', 'tvBanner']);
const MAX_BYTES = 15 * 1024 * 1024;
const MAX_SCREENSHOTS = 8;

type ImageReq = FastifyRequest<{
  Params: { packageName: string; editId: string; language: string; imageType: string; imageId?: string };
  Querystring: { uploadType?: string; upload_id?: string };
}>;

/** PNG (IHDR) or JPEG (SOFn): format and size, from the bytes. */
function sniff(bytes: Buffer): { width: number; height: number } | null {
  if (bytes.length > 24 && bytes.readUInt32BE(0) === 0x89504e47) {
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let at = 2;
    while (at + 9 < bytes.length && bytes[at] === 0xff) {
      const marker = bytes[at + 1]!;
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) };
      }
      at += 2 + bytes.readUInt16BE(at + 2);
    }
  }
  return null;
}

/** Play's dimension rules (A2.3); true when the image fits its type. */
function fitsType(type: string, width: number, height: number): boolean {
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  if (type === 'icon') return width === 512 && height === 512;
  if (type === 'featureGraphic') return width === 1024 && height === 500;
  if (type === 'tvBanner') return width === 1280 && height === 720;
  if (type === 'wearScreenshots') return width === height && short >= 384;
  if (type === 'tvScreenshots') return Math.abs(long / short - 16 / 9) < 0.01 && short >= 320 && long <= 3840;
  return short >= 320 && long <= 3840 && long <= 2 * short;
}

/** The media part of a multipart/related body: the part after the JSON metadata. */
function mediaOfMultipart(body: Buffer, contentType: string): { bytes: Buffer; type: string } | null {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (boundary === undefined) return null;
  const parts = body.toString('latin1').split(`--${boundary}`).slice(1, -1);
  const media = parts[1];
  if (media === undefined) return null;
  const split = media.indexOf('\r\n\r\n');
  const headers = media.slice(0, split);
  const type = /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim() ?? '';
  return { bytes: Buffer.from(media.slice(split + 4, media.length - 2), 'latin1'), type };
}

/**
 * Registers the image routes: list and deletes inside the API's scope (`scope`), uploads and the
 * preview URLs on the root (`app`), each path prefix its own scope with the same checks.
 */
export function registerPlayImages(
  app: FastifyInstance,
  state: PlayState,
  faults: Faults,
  spec: SpecValidator,
): (scope: FastifyInstance) => void {
  const respond = (reply: FastifyReply, schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null) throw new Error(`emulator response does not match ${schema}: ${problem}`);
    return reply.code(200).type('application/json').send(body);
  };
  const origin = (request: FastifyRequest) => `http://${request.headers.host ?? 'localhost'}`;
  const view = (request: FastifyRequest, image: PlayImage) => ({
    id: image.id,
    url: `${origin(request)}/emulator-images/${image.id}`,
    sha1: image.sha1,
    sha256: image.sha256,
  });

  /** The edit's images of a language and type; the language must have a listing in the edit. */
  const slot = (request: ImageReq) => {
    const { edit } = requireOpenEdit(state, request, request.params.editId);
    const { language, imageType } = request.params;
    if (!IMAGE_TYPES.includes(imageType)) {
      throw new PlayFailure(
        400,
        'INVALID_ARGUMENT',
        `Invalid value at 'image_type' (${imageType})`,
        'badRequest',
      );
    }
    if (!edit.listings.has(language)) {
      throw new PlayFailure(
        404,
        'NOT_FOUND',
        `There must be a store listing for language ${language}.`,
        'notFound',
      );
    }
    const byType = edit.images.get(language) ?? new Map<string, PlayImage[]>();
    edit.images.set(language, byType);
    return {
      edit,
      list: byType.get(imageType) ?? [],
      set: (images: PlayImage[]) => byType.set(imageType, images),
    };
  };

  const path = '/applications/:packageName/edits/:editId/listings/:language/:imageType';
  const registerInScope = (scope: FastifyInstance) => {
    scope.get(path, async (request: ImageReq, reply) => {
      const { list } = slot(request);
      return respond(
        reply,
        'ImagesListResponse',
        list.length === 0 ? {} : { images: list.map((i) => view(request, i)) },
      );
    });
    scope.delete(path, async (request: ImageReq, reply) => {
      const { list, set } = slot(request);
      set([]);
      return respond(
        reply,
        'ImagesDeleteAllResponse',
        list.length === 0 ? {} : { deleted: list.map((i) => view(request, i)) },
      );
    });
    scope.delete(`${path}/:imageId`, async (request: ImageReq, reply) => {
      const { list, set } = slot(request);
      if (!list.some((i) => i.id === request.params.imageId)) {
        throw new PlayFailure(404, 'NOT_FOUND', 'Image not found.', 'notFound');
      }
      set(list.filter((i) => i.id !== request.params.imageId));
      return reply.code(204).send();
    });
  };

  /** Takes an uploaded image into the edit. */
  const accept = (request: ImageReq, reply: FastifyReply, bytes: Buffer, contentType: string) => {
    const { list, set } = slot(request);
    if (bytes.length > MAX_BYTES) {
      throw new PlayFailure(
        413,
        'INVALID_ARGUMENT',
        `Media larger than ${MAX_BYTES} bytes.`,
        'uploadTooLarge',
      );
    }
    if (!contentType.startsWith('image/')) {
      throw new PlayFailure(
        400,
        'INVALID_ARGUMENT',
        `Media type '${contentType}' is not supported. Valid media types: [image/*]`,
        'badContent',
      );
    }
    const size = sniff(bytes);
    if (size === null)
      throw new PlayFailure(400, 'INVALID_ARGUMENT', 'The image is not a PNG or JPEG.', 'badContent');
    if (!state.imageRules.deferChecks && !fitsType(request.params.imageType, size.width, size.height)) {
      throw invalidDimensions();
    }
    const image: PlayImage = {
      id: randomBytes(12).toString('hex'),
      width: size.width,
      height: size.height,
      sha1: createHash('sha1').update(bytes).digest('hex'),
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes,
      contentType,
    };
    state.imageFiles.set(image.id, image);
    set(SINGLE.has(request.params.imageType) ? [image] : [...list, image]);
    state.counters.imageUploads += 1;
    return respond(reply, 'ImagesUploadResponse', { image: view(request, image) });
  };

  /** Resumable sessions: what was started, waiting for its bytes. */
  const sessions = new Map<string, { contentType: string; length: number }>();

  for (const prefix of ['/upload/androidpublisher/v3', '/resumable/upload/androidpublisher/v3']) {
    app.register(
      async (uploads) => {
        uploads.addHook('onRequest', playAuthentication(state, faults));
        uploads.setErrorHandler(playErrors);
        uploads.removeAllContentTypeParsers();
        uploads.addContentTypeParser(
          '*',
          { parseAs: 'buffer', bodyLimit: MAX_BYTES + 1024 * 1024 },
          (_r, body, done) => done(null, body),
        );
        const handler = async (request: ImageReq, reply: FastifyReply) => {
          const body = (request.body as Buffer | undefined) ?? Buffer.alloc(0);
          const header = (name: string) => request.headers[name] as string | undefined;
          const uploadType = request.query.uploadType;
          const sessionUrl = (id: string) =>
            `${origin(request)}${prefix}/applications/${request.params.packageName}/edits/${request.params.editId}/listings/${request.params.language}/${request.params.imageType}?upload_id=${id}`;

          // The header protocol (Ruby's client): start, then "upload, finalize" to the session URL.
          if (
            header('x-goog-upload-protocol') === 'resumable' ||
            header('x-goog-upload-command') !== undefined
          ) {
            const command = header('x-goog-upload-command') ?? '';
            if (command === 'start') {
              slot(request);
              const id = randomBytes(8).toString('hex');
              sessions.set(id, {
                contentType: header('x-goog-upload-header-content-type') ?? '',
                length: Number(header('x-goog-upload-header-content-length') ?? -1),
              });
              return reply
                .code(200)
                .header('X-Goog-Upload-URL', sessionUrl(id))
                .header('X-Goog-Upload-Status', 'active')
                .send();
            }
            const session = sessions.get(request.query.upload_id ?? '');
            if (
              session === undefined ||
              !command.includes('finalize') ||
              header('x-goog-upload-offset') !== '0'
            ) {
              throw new PlayFailure(400, 'INVALID_ARGUMENT', 'Invalid upload session.', 'badRequest');
            }
            sessions.delete(request.query.upload_id!);
            void reply.header('X-Goog-Upload-Status', 'final');
            return accept(request, reply, body, session.contentType);
          }
          // uploadType=resumable: a session URI in Location, then the bytes PUT there.
          if (uploadType === 'resumable') {
            if (request.query.upload_id === undefined) {
              slot(request);
              const id = randomBytes(8).toString('hex');
              sessions.set(id, {
                contentType: header('x-upload-content-type') ?? '',
                length: Number(header('x-upload-content-length') ?? -1),
              });
              return reply.code(200).header('Location', sessionUrl(id)).send();
            }
            const session = sessions.get(request.query.upload_id);
            if (session === undefined)
              throw new PlayFailure(404, 'NOT_FOUND', 'Upload session not found.', 'notFound');
            sessions.delete(request.query.upload_id);
            return accept(
              request,
              reply,
              body,
              session.contentType === 'image/*' ? (header('content-type') ?? 'image/*') : session.contentType,
            );
          }
          if (uploadType === 'multipart') {
            const media = mediaOfMultipart(body, header('content-type') ?? '');
            if (media === null)
              throw new PlayFailure(400, 'INVALID_ARGUMENT', 'Invalid multipart request.', 'badRequest');
            return accept(request, reply, media.bytes, media.type);
          }
          if (uploadType === 'media' || uploadType === undefined) {
            return accept(request, reply, body, header('content-type') ?? '');
          }
          throw new PlayFailure(400, 'INVALID_ARGUMENT', `Invalid uploadType ${uploadType}.`, 'badRequest');
        };
        const route = '/applications/:packageName/edits/:editId/listings/:language/:imageType';
        uploads.post(route, handler);
        uploads.put(route, handler);
      },
      { prefix },
    );
  }

  // The images' preview URLs (supply appends =s0 for the full size): no auth, as Google's CDN.
  app.get<{ Params: { file: string } }>('/emulator-images/:file', async (request, reply) => {
    const image = state.imageFiles.get(request.params.file.replace(/=s\d+$/, ''));
    if (image === undefined)
      return sendFailure(reply, new PlayFailure(404, 'NOT_FOUND', 'No such image.', 'notFound'));
    return reply.type(image.contentType).send(image.bytes);
  });
  return registerInScope;
}

const invalidDimensions = () =>
  new PlayFailure(
    403,
    'PERMISSION_DENIED',
    'Invalid screenshot dimensions.',
    'invalidScreenshotDimensions',
    'androidpublisher',
  );

/**
 * Commit-time validation of an edit's images (A2.6): more than 8 of a type in a language; with
 * the knobs, dimensions deferred to commit and too few screenshots (one error per language).
 */
export function checkImagesAtCommit(
  images: Map<string, Map<string, PlayImage[]>>,
  rules: { deferChecks: boolean; minScreenshots: number },
  languages: Iterable<string>,
): void {
  const tooFew: string[] = [];
  for (const language of languages) {
    const byType = images.get(language) ?? new Map<string, PlayImage[]>();
    const screenshots = [...byType]
      .filter(([type]) => type.endsWith('Screenshots'))
      .reduce((n, [, l]) => n + l.length, 0);
    if (rules.minScreenshots > 0 && screenshots < rules.minScreenshots) tooFew.push(language);
  }
  for (const [language, byType] of images) {
    for (const [type, list] of byType) {
      if (rules.deferChecks && list.some((i) => !fitsType(type, i.width, i.height)))
        throw invalidDimensions();
      if (type.endsWith('Screenshots') && list.length > MAX_SCREENSHOTS) {
        throw new PlayFailure(
          403,
          'PERMISSION_DENIED',
          `This app has more than ${MAX_SCREENSHOTS} screenshots for language ${language}.`,
          'validateAppMessageTooManyScreenshots',
          'androidpublisher',
        );
      }
    }
  }
  if (tooFew.length > 0) {
    throw new PlayFailure(
      403,
      'PERMISSION_DENIED',
      tooFew.map((language) => `This app has too few screenshots for language ${language}.`).join(' '),
      'tooFewScreenshots',
      'androidpublisher',
    );
  }
}
