import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, Nullable, Ok, PUBLIC, Timestamp } from '../../http/schemas.js';
import { signInRequestOf, type SessionCookies } from '../../http/session-cookie.js';
import { ApiKeySchema } from '../api-keys/index.js';
import { AccessInput, AccessSchema, MemberSchema, RoleSchema } from '../members/index.js';
import { DisplayName } from '../organizations/index.js';
import type { InviteAcceptance } from './invite-acceptance.js';
import type { InvitesService } from './invites.service.js';

const Invite = Type.Object({
  inviteId: Type.String(),
  email: Type.String(),
  role: RoleSchema,
  expiresAt: Timestamp,
  access: AccessSchema,
});

const InviteParams = Type.Object({ inviteId: Type.String({ maxLength: 100 }) });

/** Invite management under the API (admins). */
export function inviteRoutes(app: Api, services: { invites: InvitesService }): void {
  const { invites } = services;

  app.post('/organization/members', {
    schema: {
      operationId: 'invites.create',
      tags: ['members'],
      summary: 'Invite a member (share link)',
      description:
        'Admin only. No e-mail is sent: share `inviteUrl` with the invitee. Expires after 7 days, single use. ' +
        'Re-inviting a pending address replaces its invite. 403 USAGE_LIMIT_EXCEEDED when all seats are taken. ' +
        '`access` narrows the member-to-be to projects and locales (a viewer to projects only, an admin never).',
      security: BEARER,
      body: Type.Object(
        {
          email: Type.String({ maxLength: 320 }),
          role: Type.Optional(RoleSchema),
          access: Type.Optional(AccessInput),
        },
        { additionalProperties: false },
      ),
      response: {
        201: Type.Object({
          success: Type.Literal(true),
          data: Invite,
          delivery: Type.Literal('share_link'),
          inviteUrl: Type.String({ format: 'uri' }),
        }),
        ...ERRORS,
      },
    },
    handler: async (request, reply) => {
      const created = await invites.create(contextOf(request), request.body);
      return reply.code(201).send({
        success: true as const,
        data: created.invite,
        delivery: 'share_link' as const,
        inviteUrl: created.inviteUrl,
      });
    },
  });

  app.get('/organization/invites', {
    schema: {
      operationId: 'invites.list',
      tags: ['members'],
      summary: 'List pending invites',
      description: 'Admin only. Invites not yet accepted or revoked; `status` is `expired` past `expiresAt`.',
      security: BEARER,
      response: {
        200: Ok(
          Type.Object({
            invites: Type.Array(
              Type.Composite([
                Invite,
                Type.Object({
                  status: Type.Union([Type.Literal('pending'), Type.Literal('expired')]),
                  invitedBy: Nullable(Type.String()),
                  createdAt: Timestamp,
                }),
              ]),
            ),
          }),
        ),
        ...ERRORS,
      },
    },
    handler: async (request) => ok({ invites: await invites.list(contextOf(request)) }),
  });

  app.delete('/organization/invites/:inviteId', {
    schema: {
      operationId: 'invites.revoke',
      tags: ['members'],
      summary: 'Revoke a pending invite',
      description: 'The invite link stops working at once; a member who already joined stays. Admins.',
      security: BEARER,
      params: InviteParams,
      response: { 200: Ok(Type.Object({ revoked: Type.Boolean() })), ...ERRORS },
    },
    handler: async (request) => {
      await invites.revoke(contextOf(request), request.params.inviteId);
      return ok({ revoked: true });
    },
  });
}

/**
 * The dashboard pair behind an invite link: no API key, the unguessable invite id is the
 * credential. Accepting also signs the new member in (a session cookie, design.md §10).
 */
export function dashboardInviteRoutes(
  app: Api,
  services: { inviteAcceptance: InviteAcceptance },
  cookies: SessionCookies,
): void {
  const invites = services.inviteAcceptance;

  app.get('/invites/:inviteId', {
    schema: {
      operationId: 'dashboard.invites.get',
      tags: ['dashboard'],
      security: PUBLIC,
      summary: 'Show an invite',
      description:
        '404 for an unknown or revoked invite; 409 for one already used (when and, to an admin of its organization ' +
        'sending its API key, by whom); 400 for an expired one.',
      params: InviteParams,
      response: {
        200: Ok(
          Type.Object({
            inviteId: Type.String(),
            organizationName: Type.String(),
            email: Type.String(),
            role: RoleSchema,
            expiresAt: Timestamp,
          }),
        ),
        ...ERRORS,
      },
    },
    handler: async (request) => ok(await invites.preview(request.params.inviteId, request.caller)),
  });

  app.post('/invites/:inviteId/accept', {
    config: { signsInDashboardOnly: true },
    schema: {
      operationId: 'dashboard.invites.accept',
      tags: ['dashboard'],
      security: PUBLIC,
      summary: 'Accept an invite',
      description:
        'Creates the member and its first API key, shown once in `apiKey`. Sent by the dashboard (with ' +
        '`X-Appmeta-CSRF: 1` and its Origin) it also signs the member in (sets the `appmeta_session` cookie). ' +
        'Single use: 409 once it was accepted.',
      params: InviteParams,
      body: Type.Object({ name: DisplayName }, { additionalProperties: false }),
      response: {
        201: Ok(Type.Object({ member: MemberSchema, apiKey: Type.String(), key: ApiKeySchema })),
        ...ERRORS,
      },
    },
    handler: async (request, reply) => {
      // Another site's page must not sign the browser in (login CSRF): the cookie only for the dashboard.
      const { session, ...accepted } = await invites.accept(
        request.params.inviteId,
        request.body,
        cookies.fromDashboard(request) ? signInRequestOf(request) : null,
        request.caller,
      );
      if (session !== null) cookies.set(reply, session.token, session.expiresAt);
      return reply.code(201).header('Cache-Control', 'no-store').send(ok(accepted));
    },
  });
}
