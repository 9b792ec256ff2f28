/**
 * App Store screenshots in the emulator (stores-media.md A1, checklist C): one set per display
 * type and version localization, reservations with upload operations served here (no auth, parts
 * in any order, re-sendable until the commit, refused after it or after expiry), a commit that
 * checks the bytes, and asynchronous processing that verifies the MD5, the format, alpha and the
 * size for the slot — failures only in `assetDeliveryState`, never as HTTP errors. Knobs: the
 * processing delay, the part size, the checksum lag, and created-but-failed reservations and
 * applied-but-timed-out commits. Every body is checked against Apple's spec.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError } from './errors.js';
import type { JsonApi } from './json-api.js';
import { EDITABLE_VERSION, SCREENSHOT_SIZES } from './rules.js';
import type { Screenshot, ScreenshotSet } from './media-state.js';
import type { AppStoreState } from './state.js';

const MAX_SCREENSHOTS = 10;
const UPLOAD_LIFETIME_MS = 7 * 24 * 3600_000;

/** Format, size and alpha from the first bytes: PNG (IHDR, tRNS) and JPEG (SOFn). */
export function readImage(
  bytes: Buffer,
): { format: 'png' | 'jpeg'; width: number; height: number; alpha: boolean } | null {
  if (
    bytes.length > 24 &&
    bytes.readUInt32BE(0) === 0x89504e47 &&
    bytes.toString('latin1', 12, 16) === 'IHDR'
  ) {
    const colourType = bytes[25]!;
    const alpha = colourType === 4 || colourType === 6 || bytes.includes(Buffer.from('tRNS', 'latin1'));
    return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), alpha };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    let at = 2;
    while (at + 9 < bytes.length && bytes[at] === 0xff) {
      const marker = bytes[at + 1]!;
      const length = bytes.readUInt16BE(at + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return {
          format: 'jpeg',
          height: bytes.readUInt16BE(at + 5),
          width: bytes.readUInt16BE(at + 7),
          alpha: false,
        };
      }
      at += 2 + length;
    }
  }
  return null;
}

