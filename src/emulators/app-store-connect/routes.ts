/**
 * An App Store Connect API emulator (tests, demos, benchmarks only): the routes of the resources
 * appmeta reads and writes, under Apple's auth and hourly rate limit, with fault injection — every
 * request and response checked against Apple's OpenAPI document (stores.md §8).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Faults } from '../faults.js';
import { appStoreConnectSpec } from '../spec-validator.js';
import { authenticate } from './auth.js';
import { AscFailure, notFoundError } from './errors.js';
import { createJsonApi } from './json-api.js';
import type { AppStoreState } from './state.js';
import { registerAssetRoute, registerMediaRoutes, registerUploadRoute } from './media.js';
import { registerVersionRoutes } from './versions.js';
import { registerPhasedReleaseRoutes } from './phased-releases.js';
import { registerDetailsRoutes } from './app-details.js';
import { registerLocalizationWrites } from './writes.js';
import { registerPurchaseRoutes } from './purchases.js';
import { registerProductPageRoutes } from './product-pages.js';
import { registerAppEventRoutes } from './app-events.js';

export function registerAppStoreEmulator(app: FastifyInstance, state: AppStoreState, faults: Faults): void {
  const spec = appStoreConnectSpec();
  const api = createJsonApi(state, spec);
  const { origin, respond, sendFailure, resource, page } = api;
  const purchases = registerPurchaseRoutes(state, spec, api);
  const productPages = registerProductPageRoutes(state, state.marketing, spec, api);
  const appEvents = registerAppEventRoutes(state, state.marketing, spec, api);
  registerUploadRoute(app, state);
  registerAssetRoute(app, state);

  /** Apple's checks before every API request and its error bodies, on each version prefix. */
  const guard = (scope: FastifyInstance) => {
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
      const keyId = await authenticate(state, request.headers.authorization);
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
          new AscFailure(400, 'PARAMETER_ERROR.INVALID', 'The request body is not valid JSON', error.message),
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
  };

  app.register(
    async (scope) => {
      guard(scope);

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
        if (!found) throw notFoundError('apps', id);
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

      registerLocalizationWrites(scope, state, spec, api);
      registerVersionRoutes(scope, state, spec, api);
      registerDetailsRoutes(scope, state, spec, api);
      registerPhasedReleaseRoutes(scope, state, spec, api);
      registerMediaRoutes(scope, state, spec, api);
      purchases.v1(scope);
      productPages(scope);
      appEvents(scope);
    },
    { prefix: '/v1' },
  );
  app.register(
    async (scope) => {
      guard(scope);
      purchases.v2(scope);
    },
    { prefix: '/v2' },
  );
}
