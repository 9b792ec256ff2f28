import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, unauthorized } from '../errors.js';
import type { Caller, RequestContext } from '../modules/access/index.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, when the request carried a valid key. */
    caller: Caller | null;
    /** Why a key that was sent was refused, reported by routes that need a caller. */
    callerError: AppError | null;
  }
}

/**
 * Resolves the caller of every request before routing decides anything, so that rate limiting
 * can count per organization (valid key) or per client IP (none), even on unknown routes.
 * Only routes that need a caller answer 401; see requireCaller.
 */
/** Resolves an `Authorization` value to its caller; throws an UNAUTHORIZED AppError otherwise. */
export type Authenticate = (authorization: string) => Promise<Caller>;

export function registerIdentity(app: FastifyInstance, authenticate: Authenticate): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('callerError', null);
  app.addHook('onRequest', async (request) => {
    if (request.headers.authorization === undefined) return;
    try {
      request.caller = await authenticate(request.headers.authorization);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'UNAUTHORIZED') throw error;
      request.callerError = error;
    }
  });
}

/** onRequest hook of the authenticated scope: 401 before anything about the request is checked. */
export async function requireCaller(request: FastifyRequest): Promise<void> {
  if (request.caller === null) throw request.callerError ?? unauthorized();
}

/** The service context of an authenticated request. */
export function contextOf(request: FastifyRequest): RequestContext {
  const caller = request.caller;
  if (caller === null) throw unauthorized();
  return {
    organizationId: caller.organizationId,
    principal: caller.principal,
    requestId: request.id,
    log: request.log as RequestContext['log'],
  };
}
