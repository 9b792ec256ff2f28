import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';
import { ANONYMOUS_REQUESTS_PER_MINUTE, PLANS } from '../modules/organizations/plans.js';
import type { RateLimiter } from '../modules/rate-limits/rate-limiter.js';

/**
 * Counts every request — errors and unknown routes included — against the caller's budget: the
 * organization's plan for a valid key, the client IP at the free rate otherwise (so that guessing
 * keys is throttled). Runs after identity and sets the X-RateLimit-* headers on every response.
 */
export function registerRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  app.addHook('onRequest', async (request, reply) => {
    const caller = request.caller;
    const [key, limit] =
      caller === null
        ? [`ip:${request.ip}`, ANONYMOUS_REQUESTS_PER_MINUTE]
        : [`org:${caller.organizationId}`, PLANS[caller.plan].requestsPerMinute];
    const decision = await limiter.take(key, limit);
    reply.header('X-RateLimit-Limit', decision.limit);
    reply.header('X-RateLimit-Remaining', decision.remaining);
    reply.header('X-RateLimit-Reset', decision.resetAt);
    if (!decision.allowed) {
      reply.header('Retry-After', decision.retryAfter);
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `Rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.retryAfter} s`,
      );
    }
  });
}
