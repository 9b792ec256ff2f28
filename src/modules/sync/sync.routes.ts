import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { optionalBody } from '../../http/hooks.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, PageQuery, pageOf } from '../../http/schemas.js';
import type { OperationsLog } from './operations-log.js';
import type { PushService } from './push.service.js';
import type { SyncService } from './sync.service.js';
import * as S from './sync.schemas.js';
import { ProjectParams } from './sync.schemas.js';

const tags = ['projects'];

/** Sync, push and the operations log of a project (registered right after the project routes). */
export function syncRoutes(
  app: Api,
  services: { sync: SyncService; push: PushService; operations: OperationsLog },
): void {
  const { sync, push, operations } = services;

  app.post('/projects/:projectId/sync', {
    preValidation: optionalBody,
    schema: {
      operationId: 'projects.sync',
      tags,
      summary: 'Pull the latest listings from the store(s)',
      description:
        'Runs synchronously. Three-way merge: fields not edited here take the store value; fields changed on both ' +
        'sides are listed in `conflicts` and keep the local value. 200 whenever the request was valid and ran; each ' +
        'store reports `synced` and, when false, an `error`. 400 when the named store has no identifier on the project.',
      security: BEARER,
      params: ProjectParams,
      body: S.SyncBody,
      response: { 200: S.SyncResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await sync.sync(contextOf(request), request.params.projectId, request.body)),
  });

  app.post('/projects/:projectId/push', {
    preValidation: optionalBody,
    schema: {
      operationId: 'projects.push',
      tags,
      summary: 'Push listing changes to the store(s)',
      description:
        'Runs synchronously. Pushes only changed fields, never deletes a store locale. Each store reports ' +
        '`pushed` and, when false, an `error`. With `dryRun: true`, answers the changes it would write instead.',
      security: BEARER,
      params: ProjectParams,
      body: S.PushBody,
      response: { 200: S.PushResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await push.push(contextOf(request), request.params.projectId, request.body)),
  });

  app.get('/projects/:projectId/operations', {
    schema: {
      operationId: 'projects.operations',
      tags,
      summary: 'Recorded syncs and pushes',
      description:
        'Who ran which sync or push when, on which stores and locales, and its outcome. Newest first.',
      security: BEARER,
      params: ProjectParams,
      querystring: PageQuery(),
      response: { 200: S.OperationsResponse, ...ERRORS },
    },
    handler: async (request) => {
      const query = pageOf(request.query);
      const page = await operations.list(contextOf(request), request.params.projectId, query);
      return ok({ ...page, ...query });
    },
  });
}
