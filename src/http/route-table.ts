/**
 * Every route the app registers, as it registers them: method, URL pattern and operation id. The
 * 405 answer reads it (is there a route for this path under another method?), and the test of
 * the role table checks that every route's operation has an entry there.
 */
import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  method: string;
  url: string;
  operationId: string | undefined;
  /** The route's response schemas by status, as declared (TypeBox, i.e. JSON Schema). */
  responses: Record<string, unknown> | undefined;
  /** Matches a concrete path of this route (parameters as any segment). */
  pattern: RegExp;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Starts recording routes; call before any route is registered. Answers the live list. */
export function recordRoutes(app: FastifyInstance): RouteEntry[] {
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    const pattern = new RegExp(
      `^${route.url
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : escape(part)))
        .join('/')}/?$`,
    );
    for (const method of [route.method].flat()) {
      routes.push({
        method,
        url: route.url,
        pattern,
        // Read when asked: onRoute hooks of plugin scopes (the dashboard's assets) run after this one.
        get operationId() {
          return route.schema?.operationId;
        },
        get responses() {
          return route.schema?.response as Record<string, unknown> | undefined;
        },
      });
    }
  });
  return routes;
}

const isCatchAll = (route: RouteEntry) => route.url === '*' || route.url === '/*';

/**
 * The methods registered for a concrete path, sorted; empty when no route has this path. A
 * catch-all route (CORS preflight: OPTIONS *) adds its method but does not make a path exist.
 */
export function methodsFor(routes: RouteEntry[], path: string): string[] {
  const matching = routes.filter((route) => route.pattern.test(path));
  if (matching.every(isCatchAll)) return [];
  return [...new Set(matching.map((route) => route.method))].sort();
}

/**
 * The `data` schema of an operation's success answer (its 200, 201 or 202 envelope), as the route
 * declares it: what an MCP tool over the same domain function answers too.
 */
export function successDataSchema(routes: RouteEntry[], operationId: string): object | undefined {
  const route = routes.find((r) => r.operationId === operationId);
  for (const status of ['200', '201', '202']) {
    const envelope = route?.responses?.[status] as { properties?: { data?: object } } | undefined;
    if (envelope?.properties?.data !== undefined) return envelope.properties.data;
  }
  return undefined;
}
