/**
 * An App Store Connect API emulator (tests, demos, benchmarks only). It keeps apps, appInfos,
 * versions and their localizations in memory and reproduces what stores.md §8 lists: ES256 JWT
 * checks, JSON:API shapes with cursor pagination, state rules, Apple's error bodies, the hourly
 * rate limit — and validates every request and response body against Apple's OpenAPI document.
 */
import { createPublicKey, randomUUID, verify, type KeyObject } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { APPSTORE_LOCALES } from '../shared/stores.js';
import type { Faults } from './faults.js';
import { appStoreConnectSpec } from './spec-validator.js';

export interface AscSeed {
  keys?: { issuerId: string; keyId: string; publicKey: string }[];
  apps?: {
    id: string;
    bundleId: string;
    name: string;
    primaryLocale?: string;
    appInfos?: {
      id?: string;
      state: string;
      localizations?: Record<string, Record<string, string | null>>;
    }[];
    versions?: {
      id?: string;
      platform?: string;
      versionString: string;
      appVersionState: string;
      localizations?: Record<string, Record<string, string | null>>;
    }[];
  }[];
  /** Requests per key per rolling hour (default 3600). */
  hourlyLimit?: number;
  /** Largest page the emulator returns whatever `limit` asks (Apple may return fewer); default 200. */
  pageSize?: number;
}

interface Localization {
  id: string;
  parentId: string;
  locale: string;
  attributes: Record<string, string | null>;
}

const INFO_ATTRIBUTES = ['name', 'subtitle', 'privacyPolicyUrl', 'privacyChoicesUrl', 'privacyPolicyText'];
const VERSION_ATTRIBUTES = [
  'description',
  'keywords',
  'marketingUrl',
  'promotionalText',
  'supportUrl',
  'whatsNew',
];
const LIMITS: Record<string, number> = {
  name: 30,
  subtitle: 30,
  description: 4000,
  keywords: 100,
  promotionalText: 170,
  whatsNew: 4000,
};
const EDITABLE_INFO = new Set([
  'PREPARE_FOR_SUBMISSION',
  'DEVELOPER_REJECTED',
  'REJECTED',
  'WAITING_FOR_REVIEW',
]);
const EDITABLE_VERSION = new Set([
  'PREPARE_FOR_SUBMISSION',
  'DEVELOPER_REJECTED',
  'REJECTED',
  'METADATA_REJECTED',
  'WAITING_FOR_REVIEW',
  'INVALID_BINARY',
]);
const MAX_TOKEN_LIFETIME_S = 20 * 60;

const NOT_AUTHORIZED = {
  status: '401',
  code: 'NOT_AUTHORIZED',
  title: 'Authentication credentials are missing or invalid.',
  detail:
    'Provide a properly configured and signed bearer token, and make sure that it has not expired. Learn more about Generating Tokens for API Requests https://developer.apple.com/go/?id=api-generating-tokens',
};

class AscFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail?: string,
    readonly source?: { pointer?: string; parameter?: string },
  ) {
    super(title);
  }
}

const stateError = (attribute: string) =>
  new AscFailure(
    409,
    'STATE_ERROR',
    'The request cannot be fulfilled because of the state of another resource.',
    `Attribute '${attribute}' cannot be edited at this time`,
    { pointer: `/data/attributes/${attribute}` },
  );

