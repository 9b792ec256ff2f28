/**
 * App Store screenshots and app previews in the emulator (stores-media.md A1, A1.7, checklist C),
 * one code for both with what differs in a MediaKind: one set per display (or preview) type and
 * version localization, reservations with upload operations served here (no auth, parts
 * in any order, re-sendable until the commit, refused after it or after expiry), a commit that
 * checks the bytes, and asynchronous processing that verifies the MD5, the format, alpha and the
 * size for the slot (previews: the MD5 and the container) — failures only in the delivery state,
 * never as HTTP errors. Knobs: the
 * processing delay, the part size, the checksum lag, and created-but-failed reservations and
 * applied-but-timed-out commits. Every body is checked against Apple's spec.
 */
import { createHash, randomUUID } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError } from './errors.js';
import type { JsonApi } from './json-api.js';
import { EDITABLE_VERSION, SCREENSHOT_SIZES } from './rules.js';
import type { MediaKindName, MediaAsset, MediaSet } from './media-state.js';
import type { AppStoreState } from './state.js';

/** What differs between screenshots and app previews in Apple's API (A1.1, A1.7). */
interface MediaKind {
  name: MediaKindName;
  setType: 'appScreenshotSets' | 'appPreviewSets';
  itemType: 'appScreenshots' | 'appPreviews';
  typeAttribute: 'screenshotDisplayType' | 'previewType';
  setRelationship: 'appScreenshotSet' | 'appPreviewSet';
  /** Schema name stems: AppScreenshotSet…, AppScreenshot… */
  setSchema: string;
  itemSchema: string;
  max: number;
}

const KINDS: MediaKind[] = [
  {
    name: 'screenshots',
    setType: 'appScreenshotSets',
    itemType: 'appScreenshots',
    typeAttribute: 'screenshotDisplayType',
    setRelationship: 'appScreenshotSet',
    setSchema: 'AppScreenshotSet',
    itemSchema: 'AppScreenshot',
    max: 10,
  },
  {
    name: 'previews',
    setType: 'appPreviewSets',
    itemType: 'appPreviews',
    typeAttribute: 'previewType',
    setRelationship: 'appPreviewSet',
    setSchema: 'AppPreviewSet',
    itemSchema: 'AppPreview',
    max: 3,
  },
];
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

export function registerMediaRoutes(
  scope: FastifyInstance,
  state: AppStoreState,
  spec: SpecValidator,
  api: JsonApi,
): void {
  for (const kind of KINDS) registerMediaKind(scope, state, spec, api, kind);
}

