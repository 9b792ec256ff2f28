import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS } from '../../http/schemas.js';
import { ProjectParams } from '../projects/index.js';
import type { ProductsService } from './products.service.js';
import * as S from './products.schemas.js';

const tags = ['products'];

/** In-app purchases and subscriptions (design.md §17): thin adapters over the products service. */
export function productRoutes(app: Api, services: { products: ProductsService }): void {
  const { products } = services;

  app.get('/projects/:projectId/products', {
    schema: {
      operationId: 'products.list',
      tags,
      summary: "Both stores' in-app purchases and subscriptions with their texts per locale",
      description: 'As the last sync read them; the limits each text is checked against come with them.',
      security: BEARER,
      params: ProjectParams,
      querystring: S.ProductsQuery,
      response: { 200: S.ProductsResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await products.list(contextOf(request), request.params.projectId, request.query)),
  });

  app.get('/projects/:projectId/products/:store/:productId/:locale', {
    schema: {
      operationId: 'products.get',
      tags,
      summary: "One product's texts in one locale: working copy, base, state and limits",
      description:
        'One in-app purchase or subscription in one locale: each text with working copy, base, state, its limit and whether it is over it.',
      security: BEARER,
      params: S.ProductParams,
      response: { 200: S.ProductLocaleResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, ...key } = request.params;
      return ok(await products.get(contextOf(request), projectId, key));
    },
  });

  app.patch('/projects/:projectId/products/:store/:productId/:locale', {
    schema: {
      operationId: 'products.update',
      tags,
      summary: "Changes one product's texts in one locale",
      description:
        'Every text is checked against the limit table first: all problems in one 400, each with its limit and length. A locale the store lacks needs its required text (name or title).',
      security: BEARER,
      params: S.ProductParams,
      body: S.ProductPatchBody,
      response: { 200: S.ProductLocaleResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, ...key } = request.params;
      return ok(await products.update(contextOf(request), projectId, key, request.body));
    },
  });

  app.get('/projects/:projectId/products/:store/:productId/:locale/history', {
    schema: {
      operationId: 'products.history',
      tags,
      summary: "A product's text changes in one locale, newest first",
      description:
        'Every change of a product’s texts in one locale, with who made it and where it came from, newest first; paged.',
      security: BEARER,
      params: S.ProductParams,
      querystring: S.HistoryQuery,
      response: { 200: S.ProductHistoryResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, ...key } = request.params;
      return ok(
        await products.history(contextOf(request), projectId, key, {
          limit: request.query.limit ?? 20,
          offset: request.query.offset ?? 0,
        }),
      );
    },
  });

  app.post('/projects/:projectId/products/revert', {
    schema: {
      operationId: 'products.revert',
      tags,
      summary: 'Sets a product text back to its value before (or after) a history entry',
      description:
        'Writes a product text as it was before (or, with `after`, just after) a history entry, as a new change. Pending until pushed.',
      security: BEARER,
      params: ProjectParams,
      body: S.RevertBody,
      response: { 200: S.ProductLocaleResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await products.revert(contextOf(request), request.params.projectId, request.body)),
  });

  app.post('/projects/:projectId/products/copy', {
    schema: {
      operationId: 'products.copy',
      tags,
      summary: "Copies a product's texts into its counterpart in the other store",
      description:
        'The counterpart is the product with the same id, or to.productId. Locales are mapped (zh-Hans ↔ zh-CN) and fields too (name ↔ title, description ↔ description); every text is checked against the target limits first — one too long is refused, never cut; all or nothing.',
      security: BEARER,
      params: ProjectParams,
      body: S.CopyBody,
      response: { 200: S.CopyResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await products.copy(contextOf(request), request.params.projectId, request.body)),
  });

  app.put('/projects/:projectId/products/:store/:productId/link', {
    schema: {
      operationId: 'products.link',
      tags,
      summary: 'Links a product to its counterpart in the other store (their ids differ)',
      description:
        'Copy then finds the counterpart without being told. One to one: an earlier link of either is undone; null unlinks. Sync keeps links.',
      security: BEARER,
      params: S.LinkParams,
      body: S.LinkBody,
      response: { 200: S.LinkResponse, ...ERRORS },
    },
    handler: async (request) => {
      const { projectId, ...key } = request.params;
      return ok(await products.link(contextOf(request), projectId, key, request.body.productId));
    },
  });
}
