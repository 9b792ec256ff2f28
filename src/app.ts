/**
 * buildApp wires the HTTP adapter: plugins, error handling, identity, and every module's routes.
 * It does not listen; server.ts and the tests do.
 */
import fastifyCors from '@fastify/cors';
import fastifySwagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import { identityVersionKey } from './db/identity-version.js';
import { createLogger, requestLogger } from './logger.js';
import { serviceUnavailable } from './errors.js';
import type { Api } from './http/api.js';
import { ok } from './http/envelope.js';
import { registerMetrics } from './http/metrics-route.js';
import { createMetrics, type Metrics } from './metrics/index.js';
import { registerDashboard } from './http/dashboard.js';
import {
  createClientErrorHandler,
  createFrameworkErrorHandler,
  MAX_PARAM_LENGTH,
  registerErrorHandlers,
  type ClientPages,
} from './http/error-handler.js';
import { genReqId } from './http/request-id.js';
import { documentFor, finishDocument, markDocumentedBodies } from './http/openapi.js';
import { registerReferencePage } from './http/reference-page.js';
import { recordRoutes, type RouteEntry } from './http/route-table.js';
import { registerIdempotency } from './http/idempotency.js';
import { registerIdentity, requireCaller } from './http/identity.js';
import { createSessionCookies } from './http/session-cookie.js';
import { registerInFlightWork } from './http/in-flight.js';
import { registerJsonBodyParser, registerNulUrlGuard } from './http/json-body.js';
import { registerRateLimit, type ChargeRequests } from './http/rate-limit.js';
import { createRateLimiter, type RateLimiter } from './http/rate-limiter.js';
import { ERRORS, ErrorResponse, Ok, PUBLIC } from './http/schemas.js';
import { createValidatorCompiler } from './http/validation.js';
import { createDeferredCompilation, deferredSerializers } from './http/deferred-compilation.js';
import { mcpRoutes } from './mcp/routes.js';
import { apiKeyRoutes } from './modules/api-keys/index.js';
import { credentialRoutes } from './modules/credentials/index.js';
import { dashboardInviteRoutes, inviteRoutes } from './modules/invites/index.js';
import { listingRoutes } from './modules/listings/index.js';
import { mediaRoutes } from './modules/media/index.js';
import { releaseControlRoutes, releaseRoutes } from './modules/releases/index.js';
import { marketingRoutes, productRoutes } from './modules/products/index.js';
import { detailRoutes } from './modules/details/index.js';
import { scheduleRoutes } from './modules/schedules/index.js';
import { translationRoutes } from './modules/translations/index.js';
import { localeRoutes } from './modules/locales/index.js';
import { memberRoutes } from './modules/members/index.js';
import { ANONYMOUS_REQUESTS_PER_MINUTE, organizationRoutes } from './modules/organizations/index.js';
import { projectRoutes } from './modules/projects/index.js';
import { sessionRoutes } from './modules/sessions/index.js';
import { syncRoutes } from './modules/sync/index.js';
import { eventsRoutes } from './modules/events/index.js';
import { webhookRoutes } from './modules/webhooks/index.js';
import { createServices, type Services } from './services.js';
import { resolveKeyRing, type KeyRing } from './shared/key-ring.js';
import type { ConnectorFactory } from './connectors/store-connector.js';
import { systemClock, type Clock } from './shared/clock.js';

export interface AppDeps {
  config: Config;
  db: Db;
  clock?: Clock;
  /** Overrides the logger (tests capture log lines with it). */
  logger?: Logger;
  /** Shares one limiter between several apps of a test; by default made from config.redisUrl. */
  rateLimiter?: RateLimiter;
  /** The keys of stored credentials; by default resolved from config (see resolveKeyRing). */
  keyRing?: KeyRing;
  connectors?: ConnectorFactory;
  lockWaitMs?: number;
  /** What the instance reports to GET /metrics; by default kept when METRICS_TOKEN is set. */
  metrics?: Metrics;
}

const BODY_LIMIT_BYTES = 1024 * 1024;
/** Longest time a client may take to send a request; slow-loris connections are cut after it. */
const REQUEST_TIMEOUT_MS = 30_000;

const API_DESCRIPTION = `Manage the store-listing metadata of mobile apps on the App Store and Google Play.

Authenticate with an API key: \`Authorization: Bearer amk_...\`. Every response uses the envelope
\`{"success": true, "data": {...}}\` or \`{"success": false, "error": {"code", "message", "details?"}}\` and carries
\`X-Request-Id\`. The same routes are served under \`/v1\`.`;

