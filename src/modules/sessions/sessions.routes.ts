import { Type } from '@sinclair/typebox';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf, requireCaller } from '../../http/identity.js';
import { BEARER, ERRORS, Nullable, Ok, PUBLIC, StringEnum, Timestamp } from '../../http/schemas.js';
import { signInRequestOf, type SessionCookies } from '../../http/session-cookie.js';
import { MemberSchema, RoleSchema } from '../members/index.js';
import { DisplayName } from '../organizations/index.js';
import type { PasskeysService } from './passkeys.service.js';
import type { SessionsService } from './sessions.service.js';

const tags = ['dashboard'];

const SessionStarted = Ok(
  Type.Object({ sessionId: Type.String(), expiresAt: Timestamp }, { description: 'The cookie is set.' }),
);

const SessionSchema = Type.Object({
  id: Type.String(),
  method: StringEnum(['api-key', 'sign-in-link', 'passkey', 'invite'] as const),
  userAgent: Nullable(Type.String()),
  createdAt: Timestamp,
  lastSeenAt: Timestamp,
  expiresAt: Timestamp,
  current: Type.Boolean({ description: 'The session of this request' }),
});

const PasskeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Timestamp),
});

// WebAuthn JSON as @simplewebauthn/browser produces it; the library checks it field by field.
const WebAuthnResponse = Type.Object(
  { id: Type.String({ maxLength: 1024 }), rawId: Type.String({ maxLength: 1024 }), type: Type.String() },
  { additionalProperties: true },
);
const WebAuthnOptions = Type.Object({ challenge: Type.String() }, { additionalProperties: true });

