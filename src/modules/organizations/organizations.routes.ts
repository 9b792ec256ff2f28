import { Readable } from 'node:stream';
import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { Type } from '@sinclair/typebox';
import { BEARER, ERRORS, Nullable, Ok, pageOf, StringEnum } from '../../http/schemas.js';
import { PLAN_NAMES } from './plans.js';
import type { OrganizationsService } from './organizations.service.js';
import * as S from './organizations.schemas.js';

const tags = ['organization'];
/** CSV text, sent as a stream. */
const CsvText = Type.Unsafe<Readable>({ type: 'string' });

export function organizationRoutes(app: Api, services: { organizations: OrganizationsService }): void {
  const { organizations } = services;

  app.get('/organization', {
    schema: {
      operationId: 'organization.get',
      tags,
      summary: "Read the caller's organization",
      description:
        'The caller’s organization: its name, plan and settings (whether pushes need approval, the drift check interval, terms never translated).',
      security: BEARER,
      response: { 200: S.GetOrganizationResponse, ...ERRORS },
    },
    handler: async (request) => ok(await organizations.get(contextOf(request))),
  });

  app.get('/organization/usage', {
    schema: {
      operationId: 'organization.usage',
      tags: ['organization'],
      summary: 'What the organization uses of its plan',
      description:
        "Projects, seats (members plus pending invites) and media storage (bytes of distinct files) used, with the plan's limits (null: unlimited). " +
        "Requests this minute are in every response's X-RateLimit-* headers.",
      security: BEARER,
      response: {
        200: Ok(
          Type.Object({
            plan: StringEnum(PLAN_NAMES),
            projects: Type.Object({ used: Type.Integer(), limit: Nullable(Type.Integer()) }),
            seats: Type.Object({ used: Type.Integer(), limit: Nullable(Type.Integer()) }),
            mediaBytes: Type.Object({ used: Type.Integer(), limit: Nullable(Type.Integer()) }),
            requestsPerMinute: Type.Integer(),
          }),
        ),
        ...ERRORS,
      },
    },
    handler: async (request) => ok(await organizations.usage(contextOf(request))),
  });

  app.patch('/organization', {
    schema: {
      operationId: 'organization.update',
      tags,
      summary: 'Rename the organization or change settings',
      description: 'Admin only. `settings` keys are merged; domains are lower-cased and de-duplicated.',
      security: BEARER,
      body: S.UpdateOrganizationBody,
      response: { 200: S.UpdateOrganizationResponse, ...ERRORS },
    },
    handler: async (request) => ok(await organizations.update(contextOf(request), request.body)),
  });

  app.get('/organization/audit-log', {
    schema: {
      operationId: 'auditLog.list',
      tags,
      summary: 'Read the audit log',
      description:
        'Admin only. Every state change of the organization, newest first: who (with their name ' +
        'then), what (the operation id), in which project. Filters combine.',
      security: BEARER,
      querystring: S.AuditLogQuery,
      response: { 200: S.AuditLogResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { limit, offset, ...filter } = request.query;
      const page = pageOf({ limit, offset });
      return ok({ ...(await organizations.auditLog(contextOf(request), filter, page)), ...page });
    },
  });

  app.get('/organization/audit-log.csv', {
    schema: {
      operationId: 'auditLog.export',
      tags,
      summary: 'Download the audit log as CSV',
      description:
        'Admin only. The entries the same filters select, newest first, as CSV (RFC 4180, header ' +
        'row), streamed as they are read.',
      security: BEARER,
      querystring: S.AuditLogFilter,
      response: {
        200: {
          description: 'The entries, as an attachment',
          content: { 'text/csv': { schema: CsvText } },
        },
        ...ERRORS,
      },
    },
    handler: async (request, reply) => {
      const lines = organizations.auditLogCsv(contextOf(request), request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', 'attachment; filename="audit-log.csv"')
        .send(Readable.from(lines));
    },
  });
}