export function createAppStoreState(seed: AscSeed = {}, now: () => number = Date.now) {
  const keys = new Map<string, { issuerId: string; publicKey: KeyObject }>();
  const apps = new Map<string, { id: string; bundleId: string; name: string; primaryLocale: string }>();
  const appInfos = new Map<string, { id: string; appId: string; state: string }>();
  const versions = new Map<
    string,
    { id: string; appId: string; platform: string; versionString: string; appVersionState: string }
  >();
  const infoLocs = new Map<string, Localization>();
  const versionLocs = new Map<string, Localization>();
  const usage = new Map<string, number[]>();
  let hourlyLimit = seed.hourlyLimit ?? 3600;
  let pageSize = seed.pageSize ?? 200;
  const counters = { requests: 0, writes: 0 };

  function load(next: AscSeed) {
    for (const key of next.keys ?? []) {
      keys.set(key.keyId, { issuerId: key.issuerId, publicKey: createPublicKey(key.publicKey) });
    }
    if (next.hourlyLimit !== undefined) hourlyLimit = next.hourlyLimit;
    if (next.pageSize !== undefined) pageSize = next.pageSize;
    for (const app of next.apps ?? []) {
      apps.set(app.id, {
        id: app.id,
        bundleId: app.bundleId,
        name: app.name,
        primaryLocale: app.primaryLocale ?? 'en-US',
      });
      for (const info of app.appInfos ?? []) {
        const id = info.id ?? randomUUID();
        appInfos.set(id, { id, appId: app.id, state: info.state });
        for (const [locale, attributes] of Object.entries(info.localizations ?? {})) {
          const locId = randomUUID();
          infoLocs.set(locId, { id: locId, parentId: id, locale, attributes: { ...attributes } });
        }
      }
      for (const version of app.versions ?? []) {
        const id = version.id ?? randomUUID();
        versions.set(id, {
          id,
          appId: app.id,
          platform: version.platform ?? 'IOS',
          versionString: version.versionString,
          appVersionState: version.appVersionState,
        });
        for (const [locale, attributes] of Object.entries(version.localizations ?? {})) {
          const locId = randomUUID();
          versionLocs.set(locId, { id: locId, parentId: id, locale, attributes: { ...attributes } });
        }
      }
    }
  }
  load(seed);

  return {
    counters,
    get pageSize() {
      return pageSize;
    },
    keys,
    apps,
    appInfos,
    versions,
    infoLocs,
    versionLocs,
    load,
    /** Forgets everything: data, settings and counters. */
    reset() {
      for (const map of [keys, apps, appInfos, versions, infoLocs, versionLocs, usage]) map.clear();
      hourlyLimit = 3600;
      pageSize = 200;
      counters.requests = 0;
      counters.writes = 0;
    },
    /** Counts a request against the key's rolling hour; returns the remaining allowance. */
    count(keyId: string): { limit: number; remaining: number } {
      const hourAgo = now() - 3600_000;
      const recent = (usage.get(keyId) ?? []).filter((t) => t > hourAgo);
      recent.push(now());
      usage.set(keyId, recent);
      return { limit: hourlyLimit, remaining: hourlyLimit - recent.length };
    },
    /** The listing texts of an app as a test sees them: locale → attribute → value. */
    snapshot(appId: string) {
      const out: Record<
        string,
        {
          appInfos: Record<string, Record<string, string | null>>;
          versions: Record<string, Record<string, string | null>>;
        }
      > = {};
      for (const info of [...appInfos.values()].filter((i) => i.appId === appId)) {
        for (const loc of [...infoLocs.values()].filter((l) => l.parentId === info.id)) {
          (out[info.id] ??= { appInfos: {}, versions: {} }).appInfos[loc.locale] = { ...loc.attributes };
        }
      }
      for (const version of [...versions.values()].filter((v) => v.appId === appId)) {
        for (const loc of [...versionLocs.values()].filter((l) => l.parentId === version.id)) {
          (out[version.id] ??= { appInfos: {}, versions: {} }).versions[loc.locale] = { ...loc.attributes };
        }
      }
      return out;
    },
    now,
  };
}

export type AppStoreState = ReturnType<typeof createAppStoreState>;

const b64json = (part: string) =>
  JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>;

