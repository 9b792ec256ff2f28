/**
 * What closing the app waits for: the work of requests whose clients went away, and not requests
 * that can never reach their handler. A real Fastify app with slow hooks and handlers, so that a
 * client can go away at a chosen point of a request.
 */
import net from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerInFlightWork } from '../../src/http/in-flight.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let app: FastifyInstance;
afterEach(() => app.close());

/** An app whose onRequest hook and handler each take `ms`; `events` records when handlers finish. */
async function slowApp(ms: { hook: number; handler: number }) {
  app = Fastify();
  const work = registerInFlightWork(app);
  const events: string[] = [];
  app.addHook('onRequest', async () => sleep(ms.hook));
  app.post('/', async () => {
    await sleep(ms.handler);
    events.push('handler done');
    return { ok: true };
  });
  app.get('/raw', async (_request, reply) => {
    reply.hijack();
    await sleep(ms.handler);
    reply.raw.end('raw');
    events.push('handler done');
  });
  const url = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
  /** Sends a complete request, then resets the connection after `resetAfterMs`. */
  const sendAndReset = (request: string, resetAfterMs: number) =>
    new Promise<void>((resolve) => {
      const socket = net.connect(Number(url.port), '127.0.0.1', () => {
        socket.write(request, () => setTimeout(() => (socket.resetAndDestroy(), resolve()), resetAfterMs));
      });
      socket.on('error', () => undefined);
    });
  /** Whether idle() settles within `ms`, and the handler events seen by then. */
  const idleWithin = async (ms: number) => {
    const idle = await Promise.race([work.idle().then(() => true), sleep(ms).then(() => false)]);
    return { idle, events: [...events] };
  };
  return { sendAndReset, idleWithin };
}

const body = '{"a":1}';
const post = `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

describe('in-flight work', () => {
  it('waits for a handler whose client went away, until the handler is done', async () => {
    const { sendAndReset, idleWithin } = await slowApp({ hook: 0, handler: 300 });
    await sendAndReset(post, 50);
    expect(await idleWithin(100)).toEqual({ idle: false, events: [] });
    expect(await idleWithin(1_000)).toEqual({ idle: true, events: ['handler done'] });
  });

  it('does not wait for a request whose client went away before its body was read', async () => {
    // The connection is reset while the onRequest hook runs: Fastify then never reads the body
    // nor calls the handler.
    const { sendAndReset, idleWithin } = await slowApp({ hook: 200, handler: 0 });
    await sendAndReset(post, 50);
    await sleep(300);
    expect(await idleWithin(500)).toEqual({ idle: true, events: [] });
  });

  it('waits for a route that took over the raw response until its handler returns', async () => {
    const { sendAndReset, idleWithin } = await slowApp({ hook: 0, handler: 300 });
    await sendAndReset('GET /raw HTTP/1.1\r\nHost: x\r\n\r\n', 50);
    expect(await idleWithin(100)).toEqual({ idle: false, events: [] });
    expect(await idleWithin(1_000)).toEqual({ idle: true, events: ['handler done'] });
  });

  it('does not wait for a request answered without a handler', async () => {
    const { sendAndReset, idleWithin } = await slowApp({ hook: 0, handler: 0 });
    await sendAndReset('GET /missing HTTP/1.1\r\nHost: x\r\n\r\n', 50);
    expect(await idleWithin(500)).toEqual({ idle: true, events: [] });
  });
});
