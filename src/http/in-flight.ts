import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while the request counts as in-flight work (see registerInFlightWork). */
    inFlight: boolean;
  }
}

/**
 * Counts requests whose work is not done, so that closing the app waits for them before the
 * database closes. Closing the HTTP server is not enough: when a client goes away mid-request
 * its connection ends, but the handler keeps running and still queries the database (seen in the
 * benchmark as "driver has already been destroyed" at shutdown).
 *
 * A request's work begins at onRequest and ends when its reply is sent (onSend — also for errors
 * and for clients that went away) or, for a route that takes over the raw response (MCP), when
 * its handler returns. Register before any route.
 */
export function registerInFlightWork(app: FastifyInstance): void {
  let count = 0;
  let idle: (() => void) | null = null;
  const end = (request: FastifyRequest) => {
    if (!request.inFlight) return;
    request.inFlight = false;
    if (--count === 0) idle?.();
  };

  app.decorateRequest('inFlight', false);
  app.addHook('onRequest', (request, _reply, done) => {
    request.inFlight = true;
    count++;
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    end(request);
    done(null, payload);
  });
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = async function (request, reply) {
      try {
        return await handler.call(this, request, reply);
      } finally {
        if (reply.sent) end(request);
      }
    };
  });
  // onClose runs once the server accepts nothing more; what is still counted can only finish.
  app.addHook('onClose', async () => {
    if (count > 0) await new Promise<void>((resolve) => (idle = resolve));
  });
}
