import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, pageOf } from '../../http/schemas.js';
import { ProjectParams } from '../projects/index.js';
import type { SchedulesService } from './schedules.service.js';
import * as S from './schedules.schemas.js';

const tags = ['schedules'];

/** Scheduled changes (design.md §20): thin adapters over the schedules service. */
export function scheduleRoutes(app: Api, services: { schedules: SchedulesService }): void {
  const { schedules } = services;

  app.post('/projects/:projectId/schedules', {
    schema: {
      operationId: 'schedules.create',
      tags,
      summary: 'Schedules a push of an approved diff, or a release control, at a time',
      description:
        'Give `hash` (the diff to push, as GET .../diff answers it) or `release` (a release control). `at` with an ' +
        'offset, or a wall-clock time with `timeZone` (the offset in force that day is used). With `revertAt` (a ' +
        'campaign) the listing texts it pushed are put back then. At its time it pushes exactly that changeset, once; ' +
        'if the changes or the store moved meanwhile, or an approval is missing, it ends `held` with the reason. ' +
        'Needs push rights (or release-control rights); times are stored in UTC.',
      security: BEARER,
      params: ProjectParams,
      body: S.ScheduleBody,
      response: { 201: S.ScheduleCreatedResponse, ...ERRORS },
    },
    handler: async (request, reply) => {
      const created = await schedules.create(contextOf(request), request.params.projectId, request.body);
      return reply.code(201).send(ok(created));
    },
  });

  app.get('/projects/:projectId/schedules', {
    schema: {
      operationId: 'schedules.list',
      tags,
      summary: "The project's schedules by time, upcoming and past",
      description: 'Filters: from, to (on `at`), status (comma-separated).',
      security: BEARER,
      params: ProjectParams,
      querystring: S.ScheduleQuery,
      response: { 200: S.SchedulesResponse, ...ERRORS },
    },
    handler: async (request) => {
      const page = pageOf(request.query);
      const { from, to, status } = request.query;
      const listed = await schedules.list(
        contextOf(request),
        request.params.projectId,
        {
          ...(from !== undefined && { from }),
          ...(to !== undefined && { to }),
          ...(status !== undefined && {
            status: status
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
          }),
        },
        page,
      );
      return ok({ ...listed, ...page });
    },
  });

  app.get('/projects/:projectId/schedules/:scheduleId', {
    schema: {
      operationId: 'schedules.get',
      tags,
      summary: 'One schedule, with its state and, once run, its operation',
      description:
        'Its state (scheduled, running, live, reverting, completed, held, failed, cancelled), times in UTC and as entered, what it pushes, its operations and, when held or failed, why.',
      security: BEARER,
      params: S.ScheduleParams,
      response: { 200: S.ScheduleResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok({
        schedule: await schedules.get(
          contextOf(request),
          request.params.projectId,
          request.params.scheduleId,
        ),
      }),
  });

  app.delete('/projects/:projectId/schedules/:scheduleId', {
    schema: {
      operationId: 'schedules.cancel',
      tags,
      summary: "Cancels a schedule that has not run, or a live campaign's revert",
      description: '409 once it is running (cancel its operation) or has ended.',
      security: BEARER,
      params: S.ScheduleParams,
      response: { 200: S.ScheduleResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok({
        schedule: await schedules.cancel(
          contextOf(request),
          request.params.projectId,
          request.params.scheduleId,
        ),
      }),
  });
}
