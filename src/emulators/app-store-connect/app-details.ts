/**
 * App details and App Review information in the App Store emulator (stores-more.md §C1–C3): a
 * version's `copyright` (PATCH of the version, while it is editable), the category catalogue
 * (`appCategories`: top-level ids, GAMES and STICKERS with subcategories) and an appInfo's
 * primary and secondary category (relationships of the appInfo, written only on the editable
 * appInfo, each id checked against the catalogue), and a version's `appStoreReviewDetail` (one
 * per version: POST once, then PATCH; no DELETE) with Apple's rules — phone with "+" and a
 * country code, e-mail format, notes of 2–4000 characters. Every write is logged in `calls`.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { notFoundError, stateError } from './errors.js';
import {
  answerOne,
  bodyChecker,
  checkUpdate,
  entityError,
  findOr404,
  type WriteBody,
} from './entity-rules.js';
import type { JsonApi } from './json-api.js';
import { EDITABLE_INFO, EDITABLE_VERSION } from './rules.js';
import type { AppStoreState } from './state.js';
import { CATEGORIES, REVIEW_ATTRIBUTES, type ReviewDetail } from './details-state.js';
import { applyReleaseAttributes, releaseAttributes } from './phased-releases.js';

/** Apple's rules on review contact fields (stores-more.md §C3). */
function checkReview(attributes: Record<string, unknown>): void {
  const phone = attributes.contactPhone;
  if (typeof phone === 'string' && phone !== '' && !/^\+\d[\d\s-]{5,}$/.test(phone)) {
    throw entityError(
      'ENTITY_ERROR.ATTRIBUTE.INVALID',
      'An attribute value is invalid. - The phone number must be in a valid format.',
      '/data/attributes/contactPhone',
    );
  }
  const email = attributes.contactEmail;
  if (typeof email === 'string' && email !== '' && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    throw entityError(
      'ENTITY_ERROR.ATTRIBUTE.INVALID',
      'An attribute value is invalid. - The email address must be in a valid format.',
      '/data/attributes/contactEmail',
    );
  }
  const notes = attributes.notes;
  if (typeof notes === 'string' && notes !== '' && ([...notes].length < 2 || [...notes].length > 4000)) {
    throw entityError(
      'ENTITY_ERROR.ATTRIBUTE.INVALID',
      'An attribute value is invalid. - Notes must be between 2 and 4000 characters.',
      '/data/attributes/notes',
    );
  }
}

