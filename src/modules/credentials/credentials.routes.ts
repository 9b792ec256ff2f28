import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import type { CredentialsService } from './credentials.service.js';

const tags = ['credentials'];
const StoreParams = Type.Object({ store: StringEnum(['appstore', 'playstore', 'deepl']) });

const CredentialInfo = Type.Object({
  store: StringEnum(['appstore', 'playstore', 'deepl']),
  configured: Type.Boolean(),
  free: Type.Optional(Type.Boolean({ description: 'DeepL: an API Free key' })),
  issuerId: Type.Optional(Type.String()),
  keyId: Type.Optional(Type.String()),
  clientEmail: Type.Optional(Type.String()),
  projectId: Type.Optional(Nullable(Type.String())),
  updatedAt: Type.Optional(Timestamp),
  lastVerification: Type.Optional(
    Nullable(
      Type.Object(
        {
          at: Timestamp,
          verified: Type.Boolean(),
          error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
        },
        {
          description: 'The last check with the store (POST …/verify); null until one after the key was set',
        },
      ),
    ),
  ),
});

export function credentialRoutes(app: Api, services: { credentials: CredentialsService }): void {
  const { credentials } = services;

  app.get('/organization/credentials', {
    schema: {
      operationId: 'credentials.list',
      tags,
      summary: 'Which store credentials are set',
      description:
        'Admin only. Metadata only (issuer and key id, service account e-mail); secrets are never returned.',
      security: BEARER,
      response: { 200: Ok(Type.Object({ credentials: Type.Array(CredentialInfo) })), ...ERRORS },
    },
    handler: async (request) => ok({ credentials: await credentials.list(contextOf(request)) }),
  });

  app.put('/organization/credentials/appstore', {
    schema: {
      operationId: 'credentials.setAppStore',
      tags,
      summary: 'Set App Store Connect API credentials',
      description:
        'Admin only. `privateKey` is the .p8 file (PEM, P-256). Encrypted at rest with AES-256-GCM.',
      security: BEARER,
      body: Type.Object(
        {
          issuerId: Type.String({ maxLength: 64 }),
          keyId: Type.String({ maxLength: 20 }),
          privateKey: Type.String({ maxLength: 10_000 }),
        },
        { additionalProperties: false },
      ),
      response: { 200: Ok(CredentialInfo), ...ERRORS },
    },
    handler: async (request) => ok(await credentials.setAppStore(contextOf(request), request.body)),
  });

  app.put('/organization/credentials/playstore', {
    schema: {
      operationId: 'credentials.setPlayStore',
      tags,
      summary: 'Set a Google Play service account key',
      description:
        'Admin only. `serviceAccount` is the JSON key (object or string). Its token_uri is ignored: tokens come from ' +
        'GOOGLE_TOKEN_URL. Encrypted at rest with AES-256-GCM.',
      security: BEARER,
      body: Type.Object(
        {
          serviceAccount: Type.Union([
            Type.String({ maxLength: 20_000 }),
            Type.Record(Type.String(), Type.Unknown()),
          ]),
        },
        { additionalProperties: false },
      ),
      response: { 200: Ok(CredentialInfo), ...ERRORS },
    },
    handler: async (request) => ok(await credentials.setPlayStore(contextOf(request), request.body)),
  });

  app.put('/organization/credentials/deepl', {
    schema: {
      operationId: 'credentials.setDeepl',
      tags,
      summary: 'Set the DeepL API key for machine translation',
      description:
        'Admin only (design.md §14). Encrypted at rest with AES-256-GCM like the store credentials; never returned. ' +
        'Without one, machine translation uses the instance key DEEPL_API_KEY when the operator set it.',
      security: BEARER,
      body: Type.Object(
        { apiKey: Type.String({ minLength: 1, maxLength: 200 }) },
        { additionalProperties: false },
      ),
      response: { 200: Ok(CredentialInfo), ...ERRORS },
    },
    handler: async (request) => ok(await credentials.setDeepl(contextOf(request), request.body)),
  });

  app.delete('/organization/credentials/:store', {
    schema: {
      operationId: 'credentials.delete',
      tags,
      summary: "Delete a store's credentials or the DeepL key",
      description:
        'Removes the organization’s App Store or Google Play credentials, or its DeepL key: syncs, pushes and translations of that provider then say what is missing. Admins.',
      security: BEARER,
      params: StoreParams,
      response: { 200: Ok(Type.Object({ deleted: Type.Boolean() })), ...ERRORS },
    },
    handler: async (request) => {
      await credentials.remove(contextOf(request), request.params.store);
      return ok({ deleted: true });
    },
  });

  app.post('/organization/credentials/:store/verify', {
    schema: {
      operationId: 'credentials.verify',
      tags,
      summary: 'Check the credentials against the store (or DeepL)',
      description:
        "Admin only. `verified: false` with the store's (or DeepL's) `error` when it refuses them.",
      security: BEARER,
      params: StoreParams,
      response: {
        200: Ok(
          Type.Object({
            store: Type.String(),
            verified: Type.Boolean(),
            error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
          }),
        ),
        ...ERRORS,
      },
    },
    handler: async (request) => ok(await credentials.verify(contextOf(request), request.params.store)),
  });
}
