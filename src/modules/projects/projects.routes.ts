import { Type } from '@sinclair/typebox';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, PageQuery, pageOf } from '../../http/schemas.js';
import type { ProjectsService } from './projects.service.js';
import * as S from './projects.schemas.js';

const tags = ['projects'];

export function projectRoutes(app: Api, services: { projects: ProjectsService }): void {
  const { projects } = services;

  app.get('/projects', {
    schema: {
      operationId: 'projects.list',
      tags,
      summary: 'List projects',
      description:
        'Newest first (createdAt descending, then id). `total` counts all projects of the organization, ' +
        'or with `search` those whose name contains it (case-insensitive). A member narrowed to some ' +
        'projects sees, and counts, only those; the others answer 404 everywhere.',
      security: BEARER,
      querystring: Type.Composite([
        PageQuery(),
        Type.Object({
          search: Type.Optional(Type.String({ maxLength: 200, description: 'Part of the name' })),
        }),
      ]),
      response: { 200: S.ListProjectsResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await projects.list(contextOf(request), pageOf(request.query), request.query.search)),
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
      description:
        'The project with its store identifiers and metadata (its locales, last sync). 404 when it does not exist or is outside the caller’s scope.',
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
}
