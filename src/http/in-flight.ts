import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** Where the request's work is, for registerInFlightWork. */
    work: 'none' | 'running' | 'done';
  }
}

/** Whether the request announces a body that Fastify will wait for before it runs the handler. */
const hasBody = (request: FastifyRequest) =>
  request.headers['transfer-encoding'] !== undefined ||
  (request.headers['content-length'] !== undefined && request.headers['content-length'] !== '0');

/**
 * Counts requests whose work is not done, so that closing the app waits for them before the
 * rate-limit store and the database close. Closing the HTTP server is not enough: when a client
 * goes away mid-request its connection ends, but the handler keeps running and still queries the
 * database (seen in the benchmark as "driver has already been destroyed" at shutdown, and an
 * operation left "running").
 *
 * A request's work begins at onRequest and ends when its handler's promise settles, when a reply
 * is sent (errors, 404, handlers that answer by a callback), or when the client went away before
 * its body could be read: Fastify then never reads the body nor calls the handler. Register before
 * any route; `idle()` resolves once no work is counted.
 */
export function registerInFlightWork(app: FastifyInstance): { idle(): Promise<void> } {
  let count = 0;
  let onIdle: (() => void) | null = null;
  const end = (request: FastifyRequest) => {
    if (request.work === 'none' || request.work === 'done') return;
    request.work = 'done';
    if (--count === 0) onIdle?.();
  };

  app.decorateRequest('work', 'none');
  app.addHook('onRequest', (request, _reply, done) => {
    request.work = 'running';
    count++;
    done();
  });
  app.addHook('preParsing', (request, _reply, payload, done) => {
    // Gone during the onRequest hooks: its stream is destroyed and will never end.
    if (request.raw.aborted && hasBody(request)) end(request);
    done(null, payload);
  });
  app.addHook('onSend', (request, _reply, payload, done) => {
    end(request);
    done(null, payload);
  });
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (request, reply) {
      let result: unknown;
      try {
        result = handler.call(this, request, reply);
      } catch (error) {
        end(request);
        throw error;
      }
      // A handler that replies later by itself (@fastify/static's file streams) returns no
      // promise, and must not be given one: Fastify would send an empty reply when it resolved.
      // Its work ends when that reply is sent (onSend).
      if (!(result instanceof Promise)) return result;
      return result.finally(() => end(request));
    };
  });

  return {
    idle: () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve))),
  };
}
