import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, UNAVAILABLE_RETRY_AFTER_S, type ErrorDetail } from '../errors.js';
import { sanitizeUrl } from '../logger.js';

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

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
    default:
      return error.message ?? 'is invalid';
  }
}

export function validationDetails(errors: AjvError[], part: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    // A union (e.g. string | null) reports each branch; the "anyOf" summary adds nothing.
    if (error.keyword === 'anyOf') continue;
    const field = fieldOf(error) || part;
    if (!details.some((d) => d.field === field)) details.push({ field, message: describe(error) });
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

export function registerErrorHandlers(app: FastifyInstance): void {
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

  app.setNotFoundHandler((request, reply) =>
    sendError(
      request,
      reply,
      new AppError(
        'NOT_FOUND',
        `No route ${request.method} ${sanitizeUrl(request.url.split('?')[0]!.slice(0, 200))}`,
      ),
    ),
  );
}
