/**
 * Google Play's batch product routes and deletes in the emulator (stores-more.md §A6, §A7,
 * checklist 16, 17, 19): batchGet, batchUpdate and batchDelete take at most 100 requests, each
 * for a different product, and are checked whole before anything changes; a subscription that
 * ever had a published base plan cannot be deleted.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PlayFailure } from './errors.js';
import type { InAppProduct, Subscription } from './state.js';

const MAX_BATCH = 100;

type Req = FastifyRequest<{
  Params: { packageName: string; sku?: string; productId?: string };
  Querystring: Record<string, unknown>;
}>;
type App = {
  packageName: string;
  inAppProducts: Map<string, InAppProduct>;
  subscriptions: Map<string, Subscription>;
};

export interface BatchDeps<A extends App> {
  appOf: (req: Req) => A;
  request: (schema: 'InAppProduct' | 'Subscription', body: unknown) => Record<string, unknown>;
  respond: (reply: FastifyReply, schema: string, body: unknown) => unknown;
  log: (req: Req) => void;
  nextInApp: (
    target: A,
    sku: string,
    body: Record<string, unknown>,
    mode: 'put',
    allowMissing: boolean,
  ) => InAppProduct;
  nextSubscription: (
    target: A,
    productId: string,
    body: Record<string, unknown>,
    options: { mask: string; regions: unknown; allowMissing: boolean },
  ) => Subscription;
}

const invalid = (message: string) => new PlayFailure(400, 'INVALID_ARGUMENT', message, 'badRequest');

/** Google's rule for every batch: 1–100 requests, all for different products. */
function checkBatch(ids: string[], what: string): void {
  if (ids.length === 0) throw invalid('At least one request is required.');
  if (ids.length > MAX_BATCH) throw invalid(`At most ${MAX_BATCH} requests are allowed in a batch.`);
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id))
      throw invalid(`All requests must correspond to different ${what}: ${id} appears twice.`);
    seen.add(id);
  }
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

const queryList = (value: unknown): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);

const requestsOf = (body: unknown): Record<string, unknown>[] => {
  const requests = (body as { requests?: unknown } | null)?.requests;
  if (!Array.isArray(requests)) throw invalid('requests is required.');
  return requests as Record<string, unknown>[];
};

export function registerProductBatches<A extends App>(scope: FastifyInstance, deps: BatchDeps<A>): void {
  const { appOf, request, respond, log } = deps;
  const base = '/applications/:packageName';

  // "::" is a literal colon to Fastify's router: inappproducts:batchGet.
  scope.get(`${base}/inappproducts::batchGet`, async (req: Req, reply) => {
    log(req);
    const target = appOf(req);
    const skus = queryList(req.query.sku);
    checkBatch(skus, 'in-app products');
    const found = skus.map((sku) => {
      const product = target.inAppProducts.get(sku);
      if (product === undefined)
        throw new PlayFailure(404, 'NOT_FOUND', `Product not found: ${sku}`, 'notFound');
      return product;
    });
    return respond(reply, 'InappproductsBatchGetResponse', { inappproduct: found });
  });

  scope.post(`${base}/inappproducts::batchUpdate`, async (req: Req, reply) => {
    log(req);
    const target = appOf(req);
    const requests = requestsOf(req.body);
    checkBatch(
      requests.map((r) => text(r.sku)),
      'in-app products',
    );
    // Every request checked before any is applied: a refused batch changes nothing.
    const next = requests.map((r) =>
      deps.nextInApp(
        target,
        text(r.sku),
        request('InAppProduct', r.inappproduct),
        'put',
        r.allowMissing === true,
      ),
    );
    for (const product of next) target.inAppProducts.set(product.sku, product);
    return respond(reply, 'InappproductsBatchUpdateResponse', { inappproducts: next });
  });

  scope.post(`${base}/inappproducts::batchDelete`, async (req: Req, reply) => {
    log(req);
    const target = appOf(req);
    const skus = requestsOf(req.body).map((r) => text(r.sku));
    checkBatch(skus, 'in-app products');
    for (const sku of skus) {
      if (!target.inAppProducts.has(sku))
        throw new PlayFailure(404, 'NOT_FOUND', `Product not found: ${sku}`, 'notFound');
    }
    for (const sku of skus) target.inAppProducts.delete(sku);
    return reply.code(204).send();
  });

  scope.delete(`${base}/inappproducts/:sku`, async (req: Req, reply) => {
    log(req);
    const target = appOf(req);
    if (!target.inAppProducts.delete(req.params.sku!))
      throw new PlayFailure(404, 'NOT_FOUND', `Product not found: ${req.params.sku}`, 'notFound');
    return reply.code(204).send();
  });

  scope.get(`${base}/subscriptions::batchGet`, async (req: Req, reply) => {
    log(req);
    const target = appOf(req);
    const ids = queryList(req.query.productIds);
    checkBatch(ids, 'subscriptions');
    const found = ids.map((id) => {
      const subscription = target.subscriptions.get(id);
      if (subscription === undefined)
        throw new PlayFailure(404, 'NOT_FOUND', `Subscription not found: ${id}`, 'notFound');
      return subscription;
    });
    return respond(reply, 'BatchGetSubscriptionsResponse', { subscriptions: found });
  });

  scope.post(`${base}/subscriptions::batchUpdate`, async (req: Req, reply) => {
    log(req);
    const target = appOf(req);
    const requests = requestsOf(req.body);
    const bodies = requests.map((r) => request('Subscription', r.subscription));
    checkBatch(
      bodies.map((b) => text(b.productId)),
      'subscriptions',
    );
    const next = requests.map((r, i) =>
      deps.nextSubscription(target, text(bodies[i]!.productId), bodies[i]!, {
        mask: typeof r.updateMask === 'string' ? r.updateMask : '',
        regions: (r.regionsVersion as { version?: unknown } | undefined)?.version,
        allowMissing: r.allowMissing === true,
      }),
    );
    for (const subscription of next) target.subscriptions.set(subscription.productId, subscription);
    return respond(reply, 'BatchUpdateSubscriptionsResponse', { subscriptions: next });
  });

  // Only a subscription that never had a published base plan may be deleted (§A7).
  scope.delete(`${base}/subscriptions/:productId`, async (req: Req, reply) => {
    log(req);
    const target = appOf(req);
    const subscription = target.subscriptions.get(req.params.productId!);
    if (subscription === undefined)
      throw new PlayFailure(404, 'NOT_FOUND', `Subscription not found: ${req.params.productId}`, 'notFound');
    if ((subscription.basePlans ?? []).some((plan) => plan.state !== 'DRAFT')) {
      throw new PlayFailure(
        400,
        'FAILED_PRECONDITION',
        'Cannot delete a subscription that has or had a published base plan.',
        'failedPrecondition',
      );
    }
    target.subscriptions.delete(subscription.productId);
    return reply.code(204).send();
  });
}
