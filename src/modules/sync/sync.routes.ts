import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { optionalBody } from '../../http/hooks.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, PageQuery, pageOf } from '../../http/schemas.js';
import type { BackgroundOperations } from './background-operations.js';
import type { OperationsLog } from './operations-log.js';
import type { PushService } from './push.service.js';
import type { SyncService } from './sync.service.js';
import type { OperationRecord } from './sync.js';
import * as S from './sync.schemas.js';
import { ProjectParams } from './sync.schemas.js';

const tags = ['projects'];

/** Sync, push and the operations log of a project (registered right after the project routes). */
export function syncRoutes(
  app: Api,
  services: {
    sync: SyncService;
    push: PushService;
    operations: OperationsLog;
    background: BackgroundOperations;
  },
): void {
  const { sync, push, operations, background } = services;
  /** The headers of a 202: where the queued operation is read. */
  const queuedHeaders = (projectId: string, operation: OperationRecord) => ({
    Location: `/api/v1/projects/${projectId}/operations/${operation.id}`,
    'Preference-Applied': 'respond-async',
  });

  app.post('/projects/:projectId/sync', {
    preValidation: optionalBody,
    schema: {
      operationId: 'projects.sync',
      tags,
      summary: 'Pull the latest listings from the store(s)',
      description:
        'Runs synchronously, or in the background with `Prefer: respond-async` (202, `Location` of the operation, ' +
        '`data.operation`). Three-way merge: fields not edited here take the store value; fields changed on both ' +
        'sides are listed in `conflicts` and keep the local value. 200 whenever the request was valid and ran; each ' +
        'store reports `synced` and, when false, an `error`. In-app purchases and subscriptions are read after the ' +
        'listings (`products` counts them; a store refusing them is a failure with field `products`); `include` ' +
        'narrows the sync to `listings` or `products`. 400 when the named store has no identifier on the project.',
      security: BEARER,
      params: ProjectParams,
      headers: PreferHeader,
      body: S.SyncBody,
      response: { 200: S.SyncResponse, 202: S.OperationResponse, ...ERRORS },
    },
    handler: async (request, reply) => {
      const ctx = contextOf(request);
      const { projectId } = request.params;
      if (respondAsync(request.headers.prefer)) {
        const operation = await background.start(ctx, projectId, { kind: 'sync', input: request.body });
        return reply.code(202).headers(queuedHeaders(projectId, operation)).send(ok({ operation }));
      }
      return ok(await sync.sync(ctx, projectId, request.body));
    },
  });

  app.post('/projects/:projectId/push', {
    preValidation: optionalBody,
    schema: {
      operationId: 'projects.push',
      tags,
      summary: 'Push listing changes to the store(s)',
      description:
        'Runs synchronously, or in the background with `Prefer: respond-async` (202, `Location` of the operation, ' +
        '`data.operation`; a dry run always answers at once). Pushes only changed fields, never deletes a store locale. Each store reports ' +
        '`pushed` and, when false, an `error`; `written` says what each store took per locale and kind. With ' +
        '`dryRun: true`, answers the changes it would write instead (with `counts` per store and kind). A member ' +
        'narrowed to some locales gets 403 when the changes include others (push those with `locales`). ' +
        'Product texts are pushed after the listings, each product on its own (a refusal fails that product, ' +
        'field `products.<productId>.<field>`); one in conflict or over a limit in force is left out (`CONFLICT`, ' +
        '`INVALID_TEXT`) before any store call; `include` narrows the push to `listings` or `products`.',
      security: BEARER,
      params: ProjectParams,
      headers: PreferHeader,
      body: S.PushBody,
      response: { 200: S.PushResponse, 202: S.OperationResponse, ...ERRORS },
    },
    handler: async (request, reply) => {
      const ctx = contextOf(request);
      const { projectId } = request.params;
      const { dryRun, ...input } = request.body;
      if (dryRun !== true && respondAsync(request.headers.prefer)) {
        const operation = await background.start(ctx, projectId, { kind: 'push', input });
        return reply.code(202).headers(queuedHeaders(projectId, operation)).send(ok({ operation }));
      }
      return ok(await push.push(ctx, projectId, request.body));
    },
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

  app.get('/projects/:projectId/operations/:operationId', {
    schema: {
      operationId: 'operations.get',
      tags,
      summary: 'A sync or push: status, progress and result',
      description:
        '`status` is queued, running, succeeded, partial, failed or cancelled; `progress` counts locales done; ' +
        '`outcome` is, once finished, the result the synchronous call answers.',
      security: BEARER,
      params: S.OperationParams,
      response: { 200: S.OperationResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok({
        operation: await background.get(
          contextOf(request),
          request.params.projectId,
          request.params.operationId,
        ),
      }),
  });

  app.post('/projects/:projectId/operations/:operationId/cancel', {
    preValidation: optionalBody,
    schema: {
      operationId: 'operations.cancel',
      tags,
      summary: 'Cancel a queued or running sync or push',
      description:
        'A queued operation ends at once; a running one stops before its next store write — what was written ' +
        'stays written and is reported in its outcome. 409 once it has finished.',
      security: BEARER,
      params: S.OperationParams,
      response: { 200: S.OperationResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok({
        operation: await background.cancel(
          contextOf(request),
          request.params.projectId,
          request.params.operationId,
        ),
      }),
  });
}

/** Prefer: respond-async (RFC 7240), among other preferences or alone. */
const respondAsync = (prefer: string | undefined) =>
  prefer !== undefined &&
  prefer.split(',').some((part) => part.trim().toLowerCase().split(/\s*;/)[0] === 'respond-async');

const PreferHeader = Type.Object({
  prefer: Type.Optional(
    Type.String({
      maxLength: 200,
      description: '`respond-async` runs the operation in the background (202)',
    }),
  ),
});