function registerMediaKind(
  scope: FastifyInstance,
  state: AppStoreState,
  spec: SpecValidator,
  { origin, respond, page }: JsonApi,
  kind: MediaKind,
): void {
  const media = state.media;
  const { setType, itemType } = kind;
  const linkages = `${kind.setSchema}${kind.itemSchema}sLinkages`;
  /** When each (kind, localization, type) set was last deleted: the 409 seen just after [obs]. */
  const deletedAt = new Map<string, number>();

  const checkBody = (schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null) {
      throw new AscFailure(409, 'ENTITY_ERROR', 'There is a problem with the request entity', problem);
    }
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
        `The ${kind.name} cannot be changed while the version is ${version.appVersionState}.`,
      );
    }
  };

  const requireSet = (id: string) => {
    const set = media.sets.get(id);
    if (set === undefined || set.kind !== kind.name) throw notFoundError(setType, id);
    return set;
  };
  const requireItem = (id: string) => {
    const item = media.assets.get(id);
    if (item === undefined || item.kind !== kind.name) throw notFoundError(itemType, id);
    return item;
  };

  const uploadOperations = (request: FastifyRequest, item: MediaAsset) => {
    const operations = [];
    for (let offset = 0, part = 1; offset < item.fileSize; offset += media.settings.partSize, part += 1) {
      operations.push({
        method: 'PUT',
        url: `${origin(request)}/emulator-uploads/${item.id}?partNumber=${part}&Expires=${Math.floor(item.expiresAt / 1000)}`,
        length: Math.min(media.settings.partSize, item.fileSize - offset),
        offset,
        requestHeaders: [{ name: 'Content-Type', value: contentTypeOf(item.fileName) }],
      });
    }
    return operations;
  };

  const itemResource = (request: FastifyRequest, item: MediaAsset, read = true) => {
    let checksum = item.checksum;
    if (item.state === 'COMPLETE' && read && item.checksumHiddenReads > 0) {
      item.checksumHiddenReads -= 1;
      checksum = null;
    }
    const delivery = { errors: item.errors, warnings: [], state: item.state };
    const common = {
      fileSize: item.fileSize,
      fileName: item.fileName,
      ...(checksum !== null && item.state !== 'AWAITING_UPLOAD' && { sourceFileChecksum: checksum }),
      ...(item.state === 'AWAITING_UPLOAD' && { uploadOperations: uploadOperations(request, item) }),
    };
    const attributes =
      kind.name === 'screenshots'
        ? {
            ...common,
            ...(item.state === 'COMPLETE' && {
              imageAsset: {
                templateUrl: `${origin(request)}/emulator-assets/${item.id}/{w}x{h}bb.{f}`,
                width: item.width!,
                height: item.height!,
              },
            }),
            assetToken: `PurpleSource/v4/${item.id}/${item.fileName}`,
            assetType: 'SCREENSHOT',
            assetDeliveryState: delivery,
          }
        : {
            ...common,
            mimeType: contentTypeOf(item.fileName),
            previewFrameTimeCode: '00:00:05:00',
            ...(item.state === 'COMPLETE' && {
              videoUrl: `${origin(request)}/emulator-assets/${item.id}/video.m3u8`,
            }),
            videoDeliveryState: delivery,
          };
    return {
      type: itemType,
      id: item.id,
      attributes,
      relationships: { [kind.setRelationship]: { data: { type: setType, id: item.setId } } },
      links: { self: `${origin(request)}/v1/${itemType}/${item.id}` },
    };
  };

  const setResource = (request: FastifyRequest, set: MediaSet) => ({
    type: setType,
    id: set.id,
    attributes: { [kind.typeAttribute]: set.displayType },
    relationships: {
      [itemType]: {
        data: set.items.map((id) => ({ type: itemType, id })),
        links: { self: `${origin(request)}/v1/${setType}/${set.id}/relationships/${itemType}` },
      },
    },
    links: { self: `${origin(request)}/v1/${setType}/${set.id}` },
  });

  scope.get<{ Params: { id: string } }>(
    `/appStoreVersionLocalizations/:id/${setType}`,
    async (request, reply) => {
      if (!state.versionLocs.has(request.params.id)) {
        throw notFoundError('appStoreVersionLocalizations', request.params.id);
      }
      const query = request.query as Record<string, string | undefined>;
      const types = query[`filter[${kind.typeAttribute}]`]?.split(',');
      const sets = [...media.sets.values()].filter(
        (s) =>
          s.kind === kind.name &&
          s.localizationId === request.params.id &&
          (types === undefined || types.includes(s.displayType)),
      );
      const { slice, links, meta } = page(request, sets);
      const include = query.include?.split(',').includes(itemType) === true;
      return respond(reply, 200, `${kind.setSchema}sResponse`, {
        data: slice.map((s) => setResource(request, s)),
        ...(include && {
          included: slice.flatMap((s) => s.items.map((id) => itemResource(request, media.assets.get(id)!))),
        }),
        links,
        meta,
      });
    },
  );

  scope.post(`/${setType}`, async (request, reply) => {
    checkBody(`${kind.setSchema}CreateRequest`, request.body);
    const { data } = request.body as {
      data: {
        attributes: Record<string, string>;
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
    const displayType = data.attributes[kind.typeAttribute]!;
    const key = `${kind.name}/${localizationId}/${displayType}`;
    const exists =
      [...media.sets.values()].some(
        (s) => s.kind === kind.name && s.localizationId === localizationId && s.displayType === displayType,
      ) || (deletedAt.get(key) ?? -Infinity) + media.settings.setRecreateBlockMs > state.now();
    if (exists) {
      throw new AscFailure(
        409,
        'STATE_ERROR',
        'The request cannot be fulfilled because of the state of another resource.',
        kind.name === 'screenshots' ? 'Screenshot Set Already Exists!' : 'Preview Set Already Exists!',
      );
    }
    const set: MediaSet = {
      id: randomUUID(),
      kind: kind.name,
      localizationId,
      displayType,
      items: [],
    };
    media.sets.set(set.id, set);
    return respond(reply, 201, `${kind.setSchema}Response`, {
      data: setResource(request, set),
      links: { self: `${origin(request)}/v1/${setType}/${set.id}` },
    });
  });

  scope.get<{ Params: { id: string } }>(`/${setType}/:id`, async (request, reply) =>
    respond(reply, 200, `${kind.setSchema}Response`, {
      data: setResource(request, requireSet(request.params.id)),
      links: { self: `${origin(request)}/v1/${setType}/${request.params.id}` },
    }),
  );

  scope.delete<{ Params: { id: string } }>(`/${setType}/:id`, async (request, reply) => {
    const set = requireSet(request.params.id);
    assertEditable(set.localizationId);
    for (const id of set.items) media.assets.delete(id);
    media.sets.delete(set.id);
    deletedAt.set(`${kind.name}/${set.localizationId}/${set.displayType}`, state.now());
    return reply.code(204).send();
  });

  scope.get<{ Params: { id: string } }>(`/${setType}/:id/${itemType}`, async (request, reply) => {
    const set = requireSet(request.params.id);
    const { slice, links, meta } = page(
      request,
      set.items.map((id) => media.assets.get(id)!),
    );
    return respond(reply, 200, `${kind.itemSchema}sResponse`, {
      data: slice.map((s) => itemResource(request, s)),
      links,
      meta,
    });
  });

  scope.get<{ Params: { id: string } }>(
    `/${setType}/:id/relationships/${itemType}`,
    async (request, reply) => {
      const set = requireSet(request.params.id);
      const { slice, links, meta } = page(request, set.items);
      return respond(reply, 200, `${linkages}Response`, {
        data: slice.map((id) => ({ type: itemType, id })),
        links,
        meta,
      });
    },
  );

  scope.patch<{ Params: { id: string } }>(
    `/${setType}/:id/relationships/${itemType}`,
    async (request, reply) => {
      checkBody(`${linkages}Request`, request.body);
      const set = requireSet(request.params.id);
      assertEditable(set.localizationId);
      const ids = (request.body as { data: { id: string }[] }).data.map((d) => d.id);
      const permutation =
        ids.length === set.items.length &&
        new Set(ids).size === ids.length &&
        ids.every((id) => set.items.includes(id));
      if (!permutation) {
        throw new AscFailure(
          409,
          'ENTITY_ERROR.RELATIONSHIP.INVALID',
          'The provided entity includes a relationship with an invalid value',
          `The ${kind.name} must be exactly the ${kind.name} of the set.`,
          { pointer: '/data' },
        );
      }
      set.items = ids;
      return reply.code(204).send();
    },
  );

  scope.post(`/${itemType}`, async (request, reply) => {
    checkBody(`${kind.itemSchema}CreateRequest`, request.body);
    const { data } = request.body as {
      data: {
        attributes: { fileName: string; fileSize: number };
        relationships: Record<string, { data: { id: string } }>;
      };
    };
    const set = requireSet(data.relationships[kind.setRelationship]!.data.id);
    assertEditable(set.localizationId);
    // Every record counts, failed and unfinished ones too (A1.4).
    if (set.items.length >= kind.max) {
      throw new AscFailure(
        409,
        'STATE_ERROR',
        'The request cannot be fulfilled because of the state of another resource.',
        `Too many ${kind.name} (${kind.max}).`,
      );
    }
    const { fileName, fileSize } = data.attributes;
    const item: MediaAsset = {
      id: randomUUID(),
      kind: kind.name,
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
    media.assets.set(item.id, item);
    set.items.push(item.id);
    if (media.settings.failCreatedReservations > 0) {
      media.settings.failCreatedReservations -= 1;
      throw new AscFailure(503, 'UNEXPECTED_ERROR', 'An unexpected error occurred.');
    }
    return respond(reply, 201, `${kind.itemSchema}Response`, {
      data: itemResource(request, item),
      links: { self: `${origin(request)}/v1/${itemType}` },
    });
  });

  scope.get<{ Params: { id: string } }>(`/${itemType}/:id`, async (request, reply) =>
    respond(reply, 200, `${kind.itemSchema}Response`, {
      data: itemResource(request, requireItem(request.params.id)),
      links: { self: `${origin(request)}/v1/${itemType}/${request.params.id}` },
    }),
  );

  scope.patch<{ Params: { id: string } }>(`/${itemType}/:id`, async (request, reply) => {
    checkBody(`${kind.itemSchema}UpdateRequest`, request.body);
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
    const item = requireItem(request.params.id);
    assertEditable(media.sets.get(item.setId)!.localizationId);
    if (data.attributes?.uploaded === true && item.state === 'AWAITING_UPLOAD') {
      const received = receivedBytes(item, media.settings.partSize);
      if (received !== item.fileSize) {
        throw new AscFailure(
          409,
          'STATE_ERROR',
          'The request cannot be fulfilled because of the state of another resource.',
          `Received ${received} of ${item.fileSize} bytes.`,
        );
      }
      item.state = 'UPLOAD_COMPLETE';
      item.checksum = data.attributes.sourceFileChecksum ?? null;
      setTimeout(() => process(item), media.settings.processingDelayMs).unref();
    }
    if (media.settings.timeOutAppliedCommits > 0) {
      media.settings.timeOutAppliedCommits -= 1;
      throw new AscFailure(504, 'UNEXPECTED_ERROR', 'An unexpected error occurred.');
    }
    return respond(reply, 200, `${kind.itemSchema}Response`, {
      data: itemResource(request, item, false),
      links: { self: `${origin(request)}/v1/${itemType}/${item.id}` },
    });
  });

  scope.delete<{ Params: { id: string } }>(`/${itemType}/:id`, async (request, reply) => {
    const item = requireItem(request.params.id);
    const set = media.sets.get(item.setId)!;
    assertEditable(set.localizationId);
    set.items = set.items.filter((id) => id !== item.id);
    media.assets.delete(item.id);
    return reply.code(204).send();
  });

  /** Processing: the checks Apple makes after the commit, reported in the delivery state only. */
  function process(item: MediaAsset) {
    if (!media.assets.has(item.id)) return;
    const fail = (code: string, description: string) => {
      item.state = 'FAILED';
      item.errors = [{ code, description }];
    };
    const md5 = createHash('md5').update(item.bytes).digest('hex');
    if (item.checksum !== md5) {
      return fail(
        `${kind.name === 'screenshots' ? 'IMAGE' : 'VIDEO'}_CHECKSUM_MISMATCH`,
        'The checksum of the uploaded file does not match.',
      );
    }
    if (kind.name === 'previews') {
      // The container only: an ISO media file (MP4, MOV, M4V) starts with an ftyp box.
      if (item.bytes.toString('latin1', 4, 8) !== 'ftyp')
        return fail('VIDEO_INVALID_FORMAT', 'The file is not an MP4 or QuickTime video.');
      item.state = 'COMPLETE';
      item.checksumHiddenReads = media.settings.checksumLagReads;
      return;
    }
    const image = readImage(item.bytes);
    const set = media.sets.get(item.setId);
    const accepted = SCREENSHOT_SIZES[set?.displayType ?? ''] ?? [];
    if (image === null) return fail('IMAGE_TOOL_FAILURE', 'The file is not a PNG or JPEG image.');
    if (image.alpha) return fail('IMAGE_ALPHA_NOT_ALLOWED', 'IMAGE_ALPHA_NOT_ALLOWED');
    const fits = accepted.some(
      ([w, h]) => (w === image.width && h === image.height) || (w === image.height && h === image.width),
    );
    if (!fits) return fail('IMAGE_INCORRECT_DIMENSIONS', 'IMAGE_INCORRECT_DIMENSIONS');
    item.state = 'COMPLETE';
    item.width = image.width;
    item.height = image.height;
    item.checksumHiddenReads = media.settings.checksumLagReads;
  }
}

/** Bytes of the parts received so far. */
const receivedBytes = (shot: MediaAsset, partSize: number) =>
  shot.received.reduce(
    (sum, done, index) => (done ? sum + Math.min(partSize, shot.fileSize - index * partSize) : sum),
    0,
  );

const contentTypeOf = (fileName: string) =>
  /\.jpe?g$/i.test(fileName)
    ? 'image/jpeg'
    : /\.mov$/i.test(fileName)
      ? 'video/quicktime'
      : /\.(mp4|m4v)$/i.test(fileName)
        ? 'video/mp4'
        : 'image/png';

/**
 * What Apple's CDN serves for a processed file: a re-encoded copy (A1.3), so its MD5 is never the
 * source checksum. Here a comment is added to the image (a PNG tEXt chunk after IHDR, a JPEG COM
 * segment after SOI) or a `free` box to the video: the same picture, other bytes.
 */
export function reencoded(bytes: Buffer): Buffer {
  const note = Buffer.from('Software\0appmeta-emulator CDN', 'latin1');
  if (bytes.readUInt32BE(0) === 0x89504e47) {
    const type = Buffer.from('tEXt', 'latin1');
    const chunk = Buffer.alloc(12 + note.length);
    chunk.writeUInt32BE(note.length, 0);
    type.copy(chunk, 4);
    note.copy(chunk, 8);
    chunk.writeUInt32BE(crc32(Buffer.concat([type, note])), 8 + note.length);
    return Buffer.concat([bytes.subarray(0, 33), chunk, bytes.subarray(33)]);
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8) {
    const segment = Buffer.alloc(4 + note.length);
    segment.writeUInt16BE(0xfffe, 0);
    segment.writeUInt16BE(2 + note.length, 2);
    note.copy(segment, 4);
    return Buffer.concat([bytes.subarray(0, 2), segment, bytes.subarray(2)]);
  }
  const free = Buffer.alloc(8 + note.length);
  free.writeUInt32BE(free.length, 0);
  free.write('free', 4, 'latin1');
  note.copy(free, 8);
  return Buffer.concat([bytes, free]);
}

/** The processed files as Apple's CDN serves them: images by template URL, previews as HLS. */
export function registerAssetRoute(app: FastifyInstance, state: AppStoreState): void {
  app.get<{ Params: { id: string; file: string } }>('/emulator-assets/:id/:file', async (request, reply) => {
    const asset = state.media.assets.get(request.params.id);
    if (asset === undefined || asset.state !== 'COMPLETE') return reply.code(404).send();
    const { file } = request.params;
    if (file === 'video.m3u8') {
      return reply
        .type('application/vnd.apple.mpegurl')
        .send(
          '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:30\n#EXTINF:30.0,\nvideo.mp4\n#EXT-X-ENDLIST\n',
        );
    }
    if (file === 'video.mp4' && asset.kind === 'previews')
      return reply.type('video/mp4').send(reencoded(asset.bytes));
    const image = /^(\d+)x(\d+)bb\.(png|jpg)$/.exec(file);
    if (image === null || asset.kind !== 'screenshots') return reply.code(404).send();
    return reply.type(asset.bytes[0] === 0xff ? 'image/jpeg' : 'image/png').send(reencoded(asset.bytes));
  });
}

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
        const shot = state.media.assets.get(request.params.id);
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
