/**
 * Google Play's products in the emulator (stores-more.md §A6, §A7, checklist 14–19, 21): one-time
 * products (`inappproducts`) and subscriptions (`monetization.subscriptions`), live — outside any
 * edit — with token paging, the listing limits of §F (the unconfirmed ones are settings), the
 * default-language rule, and `monetization.onetimeproducts` absent as in the pinned revision.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { PlayFailure } from './errors.js';
import { requireApp } from './access.js';
import { LOCALES } from './rules.js';
import type { InAppProduct, PlayState, ProductRules, Subscription } from './state.js';
import { registerProductBatches } from './product-batches.js';

/** The fields of each message, as the pinned discovery document lists them. */
const FIELDS = {
  InAppProduct: [
    'defaultLanguage',
    'defaultPrice',
    'gracePeriod',
    'listings',
    'managedProductTaxesAndComplianceSettings',
    'packageName',
    'prices',
    'purchaseType',
    'sku',
    'status',
    'subscriptionPeriod',
    'subscriptionTaxesAndComplianceSettings',
    'trialPeriod',
  ],
  Subscription: [
    'archived',
    'basePlans',
    'listings',
    'packageName',
    'productId',
    'restrictedPaymentCountries',
    'taxAndComplianceSettings',
  ],
};

const invalid = (message: string) => new PlayFailure(400, 'INVALID_ARGUMENT', message, 'badRequest');
const notFound = (message: string) => new PlayFailure(404, 'NOT_FOUND', message, 'notFound');
const length = (text: string | undefined) => (text === undefined ? 0 : [...text].length);

type ProductReq = FastifyRequest<{
  Params: { packageName: string; sku?: string; productId?: string };
  Querystring: Record<string, unknown>;
}>;
const appOf = (state: PlayState, req: ProductReq) => requireApp(state, req);

/** Checks a one-time product's listings against the limits and the app's default language. */
function checkInAppListings(product: InAppProduct, defaultLanguage: string, rules: ProductRules): void {
  for (const [language, listing] of Object.entries(product.listings)) {
    if (!LOCALES.has(language)) throw invalid(`Invalid language code: ${language}`);
    if (length(listing.title) > rules.inAppTitle)
      throw invalid(`Title for language ${language} is too long (max ${rules.inAppTitle} characters).`);
    if (length(listing.description) > rules.inAppDescription) {
      throw invalid(
        `Description for language ${language} is too long (max ${rules.inAppDescription} characters).`,
      );
    }
  }
  if (product.listings[defaultLanguage] === undefined)
    throw invalid(`Missing listing for the default language ${defaultLanguage}.`);
}

function checkSubscriptionListings(subscription: Subscription, defaultLanguage: string, rules: ProductRules) {
  const seen = new Set<string>();
  for (const listing of subscription.listings) {
    const language = listing.languageCode;
    if (language === undefined || language === '') throw invalid('listings.languageCode is required.');
    if (!LOCALES.has(language)) throw invalid(`Invalid language code: ${language}`);
    if (seen.has(language)) throw invalid(`Duplicate listing for language ${language}.`);
    seen.add(language);
    if (listing.title === undefined || listing.title === '')
      throw invalid(`listings.title is required for language ${language}.`);
    if (length(listing.title) > rules.subscriptionTitle) {
      throw invalid(
        `Title for language ${language} is too long (max ${rules.subscriptionTitle} characters).`,
      );
    }
    if (length(listing.description) > rules.subscriptionDescription) {
      throw invalid(
        `Description for language ${language} is too long (max ${rules.subscriptionDescription} characters).`,
      );
    }
    const benefits = listing.benefits ?? [];
    if (benefits.length > rules.benefits)
      throw invalid(`At most ${rules.benefits} benefits are allowed for language ${language}.`);
    for (const benefit of benefits) {
      if (length(benefit) > rules.benefitLength)
        throw invalid(
          `A benefit for language ${language} is too long (max ${rules.benefitLength} characters).`,
        );
    }
  }
  if (!seen.has(defaultLanguage))
    throw invalid(`Missing listing for the default language ${defaultLanguage}.`);
}

