import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, unauthorized } from '../errors.js';
import type { Caller, RequestContext } from '../modules/access/index.js';
import { sessionTokenOf, type SessionCookies } from './session-cookie.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller, when the request carried a valid key. */
    caller: Caller | null;
    /** Why a key that was sent was refused, reported by routes that need a caller. */
    callerError: AppError | null;
    /** Why a caller signed in by cookie alone may not change state here (CSRF), reported likewise. */
    csrfError: AppError | null;
    /**
     * Whether the request's key or session still signs in the same member: for a long-lived
     * response (the event stream) that must end once the key is revoked or the member removed.
     */
    stillSignedIn: (() => Promise<boolean>) | null;
  }
}

export interface Authenticators {
  /**
   * Resolves an `Authorization` value to its caller, from what was kept of the key unless
   * `fresh`; throws an UNAUTHORIZED AppError otherwise.
   */
  key(authorization: string, options?: { fresh?: boolean }): Promise<Caller>;
  /** Resolves a session cookie's token to its caller; throws an UNAUTHORIZED AppError otherwise. */
  session(token: string): Promise<Caller>;
  /**
   * Takes the identity version the request's rate-limit count read back, and answers whether the
   * caller `key` gave still stands (else it is read again with `fresh`).
   */
  confirm(caller: Caller | null, identityVersion: number | null): boolean;
}

/**
 * Resolves the caller of every request before routing decides anything, so that rate limiting
 * can count per organization (valid key or session) or per client IP (none), even on unknown
 * routes. Only routes that need a caller answer 401; see requireCaller. A key wins over a cookie;
 * a state change signed in by the cookie alone must pass the CSRF rule where a caller is needed
 * (sign-in routes carry their own credential and may replace the cookie).
 */
export function registerIdentity(
  app: FastifyInstance,
  authenticate: Authenticators,
  cookies: SessionCookies,
): (request: FastifyRequest, identityVersion: number | null) => Promise<void> {
  app.decorateRequest('caller', null);
  app.decorateRequest('callerError', null);
  app.decorateRequest('csrfError', null);
  app.decorateRequest('stillSignedIn', null);
  app.addHook('onRequest', async (request) => {
    const authorization = request.headers.authorization;
    const token = authorization === undefined ? sessionTokenOf(request) : null;
    if (authorization === undefined && token === null) return;
    const signIn = (fresh = false) =>
      authorization !== undefined ? authenticate.key(authorization, { fresh }) : authenticate.session(token!);
    try {
      request.caller = await signIn();
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'UNAUTHORIZED') throw error;
      request.callerError = error;
      return;
    }
    const { memberId } = request.caller.principal;
    request.stillSignedIn = () =>
      signIn(true).then(
        (again) => again.principal.memberId === memberId,
        () => false,
      );
    if (token === null) return;
    try {
      cookies.checkCsrf(request);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      request.csrfError = error;
    }
  });

  /** See registerRateLimit: a key kept under an identity version that has moved is read again. */
  return async function confirmCaller(request, identityVersion) {
    if (authenticate.confirm(request.caller, identityVersion)) return;
    try {
      request.caller = await authenticate.key(request.headers.authorization!, { fresh: true });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'UNAUTHORIZED') throw error;
      request.caller = null;
      request.callerError = error;
      request.stillSignedIn = null;
    }
  };
}

/** onRequest hook of the authenticated scope: 401 before anything about the request is checked. */
export function requireCaller(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: AppError) => void,
): void {
  if (request.caller === null) return done(request.callerError ?? unauthorized());
  done(request.csrfError ?? undefined);
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
