/**
 * The one error type of the domain. Its codes are the closed set of design.md §5; the HTTP layer
 * renders them into the envelope, MCP into tool errors.
 */
export const ERROR_STATUS = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  APPROVAL_REQUIRED: 403,
  USAGE_LIMIT_EXCEEDED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  // design.md §11: an Idempotency-Key used again with another request.
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  // departure from design.md §5: a dependency (the database) is unreachable for a moment; the
  // request can be retried (Retry-After), unlike an INTERNAL_ERROR.
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
  /** For a length rule: the limit broken (the maximum, or the minimum when too short)… */
  limit?: number;
  /** …and the value's length, in the unit of the limit (characters: Unicode code points). */
  length?: number;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Overrides the status of the code, e.g. 413/415 for framework errors that are INVALID_REQUEST. */
    status?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = status ?? ERROR_STATUS[code];
  }
}

export const invalid = (message: string, details?: ErrorDetail[]) =>
  new AppError('INVALID_REQUEST', message, details);

/** A 400 naming one field: the common case of a broken rule. */
export const invalidField = (field: string, message: string) =>
  new AppError('INVALID_REQUEST', `${field}: ${message}`, [{ field, message }]);

export const notFound = (what: string) => new AppError('NOT_FOUND', `${what} not found`);

export const forbidden = (message = 'Your role does not allow this operation') =>
  new AppError('FORBIDDEN', message);

export const unauthorized = (message = 'A valid API key is required: Authorization: Bearer <key>') =>
  new AppError('UNAUTHORIZED', message);

export const usageLimitExceeded = (message: string) => new AppError('USAGE_LIMIT_EXCEEDED', message);

/** Seconds a client is asked to wait (Retry-After) after a SERVICE_UNAVAILABLE answer. */
export const UNAVAILABLE_RETRY_AFTER_S = 2;

export const serviceUnavailable = (message: string, cause?: unknown) => {
  const error = new AppError('SERVICE_UNAVAILABLE', message);
  if (cause !== undefined) error.cause = cause;
  return error;
};