export async function buildApp(
  deps: AppDeps,
): Promise<{ app: Api; services: Services; routes: RouteEntry[]; compileSchemas: () => number }> {
  const { config, db } = deps;
  const clock = deps.clock ?? systemClock;
  const logger = deps.logger ?? createLogger(config);
  const metrics = deps.metrics ?? createMetrics(config);
  const services = createServices({
    db,
    clock,
    config,
    metrics,
    keyRing: deps.keyRing ?? resolveKeyRing(config, logger),
    log: logger,
    ...(deps.connectors && { connectors: deps.connectors }),
    ...(deps.lockWaitMs !== undefined && { lockWaitMs: deps.lockWaitMs }),
  });
  // Typed as Fastify's logger so that the app keeps Fastify's default logger type parameter.
  const fastifyLogger: FastifyBaseLogger = logger;
  const rateLimiter =
    deps.rateLimiter ??
    createRateLimiter({
      redisUrl: config.redisUrl,
      log: logger,
      identityVersionKey: identityVersionKey(config.database),
    });

  // Errors raised below the router get the same envelope; they are charged to the rate limit
  // like any request, once the limiter is registered (below).
  let chargeRequests: ChargeRequests | null = null;
  const deferred = createDeferredCompilation();
  const app = Fastify({
    loggerInstance: fastifyLogger,
    childLoggerFactory: (parent, bindings, options) => requestLogger(parent as Logger, bindings, options),
    genReqId,
    frameworkErrors: createFrameworkErrorHandler(() => chargeRequests),
    clientErrorHandler: createClientErrorHandler(rateLimiter, ANONYMOUS_REQUESTS_PER_MINUTE),
    bodyLimit: BODY_LIMIT_BYTES,
    requestTimeout: REQUEST_TIMEOUT_MS,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    rewriteUrl: versionOneAlias,
    schemaController: { compilersFactory: { buildSerializer: deferredSerializers(deferred) } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const routes = recordRoutes(app);
  markDocumentedBodies(app);
  const inFlight = registerInFlightWork(app);
  app.addSchema(ErrorResponse);
  app.setValidatorCompiler(createValidatorCompiler([ErrorResponse], deferred));
  const pages: ClientPages = { send: null };
  registerErrorHandlers(app, routes, pages);
  registerJsonBodyParser(app);
  // Hooks that never wait take a callback: an async hook costs each request a promise and a turn.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done();
  });
  registerNulUrlGuard(app);
  const cookies = createSessionCookies(config.publicUrl);
  const confirmCaller = registerIdentity(
    app,
    {
      key: (authorization, options) => services.apiKeys.authenticate(authorization, options),
      session: (token) => services.sessions.authenticate(token),
      confirm: (caller, identityVersion) => services.apiKeys.confirm(caller, identityVersion),
    },
    cookies,
  );
  const charge = registerRateLimit(app, rateLimiter, ANONYMOUS_REQUESTS_PER_MINUTE, confirmCaller);
  chargeRequests = charge;
  registerIdempotency(app, services.idempotency);
  // onClose runs once the server accepts nothing more. Requests already in it may still be on
  // their way to the rate limiter and the database: the limiter closes after them, and the
  // database (closed by whoever opened it) after app.close().
  app.addHook('onClose', async () => {
    await inFlight.idle();
    services.eventStream.close();
    await services.queue.close();
    await services.blobs.close();
    if (deps.rateLimiter === undefined) await rateLimiter.close();
  });

  if (config.corsOrigins.length > 0) await registerCors(app, config.corsOrigins);

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'appmeta API',
        version: '1.0.0',
        description: API_DESCRIPTION,
        // The service's own terms: no open-source licence applies to this API.
        license: { name: 'Proprietary', identifier: 'LicenseRef-appmeta-proprietary' },
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (amk_...) of a member' },
          sessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'appmeta_session',
            description:
              'The dashboard session. A state-changing request signed in by it alone needs `X-Appmeta-CSRF: 1` ' +
              "and an `Origin` equal to PUBLIC_URL's origin, else 403 FORBIDDEN.",
          },
        },
      },
      tags: [
        { name: 'projects', description: 'Apps and their store links, sync and push' },
        {
          name: 'listings',
          description:
            'Per-store, per-locale listing texts: edit, diff, history, approvals, fastlane import/export',
        },
        { name: 'organization', description: 'The organization, its settings and audit log' },
        { name: 'members', description: 'Members, roles and invites' },
        { name: 'api-keys', description: 'API keys of members' },
        { name: 'credentials', description: 'Store credentials of the organization (admins)' },
        { name: 'webhooks', description: 'Signed webhook deliveries of events, and their log (admins)' },
        { name: 'events', description: 'The live stream of the organization’s events' },
        {
          name: 'dashboard',
          description:
            'The web dashboard: invite links, sign-in, sessions, passkeys. A state change here sent without an ' +
            "API key (every sign-in) needs `X-Appmeta-CSRF: 1` and an `Origin` equal to PUBLIC_URL's, else 403; " +
            'accepting an invite without them works but sets no cookie.',
        },
        { name: 'health', description: 'Probes for load balancers' },
      ],
    },
    transformObject: (document) =>
      'openapiObject' in document ? finishDocument(document.openapiObject) : document.swaggerObject,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string | undefined) ?? `def-${i}`,
    },
  });
  await registerReferencePage(app, config.publicUrl);

  healthRoutes(app, db);
  metrics.watch({
    queueDepth: () => services.queue.depth(),
    pool: () => db.poolUse(),
    rateLimits: () => rateLimiter.metrics,
  });
  registerMetrics(app, metrics, config.metricsToken);

  app.get('/api/v1/openapi.json', { schema: { hide: true, operationId: 'openapi.get' } }, async (request) =>
    documentFor(app.swagger(), request, config.publicUrl),
  );

  await app.register(
    async (api: Api) => {
      api.addHook('onRequest', requireCaller);
      versionOneRoutes(api, services);
    },
    { prefix: '/api/v1' },
  );
  mcpRoutes(app, services, charge, routes);
  await app.register(
    async (dashboard: Api) => {
      dashboard.addHook('onRequest', cookies.checkSignIn);
      dashboardInviteRoutes(dashboard, services, cookies);
      sessionRoutes(dashboard, services, cookies);
    },
    { prefix: '/api/dashboard' },
  );

  pages.send = await registerDashboard(app);

  return { app, services, routes, compileSchemas: deferred.compileAll };
}