export function registerScreenshotRoutes(
  scope: FastifyInstance,
  state: AppStoreState,
  spec: SpecValidator,
  { origin, respond, page }: JsonApi,
): void {
  const media = state.media;

  const checkBody = (schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null)
      throw new AscFailure(409, 'ENTITY_ERROR', 'There is a problem with the request entity', problem);
  };

  /** The version a localization belongs to must be editable for media writes (A1.4, C). */
  const assertEditable = (localizationId: string) => {
    const localization = state.versionLocs.get(localizationId);
    if (localization === undefined) throw notFoundError('appStoreVersionLocalizations', localizationId);
    const version = state.versions.get(localization.parentId);
    if (version !== undefined && !EDITABLE_VERSION.has(version.appVersionState)) {
      throw new AscFailure(
        409,
        'STATE_ERROR',
        'The request cannot be fulfilled because of the state of another resource.',
        `Screenshots cannot be changed while the version is ${version.appVersionState}.`,
      );
    }
  };

  const requireSet = (id: string) => {
    const set = media.sets.get(id);
    if (set === undefined) throw notFoundError('appScreenshotSets', id);
    return set;
  };
  const requireShot = (id: string) => {
    const shot = media.screenshots.get(id);
    if (shot === undefined) throw notFoundError('appScreenshots', id);
    return shot;
  };

  const uploadOperations = (request: FastifyRequest, shot: Screenshot) => {
    const operations = [];
    for (let offset = 0, part = 1; offset < shot.fileSize; offset += media.settings.partSize, part += 1) {
      const length = Math.min(media.settings.partSize, shot.fileSize - offset);
      operations.push({
        method: 'PUT',
        url: `${origin(request)}/emulator-uploads/${shot.id}?partNumber=${part}&Expires=${Math.floor(shot.expiresAt / 1000)}`,
        length,
        offset,
        requestHeaders: [{ name: 'Content-Type', value: contentTypeOf(shot.fileName) }],
      });
    }
    return operations;
  };

  const shotResource = (request: FastifyRequest, shot: Screenshot, read = true) => {
    const set = media.sets.get(shot.setId);
    let checksum = shot.checksum;
    if (shot.state === 'COMPLETE' && read && shot.checksumHiddenReads > 0) {
      shot.checksumHiddenReads -= 1;
      checksum = null;
    }
    return {
      type: 'appScreenshots',
      id: shot.id,
      attributes: {
        fileSize: shot.fileSize,
        fileName: shot.fileName,
        ...(checksum !== null && shot.state !== 'AWAITING_UPLOAD' && { sourceFileChecksum: checksum }),
        ...(shot.state === 'COMPLETE' && {
          imageAsset: {
            templateUrl: `${origin(request)}/emulator-assets/${shot.id}/{w}x{h}bb.{f}`,
            width: shot.width!,
            height: shot.height!,
          },
        }),
        assetToken: `PurpleSource/v4/${shot.id}/${shot.fileName}`,
        assetType: 'SCREENSHOT',
        ...(shot.state === 'AWAITING_UPLOAD' && { uploadOperations: uploadOperations(request, shot) }),
        assetDeliveryState: { errors: shot.errors, warnings: [], state: shot.state },
      },
      relationships: { appScreenshotSet: { data: { type: 'appScreenshotSets', id: set?.id ?? shot.setId } } },
      links: { self: `${origin(request)}/v1/appScreenshots/${shot.id}` },
    };
  };

  const setResource = (request: FastifyRequest, set: ScreenshotSet) => ({
    type: 'appScreenshotSets',
    id: set.id,
    attributes: { screenshotDisplayType: set.displayType },
    relationships: {
      appScreenshots: {
        data: set.screenshots.map((id) => ({ type: 'appScreenshots', id })),
        links: { self: `${origin(request)}/v1/appScreenshotSets/${set.id}/relationships/appScreenshots` },
      },
    },
    links: { self: `${origin(request)}/v1/appScreenshotSets/${set.id}` },
  });

  scope.get<{ Params: { id: string } }>(
    '/appStoreVersionLocalizations/:id/appScreenshotSets',
    async (request, reply) => {
      if (!state.versionLocs.has(request.params.id))
        throw notFoundError('appStoreVersionLocalizations', request.params.id);
      const query = request.query as Record<string, string | undefined>;
      const types = query['filter[screenshotDisplayType]']?.split(',');
      const sets = [...media.sets.values()].filter(
        (s) =>
          s.localizationId === request.params.id && (types === undefined || types.includes(s.displayType)),
      );
      const { slice, links, meta } = page(request, sets);
      const include = query.include?.split(',').includes('appScreenshots') === true;
      return respond(reply, 200, 'AppScreenshotSetsResponse', {
        data: slice.map((s) => setResource(request, s)),
        ...(include && {
          included: slice.flatMap((s) =>
            s.screenshots.map((id) => shotResource(request, media.screenshots.get(id)!)),
          ),
        }),
        links,
        meta,
      });
    },
  );

  scope.post('/appScreenshotSets', async (request, reply) => {
    checkBody('AppScreenshotSetCreateRequest', request.body);
    const { data } = request.body as {
      data: {
        attributes: { screenshotDisplayType: string };
        relationships: { appStoreVersionLocalization?: { data: { id: string } } };
      };
    };
    const localizationId = data.relationships.appStoreVersionLocalization?.data.id;
    if (localizationId === undefined) {
      throw new AscFailure(
        409,
        'ENTITY_ERROR.RELATIONSHIP.REQUIRED',
        'There is a problem with the request entity',
        'appStoreVersionLocalization is required',
      );
    }
    assertEditable(localizationId);
    const displayType = data.attributes.screenshotDisplayType;
    if (
      [...media.sets.values()].some(
        (s) => s.localizationId === localizationId && s.displayType === displayType,
      )
    ) {
      throw new AscFailure(
        409,
        'STATE_ERROR',
        'The request cannot be fulfilled because of the state of another resource.',
        'Screenshot Set Already Exists!',
      );
    }
    const set: ScreenshotSet = { id: randomUUID(), localizationId, displayType, screenshots: [] };
    media.sets.set(set.id, set);
    return respond(reply, 201, 'AppScreenshotSetResponse', {
      data: setResource(request, set),
      links: { self: `${origin(request)}/v1/appScreenshotSets/${set.id}` },
    });
  });

  scope.get<{ Params: { id: string } }>('/appScreenshotSets/:id', async (request, reply) =>
    respond(reply, 200, 'AppScreenshotSetResponse', {
      data: setResource(request, requireSet(request.params.id)),
      links: { self: `${origin(request)}/v1/appScreenshotSets/${request.params.id}` },
    }),
  );

  scope.delete<{ Params: { id: string } }>('/appScreenshotSets/:id', async (request, reply) => {
    const set = requireSet(request.params.id);
    assertEditable(set.localizationId);
    for (const id of set.screenshots) media.screenshots.delete(id);
    media.sets.delete(set.id);
    return reply.code(204).send();
  });

  scope.get<{ Params: { id: string } }>('/appScreenshotSets/:id/appScreenshots', async (request, reply) => {
    const set = requireSet(request.params.id);
    const { slice, links, meta } = page(
      request,
      set.screenshots.map((id) => media.screenshots.get(id)!),
    );
    return respond(reply, 200, 'AppScreenshotsResponse', {
      data: slice.map((s) => shotResource(request, s)),
      links,
      meta,
    });
  });

  scope.get<{ Params: { id: string } }>(
    '/appScreenshotSets/:id/relationships/appScreenshots',
    async (request, reply) => {
      const set = requireSet(request.params.id);
      const { slice, links, meta } = page(request, set.screenshots);
      return respond(reply, 200, 'AppScreenshotSetAppScreenshotsLinkagesResponse', {
        data: slice.map((id) => ({ type: 'appScreenshots', id })),
        links,
        meta,
      });
    },
  );

  scope.patch<{ Params: { id: string } }>(
    '/appScreenshotSets/:id/relationships/appScreenshots',
    async (request, reply) => {
      checkBody('AppScreenshotSetAppScreenshotsLinkagesRequest', request.body);
      const set = requireSet(request.params.id);
      assertEditable(set.localizationId);
      const ids = (request.body as { data: { id: string }[] }).data.map((d) => d.id);
      const permutation =
        ids.length === set.screenshots.length &&
        new Set(ids).size === ids.length &&
        ids.every((id) => set.screenshots.includes(id));
      if (!permutation) {
        throw new AscFailure(
          409,
          'ENTITY_ERROR.RELATIONSHIP.INVALID',
          'The provided entity includes a relationship with an invalid value',
          'The screenshots must be exactly the screenshots of the set.',
          { pointer: '/data' },
        );
      }
      set.screenshots = ids;
      return reply.code(204).send();
    },
  );

  scope.post('/appScreenshots', async (request, reply) => {
    checkBody('AppScreenshotCreateRequest', request.body);
    const { data } = request.body as {
      data: {
        attributes: { fileName: string; fileSize: number };
        relationships: { appScreenshotSet: { data: { id: string } } };
      };
    };
    const set = requireSet(data.relationships.appScreenshotSet.data.id);
    assertEditable(set.localizationId);
    // Every record counts, failed and unfinished ones too (A1.4).
    if (set.screenshots.length >= MAX_SCREENSHOTS) {
      throw new AscFailure(
        409,
        'STATE_ERROR',
        'The request cannot be fulfilled because of the state of another resource.',
        `Too many screenshots (${MAX_SCREENSHOTS}).`,
      );
    }
    const { fileName, fileSize } = data.attributes;
    const shot: Screenshot = {
      id: randomUUID(),
      setId: set.id,
      fileName,
      fileSize,
      bytes: Buffer.alloc(fileSize),
      received: [],
      state: 'AWAITING_UPLOAD',
      checksum: null,
      errors: [],
      width: null,
      height: null,
      expiresAt: state.now() + UPLOAD_LIFETIME_MS,
      checksumHiddenReads: 0,
    };
    media.screenshots.set(shot.id, shot);
    set.screenshots.push(shot.id);
    if (media.settings.failCreatedReservations > 0) {
      media.settings.failCreatedReservations -= 1;
      throw new AscFailure(503, 'UNEXPECTED_ERROR', 'An unexpected error occurred.');
    }
    return respond(reply, 201, 'AppScreenshotResponse', {
      data: shotResource(request, shot),
      links: { self: `${origin(request)}/v1/appScreenshots` },
    });
  });

  scope.get<{ Params: { id: string } }>('/appScreenshots/:id', async (request, reply) =>
    respond(reply, 200, 'AppScreenshotResponse', {
      data: shotResource(request, requireShot(request.params.id)),
      links: { self: `${origin(request)}/v1/appScreenshots/${request.params.id}` },
    }),
  );

  scope.patch<{ Params: { id: string } }>('/appScreenshots/:id', async (request, reply) => {
    checkBody('AppScreenshotUpdateRequest', request.body);
    const { data } = request.body as {
      data: { id: string; attributes?: { uploaded?: boolean | null; sourceFileChecksum?: string | null } };
    };
    if (data.id !== request.params.id) {
      throw new AscFailure(
        409,
        'ENTITY_ERROR.ID.INVALID',
        'The provided entity id is invalid',
        `'${data.id}' does not match the id in the path`,
        { pointer: '/data/id' },
      );
    }
    const shot = requireShot(request.params.id);
    assertEditable(media.sets.get(shot.setId)!.localizationId);
    if (data.attributes?.uploaded === true && shot.state === 'AWAITING_UPLOAD') {
      const received = receivedBytes(shot, media.settings.partSize);
      if (received !== shot.fileSize) {
        throw new AscFailure(
          409,
          'STATE_ERROR',
          'The request cannot be fulfilled because of the state of another resource.',
          `Received ${received} of ${shot.fileSize} bytes.`,
        );
      }
      shot.state = 'UPLOAD_COMPLETE';
      shot.checksum = data.attributes.sourceFileChecksum ?? null;
      setTimeout(() => processScreenshot(shot), media.settings.processingDelayMs).unref();
    }
    if (media.settings.timeOutAppliedCommits > 0) {
      media.settings.timeOutAppliedCommits -= 1;
      throw new AscFailure(504, 'UNEXPECTED_ERROR', 'An unexpected error occurred.');
    }
    return respond(reply, 200, 'AppScreenshotResponse', {
      data: shotResource(request, shot, false),
      links: { self: `${origin(request)}/v1/appScreenshots/${shot.id}` },
    });
  });

  scope.delete<{ Params: { id: string } }>('/appScreenshots/:id', async (request, reply) => {
    const shot = requireShot(request.params.id);
    const set = media.sets.get(shot.setId)!;
    assertEditable(set.localizationId);
    set.screenshots = set.screenshots.filter((id) => id !== shot.id);
    media.screenshots.delete(shot.id);
    return reply.code(204).send();
  });

  /** Processing: the checks Apple makes after the commit, reported in assetDeliveryState only. */
  function processScreenshot(shot: Screenshot) {
    if (!media.screenshots.has(shot.id)) return;
    const fail = (code: string, description: string) => {
      shot.state = 'FAILED';
      shot.errors = [{ code, description }];
    };
    const image = readImage(shot.bytes);
    const md5 = createHash('md5').update(shot.bytes).digest('hex');
    const set = media.sets.get(shot.setId);
    const accepted = SCREENSHOT_SIZES[set?.displayType ?? ''] ?? [];
    if (shot.checksum !== md5)
      return fail('IMAGE_CHECKSUM_MISMATCH', 'The checksum of the uploaded file does not match.');
    if (image === null) return fail('IMAGE_TOOL_FAILURE', 'The file is not a PNG or JPEG image.');
    if (image.alpha) return fail('IMAGE_ALPHA_NOT_ALLOWED', 'IMAGE_ALPHA_NOT_ALLOWED');
    const fits = accepted.some(
      ([w, h]) => (w === image.width && h === image.height) || (w === image.height && h === image.width),
    );
    if (!fits) return fail('IMAGE_INCORRECT_DIMENSIONS', 'IMAGE_INCORRECT_DIMENSIONS');
    shot.state = 'COMPLETE';
    shot.width = image.width;
    shot.height = image.height;
    shot.checksumHiddenReads = media.settings.checksumLagReads;
  }
}

