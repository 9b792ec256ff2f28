/**
 * The dashboard's session cookie and its CSRF rule (design.md §10): `appmeta_session`, HttpOnly,
 * SameSite=Lax, Path=/, Secure when PUBLIC_URL is https. A state-changing request authenticated by
 * the cookie must carry `X-Appmeta-CSRF: 1` and come from PUBLIC_URL's origin.
 */
import { parse, serialize } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { forbidden } from '../errors.js';
import { ok } from './envelope.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A dashboard route that programs may call too (accepting an invite): it signs the browser in
     * only when the request passes the dashboard's CSRF rule, and works without the cookie otherwise.
     */
    signsInDashboardOnly?: boolean;
  }
}

export const SESSION_COOKIE = 'appmeta_session';
const CSRF_HEADER = 'x-appmeta-csrf';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** What a sign-in request tells about itself: its browser, and the cookie it replaces (rotation). */
export const signInRequestOf = (request: FastifyRequest) => ({
  userAgent: request.headers['user-agent'] ?? null,
  replacing: sessionTokenOf(request),
});

/** The session token the request's cookie carries, if any. */
export function sessionTokenOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (header === undefined) return null;
  return parse(header)[SESSION_COOKIE] ?? null;
}

export function createSessionCookies(publicUrl: string) {
  const secure = new URL(publicUrl).protocol === 'https:';
  const origin = new URL(publicUrl).origin;
  const set = (reply: FastifyReply, token: string, expiresAt: string): void => {
    reply.header(
      'Set-Cookie',
      serialize(SESSION_COOKIE, token, {
        httpOnly: true,
        sameSite: 'lax',
        path: '/',
        secure,
        expires: new Date(expiresAt),
      }),
    );
    reply.header('Cache-Control', 'no-store');
  };

  function checkBrowserRequest(request: FastifyRequest, what: string): void {
    if (SAFE_METHODS.has(request.method)) return;
    if (request.headers[CSRF_HEADER] !== '1') throw forbidden(`${what} needs the header X-Appmeta-CSRF: 1`);
    if (request.headers.origin !== origin)
      throw forbidden(`${what} must come from ${origin} (Origin header)`);
  }

  return {
    origin,
    set,
    /** Answers a sign-in: 201 with the session's id and end, the cookie set. */
    started: (reply: FastifyReply, session: { sessionId: string; token: string; expiresAt: string }) => {
      set(reply, session.token, session.expiresAt);
      return reply.code(201).send(ok({ sessionId: session.sessionId, expiresAt: session.expiresAt }));
    },
    clear(reply: FastifyReply): void {
      reply.header(
        'Set-Cookie',
        serialize(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'lax', path: '/', secure, maxAge: 0 }),
      );
    },
    /** Throws 403 FORBIDDEN for a cookie-authenticated state change without the CSRF header and origin. */
    checkCsrf(request: FastifyRequest): void {
      checkBrowserRequest(request, 'A request signed in by the session cookie');
    },
    /** Whether the request comes from the dashboard's own pages (X-Appmeta-CSRF and Origin). */
    fromDashboard(request: FastifyRequest): boolean {
      return request.headers[CSRF_HEADER] === '1' && request.headers.origin === origin;
    },
    /**
     * onRequest hook of /api/dashboard: a state change sent without an API key — a sign-in, which
     * sets the cookie — must come from the dashboard's own pages, or another site could sign the
     * browser in to an account of its choosing (login CSRF).
     */
    checkSignIn(
      this: void,
      request: FastifyRequest,
      _reply: FastifyReply,
      done: (error?: Error) => void,
    ): void {
      if (request.headers.authorization !== undefined) return done();
      if (request.routeOptions.config.signsInDashboardOnly === true) return done();
      try {
        checkBrowserRequest(request, 'A sign-in or a request signed in by the session cookie');
        done();
      } catch (error) {
        done(error as Error);
      }
    },
  };
}

export type SessionCookies = ReturnType<typeof createSessionCookies>;
