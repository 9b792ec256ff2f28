/**
 * GET /metrics for Prometheus (design.md §21) and the request timings it reports. Without
 * METRICS_TOKEN the route answers 404 like any unknown path and no request is timed; with it, a
 * scrape must send the token as a Bearer credential.
 */
import { timingSafeEqual } from 'node:crypto';
import { AppError, unauthorized } from '../errors.js';
import type { Metrics } from '../metrics/index.js';
import type { Api } from './api.js';

export function registerMetrics(app: Api, metrics: Metrics, token: string | null): void {
  if (metrics.enabled) {
    // After the response is sent: the time the client waited, under the route's pattern so that
    // ids do not make a series each.
    app.addHook('onResponse', (request, reply, done) => {
      metrics.httpRequest(
        request.method,
        request.routeOptions.url ?? 'unmatched',
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
      done();
    });
  }
  const expected = token === null ? null : Buffer.from(`Bearer ${token}`);
  app.get('/metrics', { schema: { hide: true, operationId: 'metrics.get' } }, async (request, reply) => {
    if (expected === null) throw new AppError('NOT_FOUND', 'No route GET /metrics');
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw unauthorized('The metrics token is required: Authorization: Bearer <METRICS_TOKEN>');
    }
    return reply.type('text/plain; version=0.0.4; charset=utf-8').send(await metrics.render());
  });
}
