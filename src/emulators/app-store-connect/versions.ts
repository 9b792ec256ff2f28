/**
 * App Store versions in the emulator (stores-media.md B1): the list with Apple's filters, one
 * version, and the creation of the next one with the rules real clients meet — refused while an
 * unreleased version of the platform exists (409 ENTITY_ERROR.RELATIONSHIP.INVALID), refused for
 * a version string already used (409 …DUPLICATE, second when both apply), a new version in
 * PREPARE_FOR_SUBMISSION carrying forward the latest version's texts (never whatsNew) and
 * screenshot sets (knobs). `appStoreState` (deprecated) is kept consistent with `appVersionState`.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError } from './errors.js';
import type { JsonApi } from './json-api.js';
import type { AppStoreState, Version } from './state.js';
import { releaseAttributes } from './phased-releases.js';

/** States after which a version no longer blocks a new one: released, replaced, or withdrawn. */
const CLOSED_STATES = new Set([
  'READY_FOR_DISTRIBUTION',
  'REPLACED_WITH_NEW_VERSION',
  'DEVELOPER_REMOVED_FROM_SALE',
  'REMOVED_FROM_SALE',
]);
/** The deprecated `appStoreState` of each `appVersionState` (B1.1; equal names map 1:1). */
const STORE_STATE: Record<string, string> = {
  READY_FOR_DISTRIBUTION: 'READY_FOR_SALE',
  PROCESSING_FOR_DISTRIBUTION: 'PROCESSING_FOR_APP_STORE',
};
/** The texts a new version carries forward (B1.2: whatsNew starts empty). */
const CARRIED = ['description', 'keywords', 'marketingUrl', 'promotionalText', 'supportUrl'];

export const appStoreStateOf = (appVersionState: string) => STORE_STATE[appVersionState] ?? appVersionState;