/** Checks Apple's token rules (stores.md §1.1, §8): ES256, known kid, issuer, audience, ≤ 20 min. */
function authenticate(state: AppStoreState, header: string | undefined): string {
  const token = /^Bearer (.+)$/.exec(header ?? '')?.[1];
  const parts = token?.split('.');
  if (parts?.length !== 3)
    throw new AscFailure(401, NOT_AUTHORIZED.code, NOT_AUTHORIZED.title, NOT_AUTHORIZED.detail);
  try {
    const [head, body, signature] = parts as [string, string, string];
    const jose = b64json(head);
    const claims = b64json(body);
    const key = state.keys.get(String(jose.kid));
    const nowS = Math.floor(state.now() / 1000);
    const exp = Number(claims.exp);
    const iat = claims.iat === undefined ? undefined : Number(claims.iat);
    const valid =
      jose.alg === 'ES256' &&
      key !== undefined &&
      verify(
        'sha256',
        Buffer.from(`${head}.${body}`),
        { key: key.publicKey, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature, 'base64url'),
      ) &&
      claims.aud === 'appstoreconnect-v1' &&
      (claims.iss === key.issuerId || claims.sub === 'user') &&
      Number.isFinite(exp) &&
      exp > nowS &&
      exp - nowS <= MAX_TOKEN_LIFETIME_S &&
      (iat === undefined || (exp - iat <= MAX_TOKEN_LIFETIME_S && iat <= nowS + 60));
    if (!valid) throw new Error('invalid token');
    return String(jose.kid);
  } catch {
    throw new AscFailure(401, NOT_AUTHORIZED.code, NOT_AUTHORIZED.title, NOT_AUTHORIZED.detail);
  }
}

