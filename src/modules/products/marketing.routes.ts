import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS } from '../../http/schemas.js';
import { ProjectParams } from '../projects/index.js';
import type { MarketingService } from './marketing.service.js';
import * as S from './marketing.schemas.js';

const tags = ['product pages and events'];
const STATE_409 =
  'In a state App Store Connect refuses changes in (a page version in review, an event published) the ' +
  'edit is 409 CONFLICT naming the state.';

/** App Store custom product pages and in-app events (design.md §18): thin adapters over their service. */
export function marketingRoutes(app: Api, services: { marketing: MarketingService }): void {
  const { marketing } = services;

  app.get('/projects/:projectId/product-pages', {
    schema: {
      operationId: 'productPages.list',
      tags,
      summary: 'Custom product pages with their promotional text per locale',
      description:
        "As the last sync read them, with the newest version's state, whether it can be edited (and why not), " +
        'and a preview of the first screenshots. Screenshots and previews are media slots of the page: ' +
        '`/projects/:projectId/media…?productPage=:pageId`. Google Play has no API for custom store listings.',
      security: BEARER,
      params: ProjectParams,
      response: { 200: S.PagesResponse, ...ERRORS },
    },
    handler: async (request) => ok(await marketing.listPages(contextOf(request), request.params.projectId)),
  });

  app.get('/projects/:projectId/product-pages/:pageId/:locale', {
    schema: {
      operationId: 'productPages.get',
      tags,
      summary: "A page's texts in one locale: working copy, base, state and limit",
      description:
        'A custom product page’s promotional text in one locale, with working copy, base, state and the 170-character limit; read-only while the page is in review.',
      security: BEARER,
      params: S.PageLocaleParams,
      response: { 200: S.PageLocaleResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, pageId, locale } = request.params;
      return ok(await marketing.getPage(contextOf(request), projectId, pageId, locale));
    },
  });

  app.patch('/projects/:projectId/product-pages/:pageId/:locale', {
    schema: {
      operationId: 'productPages.update',
      tags,
      summary: "Changes a page's promotional text in one locale",
      description:
        'Written to the page version being prepared when pushed (a new one is opened beside an approved ' +
        `version); a locale the page lacks is created. ${STATE_409}`,
      security: BEARER,
      params: S.PageLocaleParams,
      body: S.PagePatchBody,
      response: { 200: S.PageLocaleResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, pageId, locale } = request.params;
      return ok(await marketing.updatePage(contextOf(request), projectId, pageId, locale, request.body));
    },
  });

  app.post('/projects/:projectId/product-pages/:pageId/copy-default', {
    schema: {
      operationId: 'productPages.copyDefault',
      tags,
      summary: "Copies the default product page's promotional text and media into a page",
      description: `Per locale: the App Store listing's promotional text, its screenshots and previews (the same files, no bytes copied). ${STATE_409}`,
      security: BEARER,
      params: S.PageParams,
      body: S.CopyDefaultBody,
      response: { 200: S.CopyDefaultResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, pageId } = request.params;
      return ok(await marketing.copyDefault(contextOf(request), projectId, pageId, request.body ?? {}));
    },
  });

  app.get('/projects/:projectId/app-events', {
    schema: {
      operationId: 'appEvents.list',
      tags,
      summary: 'In-app events with their texts per locale',
      description:
        'As the last sync read them: badge, purpose, priority and schedule read-only, with whether their texts can be edited now.',
      security: BEARER,
      params: ProjectParams,
      response: { 200: S.EventsResponse, ...ERRORS },
    },
    handler: async (request) => ok(await marketing.listEvents(contextOf(request), request.params.projectId)),
  });

  app.get('/projects/:projectId/app-events/:eventId/:locale', {
    schema: {
      operationId: 'appEvents.get',
      tags,
      summary: "An event's texts in one locale: working copy, base, state and limits",
      description:
        'An in-app event’s name, short and long description in one locale, with working copy, base, state and limits; read-only while the store takes no changes.',
      security: BEARER,
      params: S.EventLocaleParams,
      response: { 200: S.EventLocaleResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, eventId, locale } = request.params;
      return ok(await marketing.getEvent(contextOf(request), projectId, eventId, locale));
    },
  });

  app.patch('/projects/:projectId/app-events/:eventId/:locale', {
    schema: {
      operationId: 'appEvents.update',
      tags,
      summary: "Changes an event's name, short and long description in one locale",
      description: `Checked against their limits (30, 50, 120 characters) first. ${STATE_409}`,
      security: BEARER,
      params: S.EventLocaleParams,
      body: S.EventPatchBody,
      response: { 200: S.EventLocaleResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, eventId, locale } = request.params;
      return ok(await marketing.updateEvent(contextOf(request), projectId, eventId, locale, request.body));
    },
  });
}