export type PlayApp = ReturnType<typeof requireApp>;

export function registerPlayProducts(state: PlayState, spec: SpecValidator) {
  /** A one-time product as a PUT or PATCH leaves it, checked; throws Google's refusal. */
  function nextInApp(
    target: PlayApp,
    sku: string,
    body: Record<string, unknown>,
    mode: 'put' | 'patch',
    allowMissing: boolean,
  ): InAppProduct {
    const current = target.inAppProducts.get(sku);
    if (current === undefined && !(mode === 'put' && allowMissing))
      throw notFound(`Product not found: ${sku}`);
    if (body.sku !== undefined && body.sku !== sku)
      throw invalid('The SKU in the body differs from the path.');
    if (body.purchaseType === 'subscription')
      throw invalid('This API can no longer be used for subscriptions; use monetization.subscriptions.');
    const next = {
      ...(mode === 'patch' ? current : {}),
      ...body,
      sku,
      packageName: target.packageName,
      purchaseType: 'managedUser',
      defaultLanguage: target.defaultLanguage,
      status: (body.status ?? current?.status ?? 'inactive') as InAppProduct['status'],
      listings: (body.listings ?? current?.listings ?? {}) as InAppProduct['listings'],
    } as InAppProduct;
    checkInAppListings(next, target.defaultLanguage, state.productRules);
    return next;
  }

  /** A subscription as an update leaves it, checked (update mask, regions version, allowMissing). */
  function nextSubscription(
    target: PlayApp,
    productId: string,
    body: Record<string, unknown>,
    options: { mask: string; regions: unknown; allowMissing: boolean },
  ): Subscription {
    const current = target.subscriptions.get(productId);
    if (current === undefined && !options.allowMissing)
      throw notFound(`Subscription not found: ${productId}`);
    if (current !== undefined && options.mask === '') throw invalid('updateMask is required.');
    if (typeof options.regions !== 'string' || options.regions === '')
      throw invalid('regionsVersion.version is required.');
    if (body.productId !== undefined && body.productId !== productId)
      throw invalid('The productId in the body differs from the path.');
    const fields = options.mask.split(',').map((f) => f.trim());
    const unknown = fields.find((f) => f !== '' && f !== 'listings' && f !== 'basePlans');
    if (current !== undefined && unknown !== undefined)
      throw invalid(`Unsupported update mask path: ${unknown}`);
    const next: Subscription =
      current === undefined
        ? ({ ...body, productId, packageName: target.packageName } as unknown as Subscription)
        : {
            ...current,
            ...(fields.includes('listings') && { listings: body.listings as Subscription['listings'] }),
            ...(fields.includes('basePlans') && { basePlans: body.basePlans as Subscription['basePlans'] }),
          };
    checkSubscriptionListings(next, target.defaultLanguage, state.productRules);
    return next;
  }

  const respond = (reply: FastifyReply, schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null) throw new Error(`emulator response does not match ${schema}: ${problem}`);
    return reply.code(200).type('application/json').send(body);
  };
  const request = (schema: keyof typeof FIELDS, body: unknown) => {
    const problem = spec.check(schema, body ?? {});
    if (problem !== null) throw invalid(`Invalid JSON payload received. ${problem}`);
    // Google's JSON APIs refuse a field their message does not have.
    const unknown = Object.keys(body ?? {}).find((key) => !FIELDS[schema].includes(key));
    if (unknown !== undefined)
      throw invalid(`Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
    return structuredClone(body) as Record<string, unknown>;
  };
  const log = (req: ProductReq) => {
    const path = (req.url.split('?')[0] ?? '').replace(/^.*\/applications\/[^/]+\//, '');
    state.productCalls.push(`${req.method} ${path}`);
  };

  return (scope: FastifyInstance) => {
    const base = '/applications/:packageName';

    // One-time products: the page size is Google's (maxResults and startIndex are ignored).
    scope.get(`${base}/inappproducts`, async (req: ProductReq, reply) => {
      log(req);
      const target = appOf(state, req);
      const all = [...target.inAppProducts.values()].sort((a, b) => (a.sku < b.sku ? -1 : 1));
      const token = typeof req.query.token === 'string' ? req.query.token : undefined;
      const start = token === undefined ? 0 : Number(Buffer.from(token, 'base64url').toString());
      if (!Number.isInteger(start) || start < 0 || start > all.length) throw invalid('Invalid page token.');
      const end = start + state.productRules.inAppPageSize;
      return respond(reply, 'InappproductsListResponse', {
        kind: 'androidpublisher#inappproductsListResponse',
        inappproduct: all.slice(start, end),
        ...(end < all.length && {
          tokenPagination: { nextPageToken: Buffer.from(String(end)).toString('base64url') },
        }),
      });
    });
    scope.get(`${base}/inappproducts/:sku`, async (req: ProductReq, reply) => {
      log(req);
      const product = appOf(state, req).inAppProducts.get(req.params.sku!);
      if (product === undefined) throw notFound(`Product not found: ${req.params.sku}`);
      return respond(reply, 'InAppProduct', product);
    });
    // PUT replaces the whole product; PATCH merges the top-level fields given (listings as a whole).
    const write = (mode: 'put' | 'patch') => async (req: ProductReq, reply: FastifyReply) => {
      log(req);
      const target = appOf(state, req);
      const sku = req.params.sku!;
      const allowMissing = req.query.allowMissing === 'true' || req.query.allowMissing === true;
      const next = nextInApp(target, sku, request('InAppProduct', req.body), mode, allowMissing);
      target.inAppProducts.set(sku, next);
      return respond(reply, 'InAppProduct', next);
    };
    scope.put(`${base}/inappproducts/:sku`, write('put'));
    scope.patch(`${base}/inappproducts/:sku`, write('patch'));

    // Subscriptions: pageSize (default 50, at most 1000) and pageToken.
    scope.get(`${base}/subscriptions`, async (req: ProductReq, reply) => {
      log(req);
      const target = appOf(state, req);
      const all = [...target.subscriptions.values()].sort((a, b) => (a.productId < b.productId ? -1 : 1));
      const asked = req.query.pageSize === undefined ? 50 : Number(req.query.pageSize);
      if (!Number.isInteger(asked) || asked < 0) throw invalid('Invalid pageSize.');
      const size = Math.min(asked === 0 ? 50 : asked, 1000);
      const token = typeof req.query.pageToken === 'string' ? req.query.pageToken : undefined;
      const start = token === undefined ? 0 : Number(Buffer.from(token, 'base64url').toString());
      if (!Number.isInteger(start) || start < 0 || start > all.length) throw invalid('Invalid page token.');
      const end = start + size;
      return respond(reply, 'ListSubscriptionsResponse', {
        subscriptions: all.slice(start, end),
        ...(end < all.length && { nextPageToken: Buffer.from(String(end)).toString('base64url') }),
      });
    });
    scope.get(`${base}/subscriptions/:productId`, async (req: ProductReq, reply) => {
      log(req);
      const subscription = appOf(state, req).subscriptions.get(req.params.productId!);
      if (subscription === undefined) throw notFound(`Subscription not found: ${req.params.productId}`);
      return respond(reply, 'Subscription', subscription);
    });
    scope.patch(`${base}/subscriptions/:productId`, async (req: ProductReq, reply) => {
      log(req);
      const target = appOf(state, req);
      const productId = req.params.productId!;
      const next = nextSubscription(target, productId, request('Subscription', req.body), {
        mask: typeof req.query.updateMask === 'string' ? req.query.updateMask : '',
        regions: req.query['regionsVersion.version'],
        allowMissing: req.query.allowMissing === 'true',
      });
      target.subscriptions.set(productId, next);
      return respond(reply, 'Subscription', next);
    });
    registerProductBatches(scope, {
      appOf: (req) => appOf(state, req),
      request,
      respond,
      log,
      nextInApp,
      nextSubscription,
    });
  };
}