export function registerDetailsRoutes(
  scope: FastifyInstance,
  state: AppStoreState,
  spec: SpecValidator,
  api: JsonApi,
): void {
  const { origin, respond, page } = api;
  const check = bodyChecker(spec);
  const one = answerOne(respond);
  const details = state.details;
  const log = (request: FastifyRequest) =>
    details.calls.push(`${request.method} ${request.url.split('?')[0]}`);

  const categoryResource = (request: FastifyRequest, id: string) => ({
    type: 'appCategories',
    id,
    attributes: { platforms: ['IOS', 'MAC_OS'] },
    links: { self: `${origin(request)}/v1/appCategories/${id}` },
  });
  const reviewResource = (request: FastifyRequest, r: ReviewDetail) => ({
    type: 'appStoreReviewDetails',
    id: r.id,
    // Apple leaves unset attributes out (the spec's types are not nullable).
    attributes: Object.fromEntries(Object.entries(r.attributes).filter(([, value]) => value !== null)),
    links: { self: `${origin(request)}/v1/appStoreReviewDetails/${r.id}` },
  });
  const allCategories = () => [...Object.keys(CATEGORIES), ...Object.values(CATEGORIES).flat()];

  scope.get('/appCategories', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    // exists[parent]=false: the top-level categories only.
    const ids = query['exists[parent]'] === 'false' ? Object.keys(CATEGORIES) : allCategories();
    const { slice, links, meta } = page(request, ids);
    return respond(reply, 200, 'AppCategoriesResponse', {
      data: slice.map((id) => categoryResource(request, id)),
      links,
      meta,
    });
  });

  const categoryOf =
    (which: 'primaryCategory' | 'secondaryCategory') =>
    async (request: FastifyRequest<{ Params: { id: string } }>, reply: import('fastify').FastifyReply) => {
      if (!state.appInfos.has(request.params.id)) throw notFoundError('appInfos', request.params.id);
      const id = details.categories.get(request.params.id)?.[which] ?? null;
      if (id === null) throw notFoundError('appCategories', `${which} of ${request.params.id}`);
      return one(reply, 200, 'AppCategoryResponse', categoryResource(request, id));
    };
  scope.get('/appInfos/:id/primaryCategory', categoryOf('primaryCategory'));
  scope.get('/appInfos/:id/secondaryCategory', categoryOf('secondaryCategory'));

  scope.patch<{ Params: { id: string } }>('/appInfos/:id', async (request, reply) => {
    log(request);
    const info = findOr404(state.appInfos, 'appInfos', request.params.id);
    const body = check('AppInfoUpdateRequest', request.body);
    checkUpdate(body, info.id, []);
    const relationships = (body.data.relationships ?? {}) as Record<string, { data: { id: string } | null }>;
    if (!EDITABLE_INFO.has(info.state)) throw stateError(Object.keys(relationships)[0] ?? 'relationships');
    const known = new Set(allCategories());
    const next = { ...details.categories.get(info.id) };
    for (const [name, link] of Object.entries(relationships)) {
      if (name !== 'primaryCategory' && name !== 'secondaryCategory') continue;
      if (link.data !== null && !known.has(link.data.id)) {
        throw entityError(
          'ENTITY_ERROR.RELATIONSHIP.INVALID',
          `The provided entity includes a relationship with an invalid value: '${link.data.id}' is not an app category`,
          `/data/relationships/${name}`,
        );
      }
      next[name] = link.data?.id ?? null;
    }
    details.categories.set(info.id, next);
    return one(reply, 200, 'AppInfoResponse', {
      type: 'appInfos',
      id: info.id,
      attributes: { state: info.state },
      links: { self: `${origin(request)}/v1/appInfos/${info.id}` },
    } as never);
  });

  scope.patch<{ Params: { id: string } }>('/appStoreVersions/:id', async (request, reply) => {
    log(request);
    const version = findOr404(state.versions, 'appStoreVersions', request.params.id);
    const body = check('AppStoreVersionUpdateRequest', request.body);
    const attributes = checkUpdate(body, version.id, ['copyright', 'releaseType', 'earliestReleaseDate']);
    if (Object.hasOwn(attributes, 'copyright') && !EDITABLE_VERSION.has(version.appVersionState))
      throw stateError('copyright');
    applyReleaseAttributes(version, attributes, state.now());
    if (Object.hasOwn(attributes, 'copyright'))
      details.copyright.set(version.id, (attributes.copyright as string | null) ?? null);
    return one(reply, 200, 'AppStoreVersionResponse', {
      type: 'appStoreVersions',
      id: version.id,
      attributes: {
        platform: version.platform,
        versionString: version.versionString,
        appVersionState: version.appVersionState,
        ...releaseAttributes(version),
        ...(details.copyright.get(version.id) != null && { copyright: details.copyright.get(version.id) }),
      },
      links: { self: `${origin(request)}/v1/appStoreVersions/${version.id}` },
    } as never);
  });

  scope.get<{ Params: { id: string } }>(
    '/appStoreVersions/:id/appStoreReviewDetail',
    async (request, reply) => {
      if (!state.versions.has(request.params.id)) throw notFoundError('appStoreVersions', request.params.id);
      const found = [...details.reviewDetails.values()].find((r) => r.versionId === request.params.id);
      if (found === undefined)
        throw notFoundError('appStoreReviewDetails', `of version ${request.params.id}`);
      return one(reply, 200, 'AppStoreReviewDetailResponse', reviewResource(request, found));
    },
  );

  scope.post('/appStoreReviewDetails', async (request, reply) => {
    log(request);
    const body = check('AppStoreReviewDetailCreateRequest', request.body) as WriteBody & {
      data: { relationships: { appStoreVersion: { data: { id: string } } } };
    };
    const versionId = body.data.relationships.appStoreVersion.data.id;
    const version = findOr404(state.versions, 'appStoreVersions', versionId);
    if ([...details.reviewDetails.values()].some((r) => r.versionId === versionId)) {
      throw entityError(
        'ENTITY_ERROR.RELATIONSHIP.INVALID',
        'The version already has App Review information: update it instead.',
        '/data/relationships/appStoreVersion',
      );
    }
    if (!EDITABLE_VERSION.has(version.appVersionState)) throw stateError('appStoreReviewDetail');
    const attributes = (body.data.attributes ?? {}) as Record<string, string | boolean | null>;
    checkReview(attributes);
    const detail: ReviewDetail = {
      id: randomUUID(),
      versionId,
      attributes: Object.fromEntries(REVIEW_ATTRIBUTES.map((name) => [name, attributes[name] ?? null])),
    };
    details.reviewDetails.set(detail.id, detail);
    return one(reply, 201, 'AppStoreReviewDetailResponse', reviewResource(request, detail));
  });

  scope.patch<{ Params: { id: string } }>('/appStoreReviewDetails/:id', async (request, reply) => {
    log(request);
    const detail = findOr404(details.reviewDetails, 'appStoreReviewDetails', request.params.id);
    const body = check('AppStoreReviewDetailUpdateRequest', request.body);
    const attributes = checkUpdate(body, detail.id, REVIEW_ATTRIBUTES);
    const version = state.versions.get(detail.versionId)!;
    if (!EDITABLE_VERSION.has(version.appVersionState))
      throw stateError(Object.keys(attributes)[0] ?? 'notes');
    checkReview(attributes);
    detail.attributes = { ...detail.attributes, ...(attributes as Record<string, string | boolean | null>) };
    return one(reply, 200, 'AppStoreReviewDetailResponse', reviewResource(request, detail));
  });
}
