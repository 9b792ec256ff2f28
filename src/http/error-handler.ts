import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, UNAVAILABLE_RETRY_AFTER_S, type ErrorDetail } from '../errors.js';
import { sanitizeUrl } from '../logger.js';
import { isClientRoute } from './dashboard.js';
import type { RateLimiter } from './rate-limiter.js';
import type { ChargeRequests } from './rate-limit.js';
import { nextRequestId } from './request-id.js';
import { methodsFor, type RouteEntry } from './route-table.js';

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  /** The value checked (the validator runs with ajv's `verbose`). */
  data?: unknown;
  /** The schema of the value (verbose too): its description and examples say a pattern in words. */
  parentSchema?: { description?: string; examples?: unknown[] };
}

/** Formats in words, with an example, instead of the format's name. */
const FORMAT_WORDS: Record<string, string> = {
  'date-time': 'a date and time, like 2026-11-28T09:30:00Z',
  uri: 'a full URL, like https://example.com/privacy',
  email: 'an e-mail address',
};

/** `/settings/defaultLocale` → `settings.defaultLocale`; `/locales/0` → `locales[0]`. */
function fieldOf(error: AjvError): string {
  const segments = error.instancePath.split('/').filter(Boolean);
  if (error.keyword === 'required') segments.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') segments.push(String(error.params.additionalProperty));
  return segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
    '',
  );
}

function describe(error: AjvError): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).map(String).join(', ')}`;
    case 'maxLength':
      return `must be at most ${String(error.params.limit)} characters`;
    case 'minLength':
      return error.params.limit === 1
        ? 'must not be empty'
        : `must be at least ${String(error.params.limit)} characters`;
    case 'pattern': {
      // A person reads the rule in words, not the regular expression behind it.
      const { description, examples } = error.parentSchema ?? {};
      const first = examples?.[0];
      const example = typeof first === 'string' || typeof first === 'number' ? `, like ${first}` : '';
      return description === undefined
        ? 'is not in the right form'
        : `is not in the right form: ${description}${example}`;
    }
    case 'format': {
      const words = FORMAT_WORDS[String(error.params.format)];
      return words === undefined ? (error.message ?? 'is invalid') : `must be ${words}`;
    }
    default:
      return error.message ?? 'is invalid';
  }
}

/** A broken length rule carries the limit and the value's length, as the domain's own checks do. */
function lengthOf(error: AjvError): Pick<ErrorDetail, 'limit' | 'length'> {
  if (error.keyword !== 'maxLength' && error.keyword !== 'minLength') return {};
  const limit = Number(error.params.limit);
  return typeof error.data === 'string' ? { limit, length: [...error.data].length } : { limit };
}

export function validationDetails(errors: AjvError[], part: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    // A union (e.g. string | null) reports each branch; the "anyOf" summary adds nothing.
    if (error.keyword === 'anyOf') continue;
    const field = fieldOf(error) || part;
    if (!details.some((d) => d.field === field))
      details.push({ field, message: describe(error), ...lengthOf(error) });
  }
  return details;
}

/** Maps anything thrown while serving a request to the AppError that the client will see. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const fastifyError = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  if (Array.isArray(fastifyError.validation)) {
    const part = fastifyError.validationContext ?? 'request';
    const details = validationDetails(fastifyError.validation, part);
    const summary = details.map((d) => `${d.field} ${d.message}`).join('; ');
    const label = part === 'body' ? 'body' : part === 'querystring' ? 'query' : part;
    return new AppError('INVALID_REQUEST', `Invalid ${label}: ${summary}`, details);
  }
  switch (fastifyError.code) {
    case 'FST_ERR_BAD_URL':
      return new AppError('INVALID_REQUEST', 'The URL is not valid: it holds a malformed percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError(
        'INVALID_REQUEST',
        `A segment of the URL path is longer than ${MAX_PARAM_LENGTH} characters`,
        undefined,
        414,
      );
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('INVALID_REQUEST', 'Content-Type must be application/json', undefined, 415);
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('INVALID_REQUEST', 'The request body is too large', undefined, 413);
  }
  const status = fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // The framework's own client errors (bad content length, malformed URL...) have safe messages.
    return status === 404
      ? new AppError('NOT_FOUND', fastifyError.message)
      : new AppError('INVALID_REQUEST', fastifyError.message, undefined, status);
  }
  return new AppError('INTERNAL_ERROR', 'Internal server error');
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  if (error.code === 'UNAUTHORIZED') {
    // RFC 6750 §3: say that a bearer token is expected, and whether the one given was refused.
    reply.header(
      'WWW-Authenticate',
      request.headers.authorization === undefined
        ? 'Bearer realm="appmeta"'
        : 'Bearer realm="appmeta", error="invalid_token"',
    );
  }
  if (error.code === 'SERVICE_UNAVAILABLE') reply.header('Retry-After', UNAVAILABLE_RETRY_AFTER_S);
  const message =
    error.code === 'INTERNAL_ERROR' ? `${error.message} (request id ${request.id})` : error.message;
  return reply.status(error.status).send({
    success: false,
    error: { code: error.code, message, ...(error.details !== undefined && { details: error.details }) },
  });
}

/** Longest path parameter the router takes (Fastify's maxParamLength); longer is 414. */
export const MAX_PARAM_LENGTH = 200;

/**
 * Fastify's `frameworkErrors`: errors found before routing (a malformed percent-encoding, a path
 * segment over MAX_PARAM_LENGTH). No hook has run for them, so the request id and the rate limit
 * are applied here; the answer is the usual envelope.
 */
export function createFrameworkErrorHandler(charge: () => ChargeRequests | null) {
  const answer = async (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    reply.header('X-Request-Id', request.id);
    let appError = toAppError(error);
    try {
      await charge()?.(request, reply, 1);
    } catch (limited) {
      appError = toAppError(limited);
    }
    request.log.info({ code: appError.code, status: appError.status }, appError.message);
    await sendError(request, reply, appError);
  };
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void answer(error, request, reply);
  };
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before Fastify sees a request
 * (headers or URL over 16 KiB, a request that arrived too slowly, bytes that are not HTTP). The
 * answer is written on the socket, in the envelope, with a request id and the rate-limit headers
 * of the client's IP, and the connection is closed.
 */
export function createClientErrorHandler(limiter: RateLimiter, anonymousPerMinute: number) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const [status, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'The request headers, URL included, are larger than 16 KiB']
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'The request did not arrive in time']
          : [400, 'The request is not valid HTTP'];
    void limiter.take(`ip:${socket.remoteAddress}`, anonymousPerMinute).then((decision) => {
      const body = JSON.stringify({ success: false, error: { code: 'INVALID_REQUEST', message } });
      const head = [
        `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
        'Content-Type: application/json; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        `X-Request-Id: ${nextRequestId()}`,
        `X-RateLimit-Limit: ${decision.limit}`,
        `X-RateLimit-Remaining: ${decision.remaining}`,
        `X-RateLimit-Reset: ${decision.resetAt}`,
        'Connection: close',
      ];
      if (socket.writable) socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
      socket.destroy();
    });
  };
}

