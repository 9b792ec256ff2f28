/** What every Play request passes before its handler: faults, the token, the app and the edit. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Faults } from '../faults.js';
import { PlayFailure, sendFailure } from './errors.js';
import type { PlayState } from './state.js';

/**
 * The checks before every Play request (also of the upload paths): injected faults, then an
 * access token the token endpoint issued and that has not expired.
 */
export function playAuthentication(state: PlayState, faults: Faults) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    state.counters.requests += 1;
    if (request.method === 'PUT' || request.method === 'PATCH') state.counters.listingWrites += 1;
    const injected = await faults.apply(request, reply);
    if (injected === 'dropped') return reply;
    if (typeof injected === 'number') {
      const statusText =
        injected === 429
          ? 'RESOURCE_EXHAUSTED'
          : injected === 409
            ? 'ABORTED'
            : injected >= 500
              ? 'INTERNAL'
              : 'FAILED_PRECONDITION';
      const reason = injected === 429 ? 'rateLimitExceeded' : 'backendError';
      return sendFailure(
        reply,
        new PlayFailure(
          injected,
          statusText,
          injected === 429 ? 'Quota exceeded.' : 'Injected failure.',
          reason,
        ),
      );
    }
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const session = token === undefined ? undefined : state.tokens.get(token);
    if (session === undefined || session.expiresAt <= state.now()) {
      void reply.header(
        'WWW-Authenticate',
        'Bearer realm="https://accounts.google.com/", error="invalid_token"',
      );
      throw new PlayFailure(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
        'authError',
      );
    }
    (request as FastifyRequest & { account?: string }).account = session.email;
  };
}

export const playErrors = (
  error: Error & { statusCode?: number },
  _request: FastifyRequest,
  reply: FastifyReply,
) => {
  if (error instanceof PlayFailure) return sendFailure(reply, error);
  return sendFailure(
    reply,
    new PlayFailure(500, 'INTERNAL', `Internal error: ${error.message}`, 'backendError'),
  );
};

export type Req = FastifyRequest<{
  Params: { packageName: string; editId?: string; language?: string; action?: string };
}>;

export const requireApp = (state: PlayState, request: Req) => {
  const target = state.apps.get(request.params.packageName);
  const account = (request as Req & { account?: string }).account ?? '';
  if (target === undefined)
    throw new PlayFailure(404, 'NOT_FOUND', `Package not found: ${request.params.packageName}.`, 'notFound');
  if (target.grants !== null && !target.grants.includes(account)) {
    throw new PlayFailure(403, 'PERMISSION_DENIED', 'The caller does not have permission', 'forbidden');
  }
  return target;
};

/** An edit that may still be used: 404 unknown, 410 deleted/superseded, 400 expired or committed. */
export const requireOpenEdit = (state: PlayState, request: Req, id: string) => {
  const target = requireApp(state, request);
  const edit = state.edits.get(id);
  if (edit === undefined || edit.packageName !== target.packageName)
    throw new PlayFailure(404, 'NOT_FOUND', 'This Edit does not exist.', 'notFound');
  if (edit.status === 'deleted')
    throw new PlayFailure(410, 'NOT_FOUND', 'This Edit has been deleted.', 'editDeleted', 'androidpublisher');
  if (edit.status === 'committed') {
    throw new PlayFailure(
      400,
      'FAILED_PRECONDITION',
      'This edit has already been successfully committed, please create a new Edit.',
      'editAlreadyCommitted',
      'androidpublisher',
    );
  }
  if (edit.expiresAt <= state.now())
    throw new PlayFailure(
      400,
      'FAILED_PRECONDITION',
      'This edit has expired, please create a new Edit.',
      'editExpired',
      'androidpublisher',
    );
  return { app: target, edit };
};
