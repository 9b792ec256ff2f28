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
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError } from './errors.js';
import type { JsonApi } from './json-api.js';
import type { MediaAsset, MediaSet } from './media-state.js';
import type { AppStoreState } from './state.js';
import { KINDS, mediaKindContext, type MediaKindContext } from './media-kind.js';
import { receivedBytes, UPLOAD_LIFETIME_MS } from './media-files.js';

export { registerAssetRoute, registerUploadRoute } from './media-files.js';

export function registerMediaRoutes(
  scope: FastifyInstance,
  state: AppStoreState,
  spec: SpecValidator,
  api: JsonApi,
): void {
  for (const kind of KINDS) {
    const ctx = mediaKindContext(state, spec, api, kind);
    registerSetRoutes(scope, ctx);
    registerItemRoutes(scope, ctx);
  }
}

/** A kind's sets: listed per localization, created, read, deleted, their items listed and ordered. */
function registerSetRoutes(scope: FastifyInstance, ctx: MediaKindContext): void {
  const {
    state,
    kind,
    media,
    setType,
    itemType,
    linkages,
    deletedAt,
    checkBody,
    assertEditable,
    requireSet,
    itemResource,
    setResource,
    origin,
    respond,
    page,
  } = ctx;
  // A localization's sets: of an App Store version, or of a custom product page's version.
  const parents = [
    ['appStoreVersionLocalizations', (id: string) => state.versionLocs.has(id)],
    ['appCustomProductPageLocalizations', (id: string) => state.marketing.pageLocalizations.has(id)],
  ] as const;
  for (const [parentType, exists] of parents) {
    scope.get<{ Params: { id: string } }>(`/${parentType}/:id/${setType}`, async (request, reply) => {
      if (!exists(request.params.id)) throw notFoundError(parentType, request.params.id);
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
    });
  }

  scope.post(`/${setType}`, async (request, reply) => {
    checkBody(`${kind.setSchema}CreateRequest`, request.body);
    const { data } = request.body as {
      data: {
        attributes: Record<string, string>;
        relationships: {
          appStoreVersionLocalization?: { data: { id: string } };
          appCustomProductPageLocalization?: { data: { id: string } };
        };
      };
    };
    const localizationId =
      data.relationships.appStoreVersionLocalization?.data.id ??
      data.relationships.appCustomProductPageLocalization?.data.id;
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
}

/** A kind's items: reserved with upload operations, read, committed (then processed), deleted. */
function registerItemRoutes(scope: FastifyInstance, ctx: MediaKindContext): void {
  const {
    state,
    kind,
    media,
    itemType,
    checkBody,
    assertEditable,
    requireSet,
    requireItem,
    itemResource,
    process,
    origin,
    respond,
  } = ctx;
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
}
