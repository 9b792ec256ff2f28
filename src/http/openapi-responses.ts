/**
 * The responses of every operation as a generated client needs them: each error status that can
 * happen, with the error envelope, instead of a `4XX`/`5XX` range, and the headers the service
 * sets — the rate-limit headers on every answer, `Retry-After` with 429 and 503, `Location` with
 * 202, `Idempotent-Replayed` on a caller's POST, `Cache-Control` where a route sets one.
 */

type Responses = Record<string, Record<string, unknown>>;
type Operation = Record<string, unknown> & {
  operationId?: string;
  requestBody?: unknown;
  parameters?: { in?: string }[];
  security?: unknown[];
  responses?: Responses;
};

const ERROR = { $ref: '#/components/schemas/ErrorResponse' };
const header = (description: string, schema: object = { type: 'integer' }) => ({ description, schema });

/** Shared headers, referenced from the responses. */
export const HEADERS = {
  'X-RateLimit-Limit': header("Requests per minute of the caller's budget (the plan's, or the client IP's)"),
  'X-RateLimit-Remaining': header('Requests left in the current window'),
  'X-RateLimit-Reset': header('When the window resets (Unix time, seconds)'),
  'Retry-After': header('Seconds to wait before trying again'),
  'Idempotent-Replayed': header(
    '`true` when this is the stored answer to an earlier request with the same Idempotency-Key',
    {
      type: 'string',
      enum: ['true'],
    },
  ),
  Location: header('Where the queued operation is read', { type: 'string' }),
  'Cache-Control': header('How the answer may be cached', { type: 'string' }),
};

const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE = {
  'X-RateLimit-Limit': ref('X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('X-RateLimit-Reset'),
};

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400': 'INVALID_REQUEST: the request is malformed or a field is invalid; `details` names every field',
  '401': 'UNAUTHORIZED: no valid API key or session',
  '403': 'FORBIDDEN (the role or scope does not allow it), APPROVAL_REQUIRED or USAGE_LIMIT_EXCEEDED',
  '404': 'NOT_FOUND: the resource does not exist or is outside the caller’s scope',
  '409': 'CONFLICT: the state does not allow it now (a running operation, a moved diff, a store refusal)',
  '413': 'INVALID_REQUEST: the body is larger than this route accepts',
  '415': 'INVALID_REQUEST: the Content-Type is not one this route accepts',
  '422': 'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key was used with another request',
  '429': 'RATE_LIMIT_EXCEEDED: the budget of this minute is spent; retry after `Retry-After` seconds',
  '500': 'INTERNAL_ERROR: something failed on our side; the log has it under the request id',
  '503': 'SERVICE_UNAVAILABLE: a dependency is unreachable for a moment; retry after `Retry-After` seconds',
};

/** Shared error responses, referenced from the operations. */
export const ERROR_RESPONSES = Object.fromEntries(
  Object.entries(ERROR_DESCRIPTIONS).map(([status, description]) => [
    `Error${status}`,
    {
      description,
      headers: {
        ...RATE,
        ...((status === '429' || status === '503') && { 'Retry-After': ref('Retry-After') }),
      },
      content: { 'application/json': { schema: ERROR } },
    },
  ]),
);

/** Routes that set a Cache-Control of their own, by operation id. */
const CACHE_CONTROL: Record<string, string> = {
  'media.download': 'private, max-age=31536000, immutable',
  'events.stream': 'no-cache',
  'apiKeys.create': 'no-store',
  'dashboard.signInLinks.create': 'no-store',
  'dashboard.invites.accept': 'no-store',
  'dashboard.session.create': 'no-store',
  'dashboard.signInLinks.redeem': 'no-store',
  'dashboard.passkeys.authenticate': 'no-store',
};

/** Probes are never rate-limited and answer no error of a caller's. */
const PROBES = new Set(['health.live', 'health.ready']);

/** The error statuses an operation can answer, from what it takes and who may call it. */
function errorStatuses(method: string, operation: Operation, path: string): string[] {
  const signedIn = Array.isArray(operation.security) && operation.security.length > 0;
  const writes = method !== 'get' && method !== 'head';
  const takesInput =
    operation.requestBody !== undefined ||
    (operation.parameters ?? []).some((p) => p.in === 'query' || p.in === 'path');
  const statuses = ['500', '503', '429'];
  if (takesInput) statuses.push('400');
  // A sign-in refuses a wrong credential (401) and, sent from a page without its CSRF proof, 403.
  const dashboardWrite = writes && path.startsWith('/api/dashboard/');
  if (signedIn || dashboardWrite) statuses.push('401', '403');
  if (path.includes('{')) statuses.push('404');
  if (writes && (signedIn || dashboardWrite)) statuses.push('409');
  if (method === 'post' && signedIn) statuses.push('422');
  if (operation.requestBody !== undefined) statuses.push('413', '415');
  return statuses.sort();
}

/** Replaces the error ranges of each operation with its statuses, and documents its headers. */
export function documentResponses(paths: Record<string, Record<string, Operation>>): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (typeof operation !== 'object' || operation === null || operation.responses === undefined) continue;
      const responses = operation.responses;
      for (const range of ['4XX', '5XX', '4xx', '5xx']) delete responses[range];
      const id = operation.operationId ?? '';
      if (PROBES.has(id)) {
        // Never limited as sent; with a query string a probe is another URL, counted like any.
        responses['429'] ??= { $ref: '#/components/responses/Error429' };
        responses['503'] ??= { $ref: '#/components/responses/Error503' };
        continue;
      }
      const signedIn = Array.isArray(operation.security) && operation.security.length > 0;
      for (const [status, response] of Object.entries(responses)) {
        if (!status.startsWith('2')) continue;
        response.headers = {
          ...RATE,
          ...(status === '202' && { Location: ref('Location') }),
          ...(method === 'post' && signedIn && { 'Idempotent-Replayed': ref('Idempotent-Replayed') }),
          ...(CACHE_CONTROL[id] !== undefined && { 'Cache-Control': ref('Cache-Control') }),
          ...(response.headers as object | undefined),
        };
      }
      for (const status of errorStatuses(method, operation, path)) {
        responses[status] ??= { $ref: `#/components/responses/Error${status}` };
      }
    }
  }
}
