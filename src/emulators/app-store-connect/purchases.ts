/**
 * In-app purchases in the App Store emulator (stores-more.md §A2–§A5, checklist 1–8, 13): the
 * products of an app, their versions (4.4.1) and the localizations of both models, with Apple's
 * rules — bodies against the spec, attributes a PATCH may not carry, locale codes, duplicates,
 * length limits (the unconfirmed ones as settings), the product's and the version's states, and
 * one model per product.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError, stateError } from './errors.js';
import type { JsonApi } from './json-api.js';
import type { PurchaseLocalization, PurchaseVersion } from './purchases-state.js';
import { LOCALES } from './rules.js';
import type { AppStoreState } from './state.js';

type Req = FastifyRequest<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>;
type Model = 'v1' | 'v2';

const entityError = (code: string, detail: string, pointer?: string) =>
  new AscFailure(
    409,
    code,
    'There is a problem with the request entity',
    detail,
    ...(pointer === undefined ? [] : [{ pointer }]),
  );

export function registerPurchaseRoutes(state: AppStoreState, spec: SpecValidator, api: JsonApi) {
  const { origin, respond, page } = api;
  const purchases = state.purchases;
  const log = (request: FastifyRequest) =>
    purchases.calls.push(`${request.method} ${request.url.split('?')[0]}`);

  const checkBody = (schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null) throw entityError('ENTITY_ERROR', problem);
    return body as {
      data: {
        id?: string;
        attributes?: Record<string, unknown>;
        relationships?: Record<string, { data: { id: string } }>;
      };
    };
  };

  const product = (
    request: FastifyRequest,
    p: { id: string; name: string; productId: string; inAppPurchaseType: string; state: string },
  ) => ({
    type: 'inAppPurchases',
    id: p.id,
    attributes: {
      name: p.name,
      productId: p.productId,
      inAppPurchaseType: p.inAppPurchaseType,
      state: p.state,
    },
    links: { self: `${origin(request)}/v2/inAppPurchases/${p.id}` },
  });
  const version = (request: FastifyRequest, v: PurchaseVersion) => ({
    type: 'inAppPurchaseVersions',
    id: v.id,
    attributes: { version: v.version, state: v.state },
    links: { self: `${origin(request)}/v1/inAppPurchaseVersions/${v.id}` },
  });
  const localization = (request: FastifyRequest, l: PurchaseLocalization) => ({
    type: 'inAppPurchaseLocalizations',
    id: l.id,
    attributes: {
      name: l.name,
      locale: l.locale,
      ...(l.description !== null && { description: l.description }),
      ...(l.model === 'v1' && { state: l.state }),
    },
    links: { self: `${origin(request)}/${l.model}/inAppPurchaseLocalizations/${l.id}` },
  });

  const requireProduct = (id: string) => {
    const found = purchases.products.get(id);
    if (found === undefined) throw notFoundError('inAppPurchases', id);
    return found;
  };
  const requireVersion = (id: string) => {
    const found = purchases.versions.get(id);
    if (found === undefined) throw notFoundError('inAppPurchaseVersions', id);
    return found;
  };
  const requireLocalization = (model: Model, id: string) => {
    const found = purchases.localizations.get(id);
    if (found === undefined || found.model !== model) throw notFoundError('inAppPurchaseLocalizations', id);
    return found;
  };

  /** The product a localization's parent belongs to, and whether it may be written now. */
  const assertWritable = (model: Model, parentId: string, attribute: string) => {
    const version = model === 'v2' ? requireVersion(parentId) : undefined;
    const item = requireProduct(version?.purchaseId ?? parentId);
    if (item.state === 'IN_REVIEW') throw stateError(attribute);
    if (version !== undefined && !purchases.rules.editableVersionStates.includes(version.state))
      throw stateError(attribute);
    if (model === 'v1' && purchases.rules.modelLock && purchases.versionsOf(item.id).length > 0) {
      throw new AscFailure(
        409,
        'STATE_ERROR',
        'The request cannot be fulfilled because of the state of another resource.',
        'This in-app purchase uses versions: edit the localizations of its draft version.',
      );
    }
  };

  const checkTexts = (attributes: Record<string, unknown>) => {
    const { nameMax, descriptionMax, descriptionMin } = purchases.rules;
    for (const [name, max] of [
      ['name', nameMax],
      ['description', descriptionMax],
    ] as const) {
      const value = attributes[name];
      if (typeof value === 'string' && [...value].length > max) {
        throw entityError(
          'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_LONG',
          `The provided entity contains a field '${name}' whose value is too long. It cannot exceed ${max} characters.`,
          `/data/attributes/${name}`,
        );
      }
    }
    const description = attributes.description;
    if (typeof description === 'string' && descriptionMin > 0 && [...description].length < descriptionMin) {
      throw entityError(
        'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_SHORT',
        `The provided entity contains a field 'description' whose value is too short. It must be at least ${descriptionMin} characters.`,
        '/data/attributes/description',
      );
    }
  };

  const create = (model: Model) => async (request: Req, reply: FastifyReply) => {
    log(request);
    const body = checkBody(
      model === 'v1' ? 'InAppPurchaseLocalizationCreateRequest' : 'InAppPurchaseLocalizationV2CreateRequest',
      request.body,
    );
    const attributes = body.data.attributes ?? {};
    const parentId = body.data.relationships![model === 'v1' ? 'inAppPurchaseV2' : 'version']!.data.id;
    const locale = String(attributes.locale);
    if (!LOCALES.has(locale)) {
      throw entityError(
        'ENTITY_ERROR.ATTRIBUTE.INVALID',
        `'${locale}' is not a valid locale`,
        '/data/attributes/locale',
      );
    }
    assertWritable(model, parentId, 'locale');
    checkTexts(attributes);
    if (purchases.localizationsOf(model, parentId).some((l) => l.locale === locale)) {
      throw entityError(
        'ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE',
        `Entity with locale: '${locale}' already exists. Try updating.`,
        '/data/attributes/locale',
      );
    }
    const created: PurchaseLocalization = {
      id: randomUUID(),
      model,
      parentId,
      locale,
      name: String(attributes.name),
      description: typeof attributes.description === 'string' ? attributes.description : null,
      ...(model === 'v1' && { state: 'PREPARE_FOR_SUBMISSION' }),
    };
    purchases.localizations.set(created.id, created);
    const schema =
      model === 'v1' ? 'InAppPurchaseLocalizationResponse' : 'InAppPurchaseLocalizationV2Response';
    return respond(reply, 201, schema, {
      data: localization(request, created),
      links: { self: `${origin(request)}/${model}/inAppPurchaseLocalizations/${created.id}` },
    });
  };

  const update = (model: Model) => async (request: Req, reply: FastifyReply) => {
    log(request);
    const found = requireLocalization(model, request.params.id);
    const body = checkBody(
      model === 'v1' ? 'InAppPurchaseLocalizationUpdateRequest' : 'InAppPurchaseLocalizationV2UpdateRequest',
      request.body,
    );
    if (body.data.id !== found.id) {
      throw entityError(
        'ENTITY_ERROR.INCLUDED.INVALID_ID',
        `The id '${body.data.id}' does not match the path.`,
        '/data/id',
      );
    }
    const attributes = body.data.attributes ?? {};
    for (const name of Object.keys(attributes)) {
      if (name !== 'name' && name !== 'description') {
        throw entityError(
          'ENTITY_ERROR.ATTRIBUTE.NOT_ALLOWED',
          `'${name}' can not be updated`,
          `/data/attributes/${name}`,
        );
      }
    }
    assertWritable(model, found.parentId, Object.keys(attributes)[0] ?? 'name');
    checkTexts(attributes);
    if (typeof attributes.name === 'string') found.name = attributes.name;
    if (attributes.description !== undefined)
      found.description = typeof attributes.description === 'string' ? attributes.description : null;
    // An approved text that changes goes back through review with the next submission.
    if (model === 'v1') found.state = 'PREPARE_FOR_SUBMISSION';
    const schema =
      model === 'v1' ? 'InAppPurchaseLocalizationResponse' : 'InAppPurchaseLocalizationV2Response';
    return respond(reply, 200, schema, {
      data: localization(request, found),
      links: { self: `${origin(request)}/${model}/inAppPurchaseLocalizations/${found.id}` },
    });
  };

  const read = (model: Model) => async (request: Req, reply: FastifyReply) => {
    log(request);
    const found = requireLocalization(model, request.params.id);
    const schema =
      model === 'v1' ? 'InAppPurchaseLocalizationResponse' : 'InAppPurchaseLocalizationV2Response';
    return respond(reply, 200, schema, {
      data: localization(request, found),
      links: { self: `${origin(request)}/${model}/inAppPurchaseLocalizations/${found.id}` },
    });
  };

  const remove = (model: Model) => async (request: Req, reply: FastifyReply) => {
    log(request);
    const found = requireLocalization(model, request.params.id);
    assertWritable(model, found.parentId, 'locale');
    purchases.localizations.delete(found.id);
    return reply.code(204).send();
  };

  return {
    v1(scope: FastifyInstance) {
      scope.get('/apps/:id/inAppPurchasesV2', async (request: Req, reply) => {
        log(request);
        if (!state.apps.has(request.params.id)) throw notFoundError('apps', request.params.id);
        const productIds = request.query['filter[productId]']?.split(',');
        const states = request.query['filter[state]']?.split(',');
        const items = [...purchases.products.values()].filter(
          (p) =>
            p.appId === request.params.id &&
            (productIds === undefined || productIds.includes(p.productId)) &&
            (states === undefined || states.includes(p.state)),
        );
        const { slice, links, meta } = page(request, items);
        return respond(reply, 200, 'InAppPurchasesV2Response', {
          data: slice.map((p) => product(request, p)),
          links,
          meta,
        });
      });
      scope.post('/inAppPurchaseLocalizations', create('v1'));
      scope.get('/inAppPurchaseLocalizations/:id', read('v1'));
      scope.patch('/inAppPurchaseLocalizations/:id', update('v1'));
      scope.delete('/inAppPurchaseLocalizations/:id', remove('v1'));

      // A new version is a draft that starts with copies of the texts in force.
      scope.post('/inAppPurchaseVersions', async (request: Req, reply) => {
        log(request);
        const body = checkBody('InAppPurchaseVersionCreateRequest', request.body);
        const item = requireProduct(body.data.relationships!.inAppPurchase!.data.id);
        const existing = purchases.versionsOf(item.id);
        if (purchases.rules.oneDraft && existing.some((v) => v.state === 'PREPARE_FOR_SUBMISSION')) {
          throw new AscFailure(
            409,
            'STATE_ERROR',
            'The request cannot be fulfilled because of the state of another resource.',
            'This in-app purchase already has a version in Prepare for Submission.',
          );
        }
        const latest = existing.at(-1);
        const created: PurchaseVersion = {
          id: randomUUID(),
          purchaseId: item.id,
          version: (latest?.version ?? 0) + 1,
          state: 'PREPARE_FOR_SUBMISSION',
        };
        purchases.versions.set(created.id, created);
        const from =
          latest === undefined
            ? purchases.localizationsOf('v1', item.id)
            : purchases.localizationsOf('v2', latest.id);
        for (const l of from) {
          const id = randomUUID();
          purchases.localizations.set(id, {
            id,
            model: 'v2',
            parentId: created.id,
            locale: l.locale,
            name: l.name,
            description: l.description,
          });
        }
        return respond(reply, 201, 'InAppPurchaseVersionResponse', {
          data: version(request, created),
          links: { self: `${origin(request)}/v1/inAppPurchaseVersions/${created.id}` },
        });
      });
      scope.get('/inAppPurchaseVersions/:id', async (request: Req, reply) => {
        log(request);
        const found = requireVersion(request.params.id);
        return respond(reply, 200, 'InAppPurchaseVersionResponse', {
          data: version(request, found),
          links: { self: `${origin(request)}/v1/inAppPurchaseVersions/${found.id}` },
        });
      });
      scope.get('/inAppPurchaseVersions/:id/localizations', async (request: Req, reply) => {
        log(request);
        requireVersion(request.params.id);
        const { slice, links, meta } = page(request, purchases.localizationsOf('v2', request.params.id));
        return respond(reply, 200, 'InAppPurchaseLocalizationsV2Response', {
          data: slice.map((l) => localization(request, l)),
          links,
          meta,
        });
      });
    },

    v2(scope: FastifyInstance) {
      scope.get('/inAppPurchases/:id', async (request: Req, reply) => {
        log(request);
        const found = requireProduct(request.params.id);
        return respond(reply, 200, 'InAppPurchaseV2Response', {
          data: product(request, found),
          links: { self: `${origin(request)}/v2/inAppPurchases/${found.id}` },
        });
      });
      // No filter[locale] on this list (§D): clients filter themselves.
      scope.get('/inAppPurchases/:id/inAppPurchaseLocalizations', async (request: Req, reply) => {
        log(request);
        requireProduct(request.params.id);
        const { slice, links, meta } = page(request, purchases.localizationsOf('v1', request.params.id));
        return respond(reply, 200, 'InAppPurchaseLocalizationsResponse', {
          data: slice.map((l) => localization(request, l)),
          links,
          meta,
        });
      });
      scope.get('/inAppPurchases/:id/versions', async (request: Req, reply) => {
        log(request);
        requireProduct(request.params.id);
        const states = request.query['filter[state]']?.split(',');
        const items = purchases
          .versionsOf(request.params.id)
          .filter((v) => states === undefined || states.includes(v.state));
        const { slice, links, meta } = page(request, items);
        return respond(reply, 200, 'InAppPurchaseVersionsResponse', {
          data: slice.map((v) => version(request, v)),
          links,
          meta,
        });
      });
      scope.post('/inAppPurchaseLocalizations', create('v2'));
      scope.get('/inAppPurchaseLocalizations/:id', read('v2'));
      scope.patch('/inAppPurchaseLocalizations/:id', update('v2'));
      scope.delete('/inAppPurchaseLocalizations/:id', remove('v2'));
    },
  };
}
