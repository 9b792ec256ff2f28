import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * The health probes and the metrics scrape, as sent (a query string makes it another URL, counted
 * like any request). A scraper shares its address with whatever else runs there; its token (16
 * characters or more, compared in constant time) is not a thing to guess at 100 a minute anyway.
 */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

/** Counts requests against a caller's budget; for work that one HTTP request carries several of. */
export type ChargeRequests = (request: FastifyRequest, reply: FastifyReply, points: number) => Promise<void>;

/**
 * Counts every request — errors and unknown routes included — against the caller's budget: the
 * organization's plan for a valid key, the client IP at the free rate otherwise (so that guessing
 * keys is throttled). Runs after identity and sets the X-RateLimit-* headers on every response but
 * the health probes' and the metrics scrape's, which are never limited (design.md §21): behind a load balancer every probe
 * comes from one address, and a refused probe marks a healthy instance dead. Answers the charge
 * for routes that carry several calls in one request (MCP batches).
 */
export function registerRateLimit(
  app: FastifyInstance,
  limiter: RateLimiter,
  /** The budget of a caller without a valid key, per client IP. */
  anonymousPerMinute: number,
  /**
   * Confirms the request's caller with the identity version the count read back (identity.ts,
   * confirmCaller); may replace it, after which the request is counted again for its new caller.
   */
  confirmCaller: (request: FastifyRequest, identityVersion: number | null) => Promise<void>,
): ChargeRequests {
  const charge = async (request: FastifyRequest, reply: FastifyReply, points: number) => {
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
    return decision;
  };
  app.addHook('onRequest', async (request, reply) => {
    if (PROBES.has(request.url)) return;
    const caller = request.caller;
    const decision = await charge(request, reply, 1);
    await confirmCaller(request, decision.identityVersion);
    // A key read again: counted against the client IP if it no longer signs in, else only the
    // headers are brought up to date (its plan may have changed).
    if (request.caller !== caller) await charge(request, reply, request.caller === null ? 1 : 0);
  });
  return async (request, reply, points) => void (await charge(request, reply, points));
}
