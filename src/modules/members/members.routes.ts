import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { message, ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, MessageResponse, Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { ROLES } from '../access/index.js';
import type { MembersService } from './members.service.js';

const tags = ['members'];
export const RoleSchema = StringEnum(ROLES);

export const MemberSchema = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Type.String(),
  role: RoleSchema,
  status: Type.Literal('active'),
  lastActive: Nullable(Timestamp),
  joinedAt: Timestamp,
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
      summary: "Change a member's role",
      description: 'Admin only. Demoting the last admin is 400.',
      security: BEARER,
      params: MemberParams,
      body: Type.Object({ role: RoleSchema }, { additionalProperties: false }),
      response: { 200: Ok(Type.Object({ id: Type.String(), role: RoleSchema })), ...ERRORS },
    },
    handler: async (request) =>
      ok(await members.updateRole(contextOf(request), request.params.memberId, request.body.role)),
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
