import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { RateLimiter } from './rate-limiter.js';

/** Counts requests against a caller's budget; for work that one HTTP request carries several of. */
export type ChargeRequests = (request: FastifyRequest, reply: FastifyReply, points: number) => Promise<void>;

/**
 * Counts every request — errors and unknown routes included — against the caller's budget: the
 * organization's plan for a valid key, the client IP at the free rate otherwise (so that guessing
 * keys is throttled). Runs after identity and sets the X-RateLimit-* headers on every response.
 * Answers the charge for routes that carry several calls in one request (MCP batches).
 */
export function registerRateLimit(
  app: FastifyInstance,
  limiter: RateLimiter,
  /** The budget of a caller without a valid key, per client IP. */
  anonymousPerMinute: number,
): ChargeRequests {
  const charge: ChargeRequests = async (request, reply, points) => {
    // A request refused before routing (frameworkErrors) has no caller decoration at all.
    const caller = request.caller ?? null;
    const [key, limit] =
      caller === null
        ? [`ip:${request.ip}`, anonymousPerMinute]
        : [`org:${caller.organizationId}`, caller.requestsPerMinute];
    const decision = await limiter.take(key, limit, points);
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
  };
  app.addHook('onRequest', async (request, reply) => charge(request, reply, 1));
  return charge;
}