/** Orders version strings numerically per dot-separated part ("1.10" after "1.9"). */
export function compareVersionStrings(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function registerVersionRoutes(
  scope: FastifyInstance,
  state: AppStoreState,
  spec: SpecValidator,
  { origin, respond, page }: JsonApi,
): void {
  const resource = (request: FastifyRequest, v: Version) => ({
    type: 'appStoreVersions',
    id: v.id,
    attributes: {
      platform: v.platform,
      versionString: v.versionString,
      appVersionState: v.appVersionState,
      appStoreState: appStoreStateOf(v.appVersionState),
      createdDate: v.createdDate,
      ...releaseAttributes(v),
      // Unset, Apple leaves it out (the spec's type is not nullable).
      ...(state.details.copyright.get(v.id) != null && { copyright: state.details.copyright.get(v.id) }),
    },
    links: { self: `${origin(request)}/v1/appStoreVersions/${v.id}` },
  });

  scope.get<{ Params: { id: string } }>('/apps/:id/appStoreVersions', async (request, reply) => {
    if (!state.apps.has(request.params.id)) throw notFoundError('apps', request.params.id);
    const query = request.query as Record<string, string | undefined>;
    const filter = (name: string) => query[`filter[${name}]`]?.split(',');
    const [platforms, states, strings, storeStates] = [
      filter('platform'),
      filter('appVersionState'),
      filter('versionString'),
      filter('appStoreState'),
    ];
    const list = [...state.versions.values()].filter(
      (v) =>
        v.appId === request.params.id &&
        (platforms === undefined || platforms.includes(v.platform)) &&
        (states === undefined || states.includes(v.appVersionState)) &&
        (strings === undefined || strings.includes(v.versionString)) &&
        (storeStates === undefined || storeStates.includes(appStoreStateOf(v.appVersionState))),
    );
    const { slice, links, meta } = page(request, list);
    return respond(reply, 200, 'AppStoreVersionsResponse', {
      data: slice.map((v) => resource(request, v)),
      links,
      meta,
    });
  });

  scope.get<{ Params: { id: string } }>('/appStoreVersions/:id', async (request, reply) => {
    const version = state.versions.get(request.params.id);
    if (version === undefined) throw notFoundError('appStoreVersions', request.params.id);
    return respond(reply, 200, 'AppStoreVersionResponse', {
      data: resource(request, version),
      links: { self: `${origin(request)}/v1/appStoreVersions/${version.id}` },
    });
  });

  scope.post('/appStoreVersions', async (request, reply) => {
    const problem = spec.check('AppStoreVersionCreateRequest', request.body);
    if (problem !== null) {
      throw new AscFailure(409, 'ENTITY_ERROR', 'There is a problem with the request entity', problem);
    }
    const { data } = request.body as {
      data: {
        attributes: { versionString: string; platform: string };
        relationships: { app: { data: { id: string } } };
      };
    };
    const appId = data.relationships.app.data.id;
    if (!state.apps.has(appId)) throw notFoundError('apps', appId);
    const { versionString, platform } = data.attributes;
    const siblings = [...state.versions.values()].filter((v) => v.appId === appId && v.platform === platform);
    const errors: AscFailure[] = [];
    if (siblings.some((v) => !CLOSED_STATES.has(v.appVersionState))) {
      errors.push(
        new AscFailure(
          409,
          'ENTITY_ERROR.RELATIONSHIP.INVALID',
          'The provided entity includes a relationship with an invalid value',
          'You cannot create a new version of the App in the current state.',
          { pointer: '/data/relationships/app' },
        ),
      );
    }
    if (siblings.some((v) => v.versionString === versionString)) {
      errors.push(
        new AscFailure(
          409,
          'ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE',
          'The provided entity includes an attribute with a value that has already been used',
          'The version number has been previously used.',
          { pointer: '/data/attributes/versionString' },
        ),
      );
    }
    if (errors.length > 0) {
      const [first, ...rest] = errors;
      throw new AscFailure(first!.status, first!.code, first!.title, first!.detail, first!.source, rest);
    }
    const version: Version = {
      id: randomUUID(),
      appId,
      platform,
      versionString,
      appVersionState: 'PREPARE_FOR_SUBMISSION',
      createdDate: new Date(state.now()).toISOString(),
    };
    const previous = [...siblings].sort((a, b) => compareVersionStrings(b.versionString, a.versionString))[0];
    state.versions.set(version.id, version);
    if (previous !== undefined) carryForward(state, previous, version);
    return respond(reply, 201, 'AppStoreVersionResponse', {
      data: resource(request, version),
      links: { self: `${origin(request)}/v1/appStoreVersions/${version.id}` },
    });
  });
}

/**
 * What a new version takes from the latest one (B1.2; which fields is unconfirmed, so knobs): the
 * texts but whatsNew, and the screenshot and preview sets with their processed files.
 */
function carryForward(state: AppStoreState, from: Version, to: Version): void {
  const { copyTexts, copyMedia } = state.versionSettings;
  for (const loc of [...state.versionLocs.values()].filter((l) => l.parentId === from.id)) {
    const id = randomUUID();
    const attributes = copyTexts
      ? Object.fromEntries(CARRIED.map((name) => [name, loc.attributes[name] ?? null]))
      : {};
    state.versionLocs.set(id, { id, parentId: to.id, locale: loc.locale, attributes });
    if (!copyMedia) continue;
    for (const set of [...state.media.sets.values()].filter((s) => s.localizationId === loc.id)) {
      const setId = randomUUID();
      const items = set.items
        .map((itemId) => state.media.assets.get(itemId)!)
        .filter((asset) => asset.state === 'COMPLETE')
        .map((asset) => {
          const copy = { ...asset, id: randomUUID(), setId };
          state.media.assets.set(copy.id, copy);
          return copy.id;
        });
      state.media.sets.set(setId, { ...set, id: setId, localizationId: id, items });
    }
  }
}
