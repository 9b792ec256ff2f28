/**
 * In-app purchases, subscriptions and subscription groups in the App Store emulator
 * (stores-more.md §A2–§A5, checklist 1–8, 13): the containers of an app, their versions (4.4.1)
 * and the localizations of both models — one set of routes per family, from one table — with
 * Apple's rules: bodies against the spec, attributes a PATCH may not carry, locale codes,
 * duplicates, length limits (the unconfirmed ones as settings), the container's and the version's
 * states, and one model per container.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError, stateError } from './errors.js';
import type { JsonApi } from './json-api.js';
import { FAMILIES } from './purchase-families.js';
import type { Family, PurchaseContainer, PurchaseLocalization, PurchaseVersion } from './purchases-state.js';
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

interface Body {
  data: {
    id?: string;
    attributes?: Record<string, unknown>;
    relationships?: Record<string, { data: { id: string } }>;
  };
}

export function registerPurchaseRoutes(state: AppStoreState, spec: SpecValidator, api: JsonApi) {
  const { origin, respond, page } = api;
  const purchases = state.purchases;
  const log = (request: FastifyRequest) =>
    purchases.calls.push(`${request.method} ${request.url.split('?')[0]}`);

  const checkBody = (schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null) throw entityError('ENTITY_ERROR', problem);
    return body as Body;
  };

  const containerResource = (request: FastifyRequest, c: PurchaseContainer) => {
    const family = FAMILIES[c.family];
    const attributes =
      c.family === 'subscriptionGroup'
        ? { referenceName: c.name }
        : {
            name: c.name,
            productId: c.productId,
            state: c.state,
            ...(c.inAppPurchaseType !== undefined && { inAppPurchaseType: c.inAppPurchaseType }),
            ...(c.subscriptionPeriod !== undefined && { subscriptionPeriod: c.subscriptionPeriod }),
          };
    return {
      type: family.type,
      id: c.id,
      attributes,
      links: { self: `${origin(request)}${family.path}/${c.id}` },
    };
  };
  const versionResource = (request: FastifyRequest, family: Family, v: PurchaseVersion) => ({
    type: FAMILIES[family].version,
    id: v.id,
    attributes: { version: v.version, state: v.state },
    links: { self: `${origin(request)}/v1/${FAMILIES[family].version}/${v.id}` },
  });
  const localizationResource = (request: FastifyRequest, l: PurchaseLocalization) => ({
    type: FAMILIES[l.family].localization,
    id: l.id,
    attributes: {
      locale: l.locale,
      ...Object.fromEntries(Object.entries(l.texts).filter(([, v]) => v !== null)),
      ...(l.model === 'v1' && { state: l.state }),
    },
    links: { self: `${origin(request)}/${l.model}/${FAMILIES[l.family].localization}/${l.id}` },
  });

  const requireContainer = (family: Family, id: string) => {
    const found = purchases.products.get(id);
    if (found === undefined || found.family !== family) throw notFoundError(FAMILIES[family].type, id);
    return found;
  };
  const requireVersion = (family: Family, id: string) => {
    const found = purchases.versions.get(id);
    if (found === undefined || purchases.products.get(found.purchaseId)?.family !== family)
      throw notFoundError(FAMILIES[family].version, id);
    return found;
  };
  const requireLocalization = (family: Family, model: Model, id: string) => {
    const found = purchases.localizations.get(id);
    if (found === undefined || found.model !== model || found.family !== family)
      throw notFoundError(FAMILIES[family].localization, id);
    return found;
  };

  /** Whether a localization of this parent may be written now (states, one model per container). */
  const assertWritable = (family: Family, model: Model, parentId: string, attribute: string) => {
    const version = model === 'v2' ? requireVersion(family, parentId) : undefined;
    const container = requireContainer(family, version?.purchaseId ?? parentId);
    if (container.state === 'IN_REVIEW') throw stateError(attribute);
    if (version !== undefined && !purchases.rules.editableVersionStates.includes(version.state))
      throw stateError(attribute);
    if (model === 'v1' && purchases.rules.modelLock && purchases.versionsOf(container.id).length > 0) {
      throw new AscFailure(
        409,
        'STATE_ERROR',
        'The request cannot be fulfilled because of the state of another resource.',
        `This ${family} uses versions: edit the localizations of its draft version.`,
      );
    }
  };

  const checkTexts = (family: Family, attributes: Record<string, unknown>) => {
    for (const [name, max] of Object.entries(purchases.rules.limits[family])) {
      const value = attributes[name];
      if (typeof value === 'string' && [...value].length > max) {
        throw entityError(
          'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_LONG',
          `The provided entity contains a field '${name}' whose value is too long. It cannot exceed ${max} characters.`,
          `/data/attributes/${name}`,
        );
      }
    }
    const min = purchases.rules.descriptionMin;
    const description = attributes.description;
    if (typeof description === 'string' && min > 0 && [...description].length < min) {
      throw entityError(
        'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_SHORT',
        `The provided entity contains a field 'description' whose value is too short. It must be at least ${min} characters.`,
        '/data/attributes/description',
      );
    }
  };

  const schemaOf = (family: Family, model: Model, suffix: string) =>
    `${FAMILIES[family].schema}${model === 'v2' ? 'V2' : ''}${suffix}`;
  /** Lists are named with the plural first: InAppPurchaseLocalizationsV2Response. */
  const listSchemaOf = (family: Family, model: Model) =>
    `${FAMILIES[family].schema}s${model === 'v2' ? 'V2' : ''}Response`;
  const one = (request: FastifyRequest, reply: FastifyReply, status: number, l: PurchaseLocalization) =>
    respond(reply, status, schemaOf(l.family, l.model, 'Response'), {
      data: localizationResource(request, l),
      links: { self: `${origin(request)}/${l.model}/${FAMILIES[l.family].localization}/${l.id}` },
    });

  const create = (family: Family, model: Model) => async (request: Req, reply: FastifyReply) => {
    log(request);
    const body = checkBody(schemaOf(family, model, 'CreateRequest'), request.body);
    const attributes = body.data.attributes ?? {};
    const relationship = model === 'v1' ? FAMILIES[family].v1Relationship : 'version';
    const parentId = body.data.relationships![relationship]!.data.id;
    const locale = String(attributes.locale);
    if (!LOCALES.has(locale)) {
      throw entityError(
        'ENTITY_ERROR.ATTRIBUTE.INVALID',
        `'${locale}' is not a valid locale`,
        '/data/attributes/locale',
      );
    }
    assertWritable(family, model, parentId, 'locale');
    checkTexts(family, attributes);
    if (purchases.localizationsOf(model, parentId).some((l) => l.locale === locale)) {
      throw entityError(
        'ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE',
        `Entity with locale: '${locale}' already exists. Try updating.`,
        '/data/attributes/locale',
      );
    }
    const created: PurchaseLocalization = {
      id: randomUUID(),
      family,
      model,
      parentId,
      locale,
      texts: Object.fromEntries(
        FAMILIES[family].texts.map((name) => [
          name,
          typeof attributes[name] === 'string' ? attributes[name] : null,
        ]),
      ),
      ...(model === 'v1' && { state: 'PREPARE_FOR_SUBMISSION' }),
    };
    purchases.localizations.set(created.id, created);
    return one(request, reply, 201, created);
  };

  const update = (family: Family, model: Model) => async (request: Req, reply: FastifyReply) => {
    log(request);
    const found = requireLocalization(family, model, request.params.id);
    const body = checkBody(schemaOf(family, model, 'UpdateRequest'), request.body);
    if (body.data.id !== found.id) {
      throw entityError(
        'ENTITY_ERROR.INCLUDED.INVALID_ID',
        `The id '${body.data.id}' does not match the path.`,
        '/data/id',
      );
    }
    const attributes = body.data.attributes ?? {};
    for (const name of Object.keys(attributes)) {
      if (!FAMILIES[family].texts.includes(name)) {
        throw entityError(
          'ENTITY_ERROR.ATTRIBUTE.NOT_ALLOWED',
          `'${name}' can not be updated`,
          `/data/attributes/${name}`,
        );
      }
    }
    assertWritable(family, model, found.parentId, Object.keys(attributes)[0] ?? 'name');
    checkTexts(family, attributes);
    for (const [name, value] of Object.entries(attributes))
      found.texts[name] = typeof value === 'string' ? value : null;
    // An approved text that changes goes back through review with the next submission.
    if (model === 'v1') found.state = 'PREPARE_FOR_SUBMISSION';
    return one(request, reply, 200, found);
  };

  const read = (family: Family, model: Model) => async (request: Req, reply: FastifyReply) => {
    log(request);
    return one(request, reply, 200, requireLocalization(family, model, request.params.id));
  };

  const remove = (family: Family, model: Model) => async (request: Req, reply: FastifyReply) => {
    log(request);
    const found = requireLocalization(family, model, request.params.id);
    assertWritable(family, model, found.parentId, 'locale');
    purchases.localizations.delete(found.id);
    return reply.code(204).send();
  };

  /** Routes of one family's localizations, under the scope of their version prefix. */
  const localizationRoutes = (scope: FastifyInstance, family: Family, model: Model) => {
    const path = `/${FAMILIES[family].localization}`;
    scope.post(path, create(family, model));
    scope.get(`${path}/:id`, read(family, model));
    scope.patch(`${path}/:id`, update(family, model));
    scope.delete(`${path}/:id`, remove(family, model));
  };

  /** A container's v1 localizations and versions (IAPs under /v2, the others under /v1). */
  const containerRoutes = (scope: FastifyInstance, family: Family) => {
    const base = `/${FAMILIES[family].type}/:id`;
    // No filter[locale] on this list (§D): clients filter themselves.
    scope.get(`${base}/${FAMILIES[family].localization}`, async (request: Req, reply) => {
      log(request);
      requireContainer(family, request.params.id);
      const { slice, links, meta } = page(request, purchases.localizationsOf('v1', request.params.id));
      return respond(reply, 200, listSchemaOf(family, 'v1'), {
        data: slice.map((l) => localizationResource(request, l)),
        links,
        meta,
      });
    });
    scope.get(`${base}/versions`, async (request: Req, reply) => {
      log(request);
      requireContainer(family, request.params.id);
      const states = request.query['filter[state]']?.split(',');
      const items = purchases
        .versionsOf(request.params.id)
        .filter((v) => states === undefined || states.includes(v.state));
      const { slice, links, meta } = page(request, items);
      return respond(reply, 200, `${FAMILIES[family].versionSchema}sResponse`, {
        data: slice.map((v) => versionResource(request, family, v)),
        links,
        meta,
      });
    });
    scope.get(base, async (request: Req, reply) => {
      log(request);
      const found = requireContainer(family, request.params.id);
      return respond(reply, 200, FAMILIES[family].containerSchema, {
        data: containerResource(request, found),
        links: { self: `${origin(request)}${FAMILIES[family].path}/${found.id}` },
      });
    });
  };

  /** Versions: a new one is a draft that starts with copies of the texts in force. */
  const versionRoutes = (scope: FastifyInstance, family: Family) => {
    const { version, versionSchema, versionRelationship } = FAMILIES[family];
    scope.post(`/${version}`, async (request: Req, reply) => {
      log(request);
      const body = checkBody(`${versionSchema}CreateRequest`, request.body);
      const container = requireContainer(family, body.data.relationships![versionRelationship]!.data.id);
      const existing = purchases.versionsOf(container.id);
      if (purchases.rules.oneDraft && existing.some((v) => v.state === 'PREPARE_FOR_SUBMISSION')) {
        throw new AscFailure(
          409,
          'STATE_ERROR',
          'The request cannot be fulfilled because of the state of another resource.',
          `This ${family} already has a version in Prepare for Submission.`,
        );
      }
      const latest = existing.at(-1);
      const created: PurchaseVersion = {
        id: randomUUID(),
        purchaseId: container.id,
        version: (latest?.version ?? 0) + 1,
        state: 'PREPARE_FOR_SUBMISSION',
      };
      purchases.versions.set(created.id, created);
      const from =
        latest === undefined
          ? purchases.localizationsOf('v1', container.id)
          : purchases.localizationsOf('v2', latest.id);
      for (const l of from) {
        const id = randomUUID();
        purchases.localizations.set(id, {
          id,
          family,
          model: 'v2',
          parentId: created.id,
          locale: l.locale,
          texts: { ...l.texts },
        });
      }
      return respond(reply, 201, `${versionSchema}Response`, {
        data: versionResource(request, family, created),
        links: { self: `${origin(request)}/v1/${version}/${created.id}` },
      });
    });
    scope.get(`/${version}/:id`, async (request: Req, reply) => {
      log(request);
      const found = requireVersion(family, request.params.id);
      return respond(reply, 200, `${versionSchema}Response`, {
        data: versionResource(request, family, found),
        links: { self: `${origin(request)}/v1/${version}/${found.id}` },
      });
    });
    scope.get(`/${version}/:id/localizations`, async (request: Req, reply) => {
      log(request);
      requireVersion(family, request.params.id);
      const { slice, links, meta } = page(request, purchases.localizationsOf('v2', request.params.id));
      return respond(reply, 200, listSchemaOf(family, 'v2'), {
        data: slice.map((l) => localizationResource(request, l)),
        links,
        meta,
      });
    });
  };

  const appList = (family: Family, schema: string) => async (request: Req, reply: FastifyReply) => {
    log(request);
    if (!state.apps.has(request.params.id)) throw notFoundError('apps', request.params.id);
    const productIds = request.query['filter[productId]']?.split(',');
    const states = request.query['filter[state]']?.split(',');
    const items = purchases
      .containersOf(request.params.id, family)
      .filter(
        (c) =>
          (productIds === undefined || productIds.includes(c.productId ?? '')) &&
          (states === undefined || states.includes(c.state ?? '')),
      );
    const { slice, links, meta } = page(request, items);
    return respond(reply, 200, schema, {
      data: slice.map((c) => containerResource(request, c)),
      links,
      meta,
    });
  };

  return {
    v1(scope: FastifyInstance) {
      scope.get('/apps/:id/inAppPurchasesV2', appList('inAppPurchase', 'InAppPurchasesV2Response'));
      scope.get('/apps/:id/subscriptionGroups', appList('subscriptionGroup', 'SubscriptionGroupsResponse'));
      scope.get('/subscriptionGroups/:id/subscriptions', async (request: Req, reply) => {
        log(request);
        requireContainer('subscriptionGroup', request.params.id);
        const items = [...purchases.products.values()].filter((c) => c.groupId === request.params.id);
        const { slice, links, meta } = page(request, items);
        return respond(reply, 200, 'SubscriptionsResponse', {
          data: slice.map((c) => containerResource(request, c)),
          links,
          meta,
        });
      });
      containerRoutes(scope, 'subscription');
      containerRoutes(scope, 'subscriptionGroup');
      for (const family of Object.keys(FAMILIES) as Family[]) {
        localizationRoutes(scope, family, 'v1');
        versionRoutes(scope, family);
      }
    },
    v2(scope: FastifyInstance) {
      containerRoutes(scope, 'inAppPurchase');
      for (const family of Object.keys(FAMILIES) as Family[]) localizationRoutes(scope, family, 'v2');
    },
  };
}
