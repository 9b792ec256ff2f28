import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { optionalBody } from '../../http/hooks.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, Nullable, Ok, Timestamp } from '../../http/schemas.js';
import { KEY_NAME_MAX, type ApiKeysService } from './api-keys.service.js';

const tags = ['api-keys'];

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  memberId: Type.String(),
  prefix: Type.String({ description: 'First characters of the secret' }),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Timestamp),
  expiresAt: Nullable(Timestamp),
});

export function apiKeyRoutes(app: Api, services: { apiKeys: ApiKeysService }): void {
  const { apiKeys } = services;

  app.get('/api-keys', {
    schema: {
      operationId: 'apiKeys.list',
      tags,
      summary: 'List active API keys',
      description: "The caller's own keys; admins may pass `memberId` for another member's.",
      security: BEARER,
      querystring: Type.Object({ memberId: Type.Optional(Type.String({ maxLength: 100 })) }),
      response: { 200: Ok(Type.Object({ keys: Type.Array(ApiKeySchema) })), ...ERRORS },
    },
    handler: async (request) => ok({ keys: await apiKeys.list(contextOf(request), request.query) }),
  });

  app.post('/api-keys', {
    preValidation: optionalBody,
    schema: {
      operationId: 'apiKeys.create',
      tags,
      summary: 'Create an API key',
      description:
        'The secret is in `apiKey`, shown once (the response is `Cache-Control: no-store`). Admins may pass ' +
        '`memberId` to create a key for another member.',
      security: BEARER,
      body: Type.Object(
        {
          name: Type.Optional(
            Type.String({
              maxLength: KEY_NAME_MAX,
              description: `1..${KEY_NAME_MAX} characters; surrounding whitespace is trimmed`,
            }),
          ),
          memberId: Type.Optional(Type.String({ maxLength: 100 })),
          expiresAt: Type.Optional(Nullable(Type.String({ format: 'date-time' }))),
        },
        { additionalProperties: false },
      ),
      response: { 201: Ok(Type.Object({ apiKey: Type.String(), key: ApiKeySchema })), ...ERRORS },
    },
    handler: async (request, reply) => {
      const issued = await apiKeys.create(contextOf(request), request.body);
      return reply.code(201).header('Cache-Control', 'no-store').send(ok(issued));
    },
  });

  app.delete('/api-keys/:keyId', {
    schema: {
      operationId: 'apiKeys.revoke',
      tags,
      summary: 'Revoke an API key',
      description: "Effective at once. Admins may revoke other members' keys.",
      security: BEARER,
      params: Type.Object({ keyId: Type.String({ maxLength: 100 }) }),
      response: { 200: Ok(Type.Object({ revoked: Type.Boolean() })), ...ERRORS },
    },
    handler: async (request) => {
      await apiKeys.revoke(contextOf(request), request.params.keyId);
      return ok({ revoked: true });
    },
  });
}
