import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS, PageQuery, pageOf } from '../../http/schemas.js';
import type { DetailsService } from './details.service.js';
import * as S from './details.schemas.js';

const tags = ['details'];

/** App details and App Review information (design.md §19): thin adapters over the details service. */
export function detailRoutes(app: Api, services: { details: DetailsService }): void {
  const { details } = services;

  app.get('/projects/:projectId/details/:store', {
    schema: {
      operationId: 'details.get',
      tags,
      summary: "A store's app details and App Review information",
      description:
        'As the last sync read them and as edited here, each with its state against the store. The demo account ' +
        'password shows only {"set": true|false}.',
      security: BEARER,
      params: S.DetailsParams,
      response: { 200: S.DetailsResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await details.get(contextOf(request), request.params.projectId, request.params.store)),
  });

  app.patch('/projects/:projectId/details/:store', {
    schema: {
      operationId: 'details.update',
      tags,
      summary: "Changes a store's app details",
      description:
        'App Store: copyright, primaryCategory, secondaryCategory (category ids; an unknown one is refused with the ' +
        'list), review{contactFirstName, contactLastName, contactPhone (+ and country code), contactEmail, ' +
        'demoAccountName, demoAccountPassword (admins only), demoAccountRequired, notes}. Google Play: contactEmail, ' +
        'contactPhone, contactWebsite, defaultLanguage. All checked first; pending until pushed.',
      security: BEARER,
      params: S.DetailsParams,
      body: S.DetailsBody,
      response: { 200: S.DetailsResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(
        await details.update(
          contextOf(request),
          request.params.projectId,
          request.params.store,
          request.body,
        ),
      ),
  });

  app.get('/projects/:projectId/details/:store/history', {
    schema: {
      operationId: 'details.history',
      tags,
      summary: "A store's app detail changes, newest first",
      description:
        'Every change of a store’s app details, newest first; the demo account password appears only as set or cleared. Paged.',
      security: BEARER,
      params: S.DetailsParams,
      querystring: PageQuery(),
      response: { 200: S.DetailsHistoryResponse, ...ERRORS },
    },
    handler: async (request) => {
      const page = pageOf(request.query);
      return ok(
        await details.history(contextOf(request), request.params.projectId, request.params.store, page),
      );
    },
  });
}
