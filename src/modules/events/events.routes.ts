import { PassThrough } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { invalidField } from '../../errors.js';
import type { Api } from '../../http/api.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS } from '../../http/schemas.js';
import type { AppEvent } from '../../shared/events.js';
import type { EventStream, Subscription } from './event-stream.js';

/**
 * A comment line now and then keeps proxies from closing an idle stream; at each, the stream's key
 * or session is checked again, so a revoked key's stream ends within this.
 */
const HEARTBEAT_MS = 15_000;

const frame = (event: AppEvent) =>
  `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: event.createdAt,
    data: event.data,
  })}\n\n`;

/** GET /events: the organization's events as Server-Sent Events (design.md §11). */
export function eventsRoutes(app: Api, services: { eventStream: EventStream }): void {
  const open = new Set<PassThrough>();
  // Open streams never end by themselves: shutdown ends them, so that the server can close.
  app.addHook('preClose', async () => {
    for (const stream of open) stream.end();
  });

  app.get('/events', {
    schema: {
      operationId: 'events.stream',
      tags: ['events'],
      summary: 'The live stream of the organization’s events (Server-Sent Events)',
      description:
        'Each event has `id` (a number, increasing), `event` (its type) and `data` (`{id, type, timestamp, data}` as ' +
        'webhooks receive it). Reconnect with `Last-Event-ID` (or `?lastEventId=`) to receive what was missed; ' +
        'without it the stream starts with the next event. The stream ends when its member is removed (after that ' +
        'event) and, within 15 s, when its key is revoked or its session ends.',
      security: BEARER,
      querystring: Type.Object({
        lastEventId: Type.Optional(
          Type.String({ maxLength: 20, description: 'As the Last-Event-ID header' }),
        ),
      }),
      response: {
        200: {
          description: 'text/event-stream',
          content: { 'text/event-stream': { schema: Type.String() } },
        },
        ...ERRORS,
      },
    },
    handler: async (request, reply) => {
      const raw = request.headers['last-event-id'] ?? request.query.lastEventId;
      const text = Array.isArray(raw) ? raw[0] : raw;
      let lastEventId: number | null = null;
      if (text !== undefined && text !== '') {
        if (!/^\d{1,15}$/.test(text)) {
          throw invalidField('Last-Event-ID', 'must be the id of an event of this stream (a number)');
        }
        lastEventId = Number(text);
      }
      const stream = new PassThrough();
      const ctx = contextOf(request);
      let subscription: Subscription | null = null;
      let heartbeat: NodeJS.Timeout | undefined = undefined;
      const end = () => {
        clearInterval(heartbeat);
        subscription?.close();
        open.delete(stream);
        stream.end();
      };
      subscription = await services.eventStream.subscribe(ctx, lastEventId, (event) => {
        stream.write(frame(event));
        // A removed member hears of it, and then of nothing more.
        if (event.type === 'member.removed' && event.data.memberId === ctx.principal.memberId) end();
      });
      open.add(stream);
      heartbeat = setInterval(() => {
        stream.write(': keep-alive\n\n');
        void request.stillSignedIn?.().then((valid) => {
          if (!valid) end();
        });
      }, HEARTBEAT_MS);
      request.raw.on('close', end);
      stream.on('close', end);
      // The first line goes out at once, so that clients know the stream is open.
      stream.write(': connected\n\n');
      return reply
        .type('text/event-stream; charset=utf-8')
        .header('Cache-Control', 'no-cache')
        .header('X-Accel-Buffering', 'no')
        .send(stream as never); // a stream; the schema types only JSON bodies
    },
  });
}
