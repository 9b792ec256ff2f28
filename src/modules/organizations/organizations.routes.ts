import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, PageQuery, pageOf } from '../../http/schemas.js';
import type { OrganizationsService } from './organizations.service.js';
import * as S from './organizations.schemas.js';

const tags = ['organization'];

export function organizationRoutes(app: Api, services: { organizations: OrganizationsService }): void {
  const { organizations } = services;

  app.get('/organization', {
    schema: {
      operationId: 'organization.get',
      tags,
      summary: "Read the caller's organization",
      security: BEARER,
      response: { 200: S.GetOrganizationResponse, ...ERRORS },
    },
    handler: async (request) => ok(await organizations.get(contextOf(request))),
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
      description: 'Admin only. Every state change of the organization, newest first.',
      security: BEARER,
      querystring: PageQuery(),
      response: { 200: S.AuditLogResponse, ...ERRORS },
    },
    handler: async (request) => {
      const query = pageOf(request.query);
      const page = await organizations.auditLog(contextOf(request), query);
      return ok({ ...page, ...query });
    },
  });
}
