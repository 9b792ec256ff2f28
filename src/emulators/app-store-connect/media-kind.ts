/**
 * What differs between App Store screenshots and app previews (A1.1, A1.7), and what the routes
 * of one kind share: body checks, the editable-version rule, lookups, resources as Apple renders
 * them, and the processing after a commit.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError } from './errors.js';
import type { JsonApi } from './json-api.js';
import { EDITABLE_VERSION, SCREENSHOT_SIZES } from './rules.js';
import type { MediaKindName, MediaAsset, MediaSet } from './media-state.js';
import type { AppStoreState } from './state.js';
import { contentTypeOf, readImage } from './media-files.js';

/** What differs between screenshots and app previews in Apple's API (A1.1, A1.7). */
export interface MediaKind {
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

export const KINDS: MediaKind[] = [
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

export function mediaKindContext(
  state: AppStoreState,
  spec: SpecValidator,
  { origin, respond, page }: JsonApi,
  kind: MediaKind,
) {
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
    // A custom product page's media: only on an editable version of the page (stores-more.md §B1).
    const pageLocalization = state.marketing.pageLocalizations.get(localizationId);
    if (pageLocalization !== undefined) {
      const pageVersion = state.marketing.pageVersions.get(pageLocalization.versionId)!;
      if (!state.marketing.rules.editablePageVersionStates.includes(pageVersion.state)) {
        throw new AscFailure(
          409,
          'STATE_ERROR',
          'The request cannot be fulfilled because of the state of another resource.',
          `The ${kind.name} cannot be changed while the custom product page version is ${pageVersion.state}.`,
        );
      }
      return;
    }
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

  return {
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
    requireItem,
    uploadOperations,
    itemResource,
    setResource,
    process,
    origin,
    respond,
    page,
  };
}

export type MediaKindContext = ReturnType<typeof mediaKindContext>;