/** Bytes of the parts received so far. */
const receivedBytes = (shot: Screenshot, partSize: number) =>
  shot.received.reduce(
    (sum, done, index) => (done ? sum + Math.min(partSize, shot.fileSize - index * partSize) : sum),
    0,
  );

const contentTypeOf = (fileName: string) => (/\.jpe?g$/i.test(fileName) ? 'image/jpeg' : 'image/png');

/**
 * The upload operations' target: no JWT (the URLs are the credential), parts in any order and
 * re-sendable until the commit; refused after the commit or once expired.
 */
export function registerUploadRoute(app: FastifyInstance, state: AppStoreState): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: 64 * 1024 * 1024 },
      (_request, body, done) => done(null, body),
    );
    scope.put<{ Params: { id: string }; Querystring: { partNumber?: string; Expires?: string } }>(
      '/emulator-uploads/:id',
      async (request, reply) => {
        const shot = state.media.screenshots.get(request.params.id);
        if (shot === undefined)
          return reply.code(404).type('application/xml').send('<Error><Code>NoSuchUpload</Code></Error>');
        if (shot.state !== 'AWAITING_UPLOAD' || state.now() > shot.expiresAt) {
          return reply
            .code(403)
            .type('application/xml')
            .send('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
        }
        const part = Number(request.query.partNumber);
        const offset = (part - 1) * state.media.settings.partSize;
        const body = request.body as Buffer;
        const expected = Math.min(state.media.settings.partSize, shot.fileSize - offset);
        if (!Number.isInteger(part) || part < 1 || offset >= shot.fileSize || body.length !== expected) {
          return reply.code(400).type('application/xml').send('<Error><Code>InvalidPart</Code></Error>');
        }
        if (request.headers['content-type'] !== contentTypeOf(shot.fileName)) {
          return reply
            .code(400)
            .type('application/xml')
            .send('<Error><Code>InvalidContentType</Code></Error>');
        }
        body.copy(shot.bytes, offset);
        shot.received[part - 1] = true;
        return reply.code(200).send();
      },
    );
  });
}
