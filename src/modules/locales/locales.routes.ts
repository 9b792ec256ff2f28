import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS } from '../../http/schemas.js';
import type { LocalesService } from './locales.service.js';
import * as S from './locales.schemas.js';

export function localeRoutes(app: Api, services: { locales: LocalesService }): void {
  const { locales } = services;

  app.get('/locales', {
    schema: {
      operationId: 'locales.list',
      tags: ['listings'],
      summary: 'The locale codes of each store',
      description:
        "Each store's codes with their English names (Apple zh-Hans, Google zh-CN: codes stay store-native), the " +
        'codes both stores accept as written, and with `projectId` the locales that project has in each store.',
      security: BEARER,
      querystring: S.LocalesQuery,
      response: { 200: S.LocalesResponse, ...ERRORS },
    },
    handler: async (request) => ok(await locales.list(contextOf(request), request.query.projectId)),
  });
}