/** The dashboard's sign-in and session routes under /api/dashboard (design.md §10). */
export function sessionRoutes(
  app: Api,
  services: { sessions: SessionsService; passkeys: PasskeysService },
  cookies: SessionCookies,
): void {
  const { sessions, passkeys } = services;
  const { started } = cookies;

  app.post('/session', {
    schema: {
      operationId: 'dashboard.session.create',
      tags,
      security: PUBLIC,
      summary: 'Sign in with an API key',
      description:
        "Starts a session for the key's member and sets the `appmeta_session` cookie; a session cookie sent along is ended (rotation).",
      body: Type.Object({ apiKey: Type.String({ maxLength: 200 }) }, { additionalProperties: false }),
      response: { 201: SessionStarted, ...ERRORS },
    },
    handler: async (request, reply) =>
      started(reply, await sessions.signInWithKey(request.body.apiKey, signInRequestOf(request))),
  });

  app.post('/sign-in-links/:token/redeem', {
    schema: {
      operationId: 'dashboard.signInLinks.redeem',
      tags,
      security: PUBLIC,
      summary: 'Sign in with a one-time link',
      description:
        '404 for an unknown link, 409 for a used one, 400 for an expired one (links last 15 minutes).',
      params: Type.Object({ token: Type.String({ maxLength: 100 }) }),
      response: { 201: SessionStarted, ...ERRORS },
    },
    handler: async (request, reply) =>
      started(reply, await sessions.redeemSignInLink(request.params.token, signInRequestOf(request))),
  });

  app.post('/passkeys/authentication/options', {
    schema: {
      operationId: 'dashboard.passkeys.authenticationOptions',
      tags,
      security: PUBLIC,
      summary: 'Begin a passkey sign-in',
      description:
        'Options for `navigator.credentials.get`, and the id of their challenge (valid 5 minutes, single use).',
      response: { 200: Ok(Type.Object({ challengeId: Type.String(), options: WebAuthnOptions })), ...ERRORS },
    },
    handler: async () => ok(await passkeys.authenticationOptions()),
  });

  app.post('/passkeys/authentication/verify', {
    schema: {
      operationId: 'dashboard.passkeys.authenticate',
      tags,
      security: PUBLIC,
      summary: 'Sign in with a passkey',
      description:
        'Verifies the passkey’s answer to the challenge from the options call and, when it matches a registered passkey, starts a dashboard session (the cookie).',
      body: Type.Object(
        { challengeId: Type.String({ maxLength: 100 }), response: WebAuthnResponse },
        { additionalProperties: false },
      ),
      response: { 201: SessionStarted, ...ERRORS },
    },
    handler: async (request, reply) =>
      started(
        reply,
        await passkeys.authenticate(
          {
            challengeId: request.body.challengeId,
            response: request.body.response as AuthenticationResponseJSON,
          },
          signInRequestOf(request),
        ),
      ),
  });

  // Everything below needs a caller: a session, or an API key.
  app.register(async (signedIn: Api) => {
    signedIn.addHook('onRequest', requireCaller);

    signedIn.get('/session', {
      schema: {
        operationId: 'dashboard.session.get',
        tags,
        security: BEARER,
        summary: 'Who am I',
        description:
          'Who the session or API key signs in as — the member, their role and organization — as the dashboard shows it in its header.',
        response: {
          200: Ok(
            Type.Object({
              member: MemberSchema,
              organization: Type.Object({ id: Type.String(), name: Type.String(), plan: Type.String() }),
              role: RoleSchema,
              sessionId: Nullable(Type.String()),
            }),
          ),
          ...ERRORS,
        },
      },
      handler: async (request) => ok(await sessions.whoAmI(contextOf(request))),
    });

    signedIn.delete('/session', {
      schema: {
        operationId: 'dashboard.session.delete',
        tags,
        security: BEARER,
        summary: 'Sign out',
        description: 'Ends the session of this request and clears its cookie.',
        response: { 200: Ok(Type.Object({ signedOut: Type.Literal(true) })), ...ERRORS },
      },
      handler: async (request, reply) => {
        await sessions.endCurrent(contextOf(request));
        cookies.clear(reply);
        return ok({ signedOut: true as const });
      },
    });

    signedIn.get('/sessions', {
      schema: {
        operationId: 'dashboard.sessions.list',
        tags,
        security: BEARER,
        summary: 'Signed-in devices',
        description: "The caller's own sessions that have not ended.",
        response: { 200: Ok(Type.Object({ sessions: Type.Array(SessionSchema) })), ...ERRORS },
      },
      handler: async (request) => ok({ sessions: await sessions.list(contextOf(request)) }),
    });

    signedIn.delete('/sessions', {
      schema: {
        operationId: 'dashboard.sessions.deleteAll',
        tags,
        security: BEARER,
        summary: 'Sign out everywhere',
        description: 'Ends every session of the caller, this one included.',
        response: { 200: Ok(Type.Object({ signedOut: Type.Literal(true) })), ...ERRORS },
      },
      handler: async (request, reply) => {
        await sessions.endAll(contextOf(request));
        cookies.clear(reply);
        return ok({ signedOut: true as const });
      },
    });

    signedIn.delete('/sessions/:sessionId', {
      schema: {
        operationId: 'dashboard.sessions.delete',
        tags,
        security: BEARER,
        summary: 'Sign out one device',
        description:
          'Ends one of the caller’s own sessions (another device); the next request with its cookie is 401.',
        params: Type.Object({ sessionId: Type.String({ maxLength: 100 }) }),
        response: { 200: Ok(Type.Object({ signedOut: Type.Literal(true) })), ...ERRORS },
      },
      handler: async (request) => {
        await sessions.end(contextOf(request), request.params.sessionId);
        return ok({ signedOut: true as const });
      },
    });

    signedIn.post('/sign-in-links', {
      schema: {
        operationId: 'dashboard.signInLinks.create',
        tags,
        security: BEARER,
        summary: 'Create a one-time sign-in link for a member',
        description: 'Admin only. No e-mail is sent: share `url`. Valid 15 minutes, single use.',
        body: Type.Object({ memberId: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
        response: {
          201: Ok(Type.Object({ url: Type.String(), memberId: Type.String(), expiresAt: Timestamp })),
          ...ERRORS,
        },
      },
      handler: async (request, reply) => {
        const link = await sessions.createSignInLink(contextOf(request), request.body.memberId);
        return reply.code(201).header('Cache-Control', 'no-store').send(ok(link));
      },
    });

    signedIn.get('/passkeys', {
      schema: {
        operationId: 'dashboard.passkeys.list',
        tags,
        security: BEARER,
        summary: "The caller's passkeys",
        description:
          'The passkeys the caller registered: name, when added and last used; never key material.',
        response: { 200: Ok(Type.Object({ passkeys: Type.Array(PasskeySchema) })), ...ERRORS },
      },
      handler: async (request) => ok({ passkeys: await passkeys.list(contextOf(request)) }),
    });

    signedIn.post('/passkeys/registration/options', {
      schema: {
        operationId: 'dashboard.passkeys.registrationOptions',
        tags,
        security: BEARER,
        summary: 'Begin adding a passkey',
        description:
          'Options for `navigator.credentials.create`; needs a session (the challenge is kept on it).',
        response: { 200: Ok(WebAuthnOptions), ...ERRORS },
      },
      handler: async (request) => ok(await passkeys.registrationOptions(contextOf(request))),
    });

    signedIn.post('/passkeys/registration/verify', {
      schema: {
        operationId: 'dashboard.passkeys.register',
        tags,
        security: BEARER,
        summary: 'Add a passkey',
        description:
          'Verifies the authenticator’s answer to the registration options and stores the passkey for signing in without an API key.',
        body: Type.Object(
          { response: WebAuthnResponse, name: Type.Optional(DisplayName) },
          { additionalProperties: false },
        ),
        response: { 201: Ok(PasskeySchema), ...ERRORS },
      },
      handler: async (request, reply) =>
        reply.code(201).send(
          ok(
            await passkeys.register(contextOf(request), {
              response: request.body.response as RegistrationResponseJSON,
              ...(request.body.name !== undefined && { name: request.body.name }),
            }),
          ),
        ),
    });

    signedIn.delete('/passkeys/:passkeyId', {
      schema: {
        operationId: 'dashboard.passkeys.delete',
        tags,
        security: BEARER,
        summary: 'Remove a passkey',
        description: 'Removes one of the caller’s passkeys; it can no longer sign in.',
        params: Type.Object({ passkeyId: Type.String({ maxLength: 100 }) }),
        response: { 200: Ok(Type.Object({ removed: Type.Literal(true) })), ...ERRORS },
      },
      handler: async (request) => {
        await passkeys.remove(contextOf(request), request.params.passkeyId);
        return ok({ removed: true as const });
      },
    });
  });
}