/** The error handler and the 404/405 handler; `routes` tells a wrong method from an unknown path. */
/** Answers a page of the dashboard (index.html), once it is registered; null while there is none. */
export interface ClientPages {
  send: ((reply: FastifyReply) => FastifyReply) | null;
}

export function registerErrorHandlers(app: FastifyInstance, routes: RouteEntry[], pages: ClientPages): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.code === 'SERVICE_UNAVAILABLE') {
      request.log.warn({ err: appError.cause ?? error }, appError.message);
    } else if (appError.status >= 500) {
      request.log.error({ err: error }, 'request failed');
    } else {
      request.log.info({ code: appError.code, status: appError.status }, appError.message);
    }
    return sendError(request, reply, appError);
  });

  app.setNotFoundHandler((request, reply) => {
    if (pages.send !== null && isClientRoute(request)) return pages.send(reply);
    const path = request.url.split('?')[0]!;
    const allowed = methodsFor(routes, path);
    const sentPath = request.originalUrl.split('?')[0]!;
    if (allowed.length > 0) {
      const allow = allowed.join(', ');
      reply.header('Allow', allow);
      return sendError(
        request,
        reply,
        new AppError(
          'INVALID_REQUEST',
          `${request.method} is not allowed here; use ${allow}`,
          undefined,
          405,
        ),
      );
    }
    return sendError(
      request,
      reply,
      new AppError('NOT_FOUND', `No route ${request.method} ${sanitizeUrl(sentPath.slice(0, 200))}`),
    );
  });
}
