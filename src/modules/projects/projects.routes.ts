import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { optionalBody } from '../../http/hooks.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, PageQuery } from '../../http/schemas.js';
import type { SyncService } from '../sync/sync.service.js';
import type { ProjectsService } from './projects.service.js';
import * as S from './projects.schemas.js';

const tags = ['projects'];

export function projectRoutes(app: Api, services: { projects: ProjectsService; sync: SyncService }): void {
  const { projects, sync } = services;

  app.get('/projects', {
    schema: {
      operationId: 'projects.list',
      tags,
      summary: 'List projects',
      description:
        'Newest first (createdAt descending, then id). `total` counts all projects of the organization.',
      security: BEARER,
      querystring: PageQuery(),
      response: { 200: S.ListProjectsResponse, ...ERRORS },
    },
    handler: async (request) => ok(await projects.list(contextOf(request), request.query)),
  });

  app.post('/projects', {
    schema: {
      operationId: 'projects.create',
      tags,
      summary: 'Create a project',
      description: 'Role member or admin. 403 USAGE_LIMIT_EXCEEDED when the plan allows no more projects.',
      security: BEARER,
      body: S.CreateProjectBody,
      response: { 201: S.CreateProjectResponse, ...ERRORS },
    },
    handler: async (request, reply) => {
      const project = await projects.create(contextOf(request), request.body);
      return reply.code(201).send(ok({ projectId: project.id, project }));
    },
  });

  app.get('/projects/:projectId', {
    schema: {
      operationId: 'projects.get',
      tags,
      summary: 'Read one project with its metadata',
      security: BEARER,
      params: S.ProjectParams,
      response: { 200: S.GetProjectResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok({ project: await projects.get(contextOf(request), request.params.projectId) }),
  });

  app.patch('/projects/:projectId', {
    schema: {
      operationId: 'projects.update',
      tags,
      summary: 'Update a project',
      description: 'Partial update. `null` clears a store identifier.',
      security: BEARER,
      params: S.ProjectParams,
      body: S.UpdateProjectBody,
      response: { 200: S.UpdateProjectResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok({ project: await projects.update(contextOf(request), request.params.projectId, request.body) }),
  });

  app.delete('/projects/:projectId', {
    schema: {
      operationId: 'projects.delete',
      tags,
      summary: 'Delete a project and all its metadata',
      description: 'Admin only. Cannot be undone.',
      security: BEARER,
      params: S.ProjectParams,
      response: { 200: S.DeleteProjectResponse, ...ERRORS },
    },
    handler: async (request) => {
      await projects.remove(contextOf(request), request.params.projectId);
      return ok({ deleted: true });
    },
  });

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
      params: S.ProjectParams,
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
      params: S.ProjectParams,
      body: S.PushBody,
      response: { 200: S.PushResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await sync.push(contextOf(request), request.params.projectId, request.body)),
  });

  app.get('/projects/:projectId/operations', {
    schema: {
      operationId: 'projects.operations',
      tags,
      summary: 'Recorded syncs and pushes',
      description:
        'Who ran which sync or push when, on which stores and locales, and its outcome. Newest first.',
      security: BEARER,
      params: S.ProjectParams,
      querystring: PageQuery(),
      response: { 200: S.OperationsResponse, ...ERRORS },
    },
    handler: async (request) => {
      const page = await sync.operations(contextOf(request), request.params.projectId, request.query);
      return ok({ ...page, ...request.query });
    },
  });
}
