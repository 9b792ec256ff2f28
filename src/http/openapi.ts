/**
 * What the OpenAPI document says beyond what @fastify/swagger derives from the route schemas,
 * so that a client generated from it (openapi-typescript, openapi-fetch) compiles the calls this
 * API accepts: a body that routes default when left out is optional, a route that reads a raw
 * upload (`consumes`, no body schema) takes a binary body of those types, and a caller's POST
 * takes an Idempotency-Key.
 */
import type { FastifyInstance } from 'fastify';
import { optionalBody } from './hooks.js';
import { addExamples } from './openapi-examples.js';
import { documentResponses, ERROR_RESPONSES, HEADERS } from './openapi-responses.js';

const OPTIONAL = 'x-appmeta-optional-body';
const BINARY = 'x-appmeta-binary-body';

/** Marks the routes as they are registered; call before any route. */
export function markDocumentedBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as
      (Record<string, unknown> & { body?: unknown; consumes?: string[] }) | undefined;
    if (schema === undefined) return;
    const hooks = [route.preValidation].flat();
    if (schema.body !== undefined && hooks.includes(optionalBody)) schema[OPTIONAL] = true;
    if (schema.body === undefined && Array.isArray(schema.consumes)) schema[BINARY] = schema.consumes;
  });
}

type Operation = Record<string, unknown> & {
  requestBody?: { required?: boolean; content?: unknown };
  parameters?: unknown[];
  security?: unknown[];
};

/** design.md §11: every POST made by a caller may carry one (src/http/idempotency.ts). */
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Send the same key again with the same request within 24 h to get the first response replayed ' +
    '(`Idempotent-Replayed: true`) instead of running it twice; another request with the key is 422 ' +
    'IDEMPOTENCY_KEY_REUSED, and while the first still runs, 409. A key belongs to its caller (the API key, or ' +
    "the session's member): another caller's identical key is unrelated; a replay checks the caller's current role.",
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

/**
 * @fastify/swagger's transformObject: applies the marks, documents each operation's error
 * statuses and headers (openapi-responses.ts), and answers the document.
 */
export function finishDocument<T extends { paths?: object; components?: object }>(document: T): T {
  for (const item of Object.values(document.paths ?? {}) as Record<string, unknown>[]) {
    for (const [method, operation] of Object.entries(item) as [string, Operation][]) {
      if (typeof operation !== 'object' || operation === null) continue;
      const signedIn = Array.isArray(operation.security) && operation.security.length > 0;
      if (method === 'post' && signedIn && !Array.isArray(operation[BINARY])) {
        operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY];
      }
      if (operation[OPTIONAL] === true && operation.requestBody !== undefined)
        operation.requestBody.required = false;
      if (Array.isArray(operation[BINARY])) {
        operation.requestBody = {
          required: true,
          content: Object.fromEntries(
            (operation[BINARY] as string[]).map((type) => [
              type,
              { schema: { type: 'string', format: 'binary' } },
            ]),
          ),
        };
      }
      delete operation[OPTIONAL];
      delete operation[BINARY];
    }
  }
  documentResponses((document.paths ?? {}) as Parameters<typeof documentResponses>[0]);
  addExamples((document.paths ?? {}) as Parameters<typeof addExamples>[0]);
  document.components = { ...document.components, headers: HEADERS, responses: ERROR_RESPONSES };
  return document;
}

/**
 * The document as seen from one request: its first server is the address the request came in
 * on, so that "Try it out" in /docs and a client pointed at the document reach this instance
 * whether it was opened as localhost, 127.0.0.1 or a LAN name; PUBLIC_URL follows when it differs.
 */
export function documentFor<T extends object>(
  document: T,
  request: { protocol: string; host: string },
  publicUrl: string,
): T & { servers: { url: string; description: string }[] } {
  const origin = `${request.protocol}://${request.host}`;
  const configured = publicUrl.replace(/\/+$/, '');
  const servers = [{ url: origin, description: 'The address this document was requested on' }];
  if (configured !== origin) servers.push({ url: configured, description: 'PUBLIC_URL' });
  return { ...document, servers };
}