/**
 * The same routes under /v1 as under /api/v1 (design.md §1): the path is rewritten before routing,
 * so each route is registered, compiled and held in memory once. Logs and 404s name the path as
 * sent (request.originalUrl).
 */
function versionOneAlias(request: { url?: string }): string {
  const url = request.url ?? '/';
  return url.startsWith('/v1') && (url.length === 3 || url[3] === '/' || url[3] === '?') ? `/api${url}` : url;
}

/**
 * Opt-in CORS (CORS_ORIGINS): preflights from the listed origins are answered without a key, and
 * responses let the browser read the headers clients act on. Keys travel in Authorization, never
 * in cookies, so credentials mode stays off.
 */
async function registerCors(app: Api, origins: readonly string[]): Promise<void> {
  await app.register(fastifyCors, {
    origin: origins[0] === '*' ? '*' : [...origins],
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Idempotency-Key'],
    exposedHeaders: [
      'X-Request-Id',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Retry-After',
      'Content-Disposition',
      'Idempotent-Replayed',
    ],
    maxAge: 600,
  });
}

function versionOneRoutes(api: Api, services: Services): void {
  projectRoutes(api, services);
  syncRoutes(api, services);
  listingRoutes(api, services);
  mediaRoutes(api, services);
  releaseRoutes(api, services);
  productRoutes(api, services);
  marketingRoutes(api, services);
  detailRoutes(api, services);
  releaseControlRoutes(api, services);
  scheduleRoutes(api, services);
  translationRoutes(api, services);
  organizationRoutes(api, services);
  memberRoutes(api, services);
  inviteRoutes(api, services);
  apiKeyRoutes(api, services);
  credentialRoutes(api, services);
  localeRoutes(api, services);
  webhookRoutes(api, services);
  eventsRoutes(api, services);
}

function healthRoutes(app: Api, db: Db): void {
  app.get('/healthz', {
    schema: {
      operationId: 'health.live',
      tags: ['health'],
      security: PUBLIC,
      summary: 'The process is up',
      description:
        'Answers 200 while the process runs, whatever its dependencies: for a liveness probe. Never rate-limited.',
      response: { 200: Ok(Type.Object({ status: Type.Literal('ok') })) },
    },
    handler: async () => ok({ status: 'ok' as const }),
  });
  app.get('/readyz', {
    schema: {
      operationId: 'health.ready',
      tags: ['health'],
      security: PUBLIC,
      summary: 'The database answers',
      description: '503 while the database cannot be reached.',
      response: { 200: Ok(Type.Object({ status: Type.Literal('ready') })), ...ERRORS },
    },
    handler: async () => {
      if (!(await db.ping())) throw serviceUnavailable('The database is not reachable');
      return ok({ status: 'ready' as const });
    },
  });
}