export function registerAppStoreEmulator(app: FastifyInstance, state: AppStoreState, faults: Faults): void {
  const spec = appStoreConnectSpec();
  const origin = (request: FastifyRequest) => `http://${request.headers.host ?? 'localhost'}`;

  /** Sends a body after checking it against the named response schema of Apple's spec. */
  const respond = (reply: FastifyReply, status: number, schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null) throw new Error(`emulator response does not match ${schema}: ${problem}`);
    return reply.code(status).type('application/json').send(body);
  };

  const sendFailure = (reply: FastifyReply, failure: AscFailure) =>
    respond(reply, failure.status, 'ErrorResponse', {
      errors: [
        {
          id: randomUUID(),
          status: String(failure.status),
          code: failure.code,
          title: failure.title,
          ...(failure.detail && { detail: failure.detail }),
          ...(failure.source && { source: failure.source }),
        },
      ],
    });

  const resource = (request: FastifyRequest, type: string, loc: Localization) => ({
    type,
    id: loc.id,
    // Apple leaves out unset attributes; the spec types them as non-null strings in responses.
    attributes: Object.fromEntries(
      Object.entries({ locale: loc.locale, ...loc.attributes }).filter(([, v]) => v !== null),
    ),
    links: { self: `${origin(request)}/v1/${type}/${loc.id}` },
  });

  /** A page of a collection: `limit` ≤ 200, opaque cursor, absolute links.next (stores.md §5). */
  function page<T>(request: FastifyRequest, items: T[]) {
    const query = request.query as Record<string, string | undefined>;
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      throw new AscFailure(
        400,
        'PARAMETER_ERROR.INVALID',
        'A parameter has an invalid value',
        `'${query.limit}' is not a valid value for limit; the maximum is 200`,
        { parameter: 'limit' },
      );
    }
    const offset = query.cursor === undefined ? 0 : Number(Buffer.from(query.cursor, 'base64url').toString());
    const size = Math.min(limit, state.pageSize);
    const slice = items.slice(offset, offset + size);
    const url = new URL(request.url, origin(request));
    // Re-serialized so that brackets of filter[...] are percent-encoded, as in Apple's links.
    url.search = new URLSearchParams(url.searchParams).toString();
    const self = url.toString();
    let next: string | undefined;
    if (offset + size < items.length) {
      url.searchParams.set('cursor', Buffer.from(String(offset + size)).toString('base64url'));
      next = url.toString();
    }
    return {
      slice,
      links: { self, ...(next && { next }) },
      meta: {
        paging: {
          total: items.length,
          limit,
          ...(next && { nextCursor: new URL(next).searchParams.get('cursor')! }),
        },
      },
    };
  }

  const checkAttributes = (attributes: Record<string, unknown>, allowed: string[]) => {
    for (const [name, value] of Object.entries(attributes)) {
      if (!allowed.includes(name)) {
        throw new AscFailure(
          409,
          'ENTITY_ERROR.ATTRIBUTE.UNKNOWN',
          'The provided entity includes an unknown attribute',
          `'${name}' is not a valid attribute for this request`,
          { pointer: `/data/attributes/${name}` },
        );
      }
      const limit = LIMITS[name];
      if (typeof value === 'string' && limit !== undefined && [...value].length > limit) {
        throw new AscFailure(
          409,
          'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_LONG',
          'There is a problem with the request entity',
          `The provided entity contains a field '${name}' whose value is too long. It cannot exceed ${limit} characters.`,
          { pointer: `/data/attributes/${name}` },
        );
      }
    }
  };

  const checkBody = (schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null)
      throw new AscFailure(409, 'ENTITY_ERROR', 'There is a problem with the request entity', problem);
  };

  app.register(
    async (scope) => {
      scope.addHook('onRequest', async (request, reply) => {
        state.counters.requests += 1;
        if (request.method !== 'GET') state.counters.writes += 1;
        const injected = await faults.apply(request, reply);
        if (injected === 'dropped') return reply;
        if (typeof injected === 'number') {
          const code =
            injected === 429
              ? 'RATE_LIMIT_EXCEEDED'
              : injected >= 500
                ? 'UNEXPECTED_ERROR'
                : `HTTP_${injected}`;
          return sendFailure(
            reply,
            new AscFailure(
              injected,
              code,
              injected === 429 ? 'The request rate limit has been reached.' : 'An unexpected error occurred.',
            ),
          );
        }
        const keyId = authenticate(state, request.headers.authorization);
        const usage = state.count(keyId);
        void reply.header(
          'X-Rate-Limit',
          `user-hour-lim:${usage.limit};user-hour-rem:${Math.max(usage.remaining, 0)};`,
        );
        if (usage.remaining < 0)
          throw new AscFailure(
            429,
            'RATE_LIMIT_EXCEEDED',
            'The request rate limit has been reached.',
            'We recommend retrying later.',
          );
      });
      scope.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
        if (error instanceof AscFailure) return sendFailure(reply, error);
        if ((error as { statusCode?: number }).statusCode === 400) {
          return sendFailure(
            reply,
            new AscFailure(
              400,
              'PARAMETER_ERROR.INVALID',
              'The request body is not valid JSON',
              error.message,
            ),
          );
        }
        return sendFailure(
          reply,
          new AscFailure(500, 'UNEXPECTED_ERROR', 'An unexpected error occurred.', error.message),
        );
      });
      scope.setNotFoundHandler((request, reply) =>
        sendFailure(
          reply,
          new AscFailure(
            404,
            'NOT_FOUND',
            'The specified resource does not exist',
            `The path provided does not match a defined resource type: ${request.url}`,
          ),
        ),
      );

      const appResource = (
        request: FastifyRequest,
        app: { id: string; bundleId: string; name: string; primaryLocale: string },
      ) => ({
        type: 'apps',
        id: app.id,
        attributes: {
          name: app.name,
          bundleId: app.bundleId,
          primaryLocale: app.primaryLocale,
          sku: app.bundleId,
        },
        links: { self: `${origin(request)}/v1/apps/${app.id}` },
      });

      scope.get('/apps', async (request, reply) => {
        const { slice, links, meta } = page(request, [...state.apps.values()]);
        return respond(reply, 200, 'AppsResponse', {
          data: slice.map((a) => appResource(request, a)),
          links,
          meta,
        });
      });

      const requireApp = (id: string) => {
        const found = state.apps.get(id);
        if (!found)
          throw new AscFailure(
            404,
            'NOT_FOUND',
            'The specified resource does not exist',
            `There is no resource of type 'apps' with id '${id}'`,
          );
        return found;
      };

      scope.get<{ Params: { id: string } }>('/apps/:id', async (request, reply) =>
        respond(reply, 200, 'AppResponse', {
          data: appResource(request, requireApp(request.params.id)),
          links: { self: `${origin(request)}/v1/apps/${request.params.id}` },
        }),
      );

      scope.get<{ Params: { id: string } }>('/apps/:id/appInfos', async (request, reply) => {
        requireApp(request.params.id);
        const infos = [...state.appInfos.values()].filter((i) => i.appId === request.params.id);
        const { slice, links, meta } = page(request, infos);
        return respond(reply, 200, 'AppInfosResponse', {
          data: slice.map((info) => ({
            type: 'appInfos',
            id: info.id,
            attributes: { state: info.state },
            links: { self: `${origin(request)}/v1/appInfos/${info.id}` },
          })),
          links,
          meta,
        });
      });

      scope.get<{ Params: { id: string } }>('/apps/:id/appStoreVersions', async (request, reply) => {
        requireApp(request.params.id);
        const query = request.query as Record<string, string | undefined>;
        const platforms = query['filter[platform]']?.split(',');
        const states = query['filter[appVersionState]']?.split(',');
        const list = [...state.versions.values()].filter(
          (v) =>
            v.appId === request.params.id &&
            (platforms === undefined || platforms.includes(v.platform)) &&
            (states === undefined || states.includes(v.appVersionState)),
        );
        const { slice, links, meta } = page(request, list);
        return respond(reply, 200, 'AppStoreVersionsResponse', {
          data: slice.map((v) => ({
            type: 'appStoreVersions',
            id: v.id,
            attributes: {
              platform: v.platform,
              versionString: v.versionString,
              appVersionState: v.appVersionState,
            },
            links: { self: `${origin(request)}/v1/appStoreVersions/${v.id}` },
          })),
          links,
          meta,
        });
      });

      const listLocalizations =
        (kind: 'appInfoLocalizations' | 'appStoreVersionLocalizations') =>
        async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
          const parents = kind === 'appInfoLocalizations' ? state.appInfos : state.versions;
          if (!parents.has(request.params.id))
            throw new AscFailure(
              404,
              'NOT_FOUND',
              'The specified resource does not exist',
              `No parent ${request.params.id}`,
            );
          const store = kind === 'appInfoLocalizations' ? state.infoLocs : state.versionLocs;
          const locale = (request.query as Record<string, string | undefined>)['filter[locale]']?.split(',');
          const items = [...store.values()].filter(
            (l) => l.parentId === request.params.id && (locale === undefined || locale.includes(l.locale)),
          );
          const { slice, links, meta } = page(request, items);
          const schema =
            kind === 'appInfoLocalizations'
              ? 'AppInfoLocalizationsResponse'
              : 'AppStoreVersionLocalizationsResponse';
          return respond(reply, 200, schema, {
            data: slice.map((l) => resource(request, kind, l)),
            links,
            meta,
          });
        };
      scope.get('/appInfos/:id/appInfoLocalizations', listLocalizations('appInfoLocalizations'));
      scope.get(
        '/appStoreVersions/:id/appStoreVersionLocalizations',
        listLocalizations('appStoreVersionLocalizations'),
      );

      /** Whether the parent container accepts edits of these attributes (stores.md §2.1 state rules). */
      const assertEditable = (
        kind: 'appInfoLocalizations' | 'appStoreVersionLocalizations',
        parentId: string,
        attributes: string[],
      ) => {
        if (kind === 'appInfoLocalizations') {
          const info = state.appInfos.get(parentId);
          if (info && !EDITABLE_INFO.has(info.state) && attributes.length > 0)
            throw stateError(attributes[0]!);
          return;
        }
        const version = state.versions.get(parentId);
        if (version === undefined) return;
        if (!EDITABLE_VERSION.has(version.appVersionState)) {
          const blocked = attributes.find((a) => a !== 'promotionalText');
          if (blocked !== undefined) throw stateError(blocked);
        }
        if (attributes.includes('whatsNew')) {
          const count = [...state.versions.values()].filter((v) => v.appId === version.appId).length;
          if (count === 1) throw stateError('whatsNew'); // an app's first version has no release notes
        }
      };

      for (const kind of ['appInfoLocalizations', 'appStoreVersionLocalizations'] as const) {
        const store = kind === 'appInfoLocalizations' ? state.infoLocs : state.versionLocs;
        const allowed = kind === 'appInfoLocalizations' ? INFO_ATTRIBUTES : VERSION_ATTRIBUTES;
        const singular =
          kind === 'appInfoLocalizations' ? 'AppInfoLocalization' : 'AppStoreVersionLocalization';

        scope.patch<{ Params: { id: string } }>(`/${kind}/:id`, async (request, reply) => {
          checkBody(`${singular}UpdateRequest`, request.body);
          const body = request.body as {
            data: { type: string; id: string; attributes?: Record<string, string | null> };
          };
          if (body.data.type !== kind || body.data.id !== request.params.id) {
            throw new AscFailure(
              409,
              'ENTITY_ERROR.INVALID_ID',
              'The provided entity id does not match the path',
              `Expected type '${kind}' and id '${request.params.id}'`,
              { pointer: '/data/id' },
            );
          }
          const loc = store.get(request.params.id);
          if (!loc)
            throw new AscFailure(
              404,
              'NOT_FOUND',
              'The specified resource does not exist',
              `There is no resource of type '${kind}' with id '${request.params.id}'`,
            );
          const attributes = body.data.attributes ?? {};
          checkAttributes(attributes, allowed);
          assertEditable(kind, loc.parentId, Object.keys(attributes));
          Object.assign(loc.attributes, attributes);
          return respond(reply, 200, `${singular}Response`, {
            data: resource(request, kind, loc),
            links: { self: `${origin(request)}/v1/${kind}/${loc.id}` },
          });
        });

        scope.post(`/${kind}`, async (request, reply) => {
          checkBody(`${singular}CreateRequest`, request.body);
          const body = request.body as {
            data: {
              type: string;
              attributes: Record<string, string | null> & { locale: string };
              relationships: Record<string, { data: { id: string } }>;
            };
          };
          if (body.data.type !== kind)
            throw new AscFailure(
              409,
              'ENTITY_ERROR.INVALID_TYPE',
              'The provided entity type is not valid',
              `Expected '${kind}'`,
              { pointer: '/data/type' },
            );
          const parentId = Object.values(body.data.relationships)[0]?.data.id ?? '';
          const parents = kind === 'appInfoLocalizations' ? state.appInfos : state.versions;
          if (!parents.has(parentId))
            throw new AscFailure(
              409,
              'ENTITY_ERROR.RELATIONSHIP.INVALID',
              'The provided entity has an invalid relationship',
              `No parent '${parentId}'`,
            );
          const { locale, ...attributes } = body.data.attributes;
          if (!APPSTORE_LOCALES.has(locale)) {
            const hint = [...APPSTORE_LOCALES].find((code) => code.toLowerCase() === locale.toLowerCase());
            throw new AscFailure(
              409,
              'ENTITY_ERROR.ATTRIBUTE.INVALID',
              'An attribute value is invalid.',
              `Check case sensitivity.${hint ? ` May be: ${hint}` : ''}`,
              { pointer: '/data/attributes/locale' },
            );
          }
          if ([...store.values()].some((l) => l.parentId === parentId && l.locale === locale)) {
            throw new AscFailure(
              409,
              'ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE',
              'The provided entity is a duplicate',
              `A localization for '${locale}' already exists`,
              { pointer: '/data/attributes/locale' },
            );
          }
          checkAttributes(attributes, allowed);
          assertEditable(kind, parentId, Object.keys(attributes));
          const loc: Localization = { id: randomUUID(), parentId, locale, attributes };
          store.set(loc.id, loc);
          return respond(reply, 201, `${singular}Response`, {
            data: resource(request, kind, loc),
            links: { self: `${origin(request)}/v1/${kind}/${loc.id}` },
          });
        });

        scope.delete<{ Params: { id: string } }>(`/${kind}/:id`, async (request, reply) => {
          const loc = store.get(request.params.id);
          if (!loc)
            throw new AscFailure(
              404,
              'NOT_FOUND',
              'The specified resource does not exist',
              `There is no resource of type '${kind}' with id '${request.params.id}'`,
            );
          assertEditable(kind, loc.parentId, ['locale']);
          store.delete(loc.id);
          return reply.code(204).send();
        });
      }
    },
    { prefix: '/v1' },
  );
}
