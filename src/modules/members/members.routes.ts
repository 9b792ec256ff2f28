import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { message, ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, MessageResponse, Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { ROLES } from '../access/index.js';
import type { MembersService } from './members.service.js';

const tags = ['members'];
export const RoleSchema = StringEnum(ROLES);

/** A member's scope (design.md §16), as shown and as set: a left-out part is everything. */
export const AccessSchema = Type.Object(
  {
    projects: Type.Union(
      [Type.Literal('all'), Type.Array(Type.String({ maxLength: 64 }), { maxItems: 500 })],
      {
        description: '"all", or the ids of the projects the member sees',
      },
    ),
    locales: Type.Union(
      [Type.Literal('all'), Type.Array(Type.String({ maxLength: 20 }), { maxItems: 200 })],
      {
        description: '"all", or the locale codes the member may change',
      },
    ),
    approve: Type.Boolean({ description: 'May approve changes whose projects and locales are all in scope' }),
  },
  { additionalProperties: false },
);
export const AccessInput = Type.Partial(AccessSchema, { additionalProperties: false });

export const MemberSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  status: Type.Literal('active'),
  lastActive: Nullable(Timestamp),
  joinedAt: Timestamp,
  access: AccessSchema,
});

const MemberParams = Type.Object({ memberId: Type.String({ maxLength: 100 }) });

export function memberRoutes(app: Api, services: { members: MembersService }): void {
  const { members } = services;

  app.get('/organization/members', {
    schema: {
      operationId: 'members.list',
      tags,
      summary: 'List members',
      description: 'All members, oldest first.',
      security: BEARER,
      response: { 200: Ok(Type.Object({ members: Type.Array(MemberSchema) })), ...ERRORS },
    },
    handler: async (request) => ok({ members: await members.list(contextOf(request)) }),
  });

  app.patch('/organization/members/:memberId', {
    schema: {
      operationId: 'members.updateRole',
      tags,
      summary: "Change a member's role or scope",
      description:
        'Admin only. Demoting the last admin is 400. `access` narrows a member to projects and ' +
        'locales (a viewer to projects only; an admin never) and takes effect on their next request.',
      security: BEARER,
      params: MemberParams,
      body: Type.Object(
        { role: Type.Optional(RoleSchema), access: Type.Optional(AccessInput) },
        { additionalProperties: false, minProperties: 1 },
      ),
      response: {
        200: Ok(Type.Object({ id: Type.String(), role: RoleSchema, access: AccessSchema })),
        ...ERRORS,
      },
    },
    handler: async (request) =>
      ok(await members.update(contextOf(request), request.params.memberId, request.body)),
  });

  app.delete('/organization/members/:memberId', {
    schema: {
      operationId: 'members.remove',
      tags,
      summary: 'Remove a member',
      description:
        "Admin only. Revokes all of the member's API keys at once. Removing the last admin is 400.",
      security: BEARER,
      params: MemberParams,
      response: { 200: MessageResponse, ...ERRORS },
    },
    handler: async (request) => {
      const removed = await members.remove(contextOf(request), request.params.memberId);
      return message(`Member ${removed.email} was removed and their API keys revoked`);
    },
  });
}
