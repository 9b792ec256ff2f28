/**
 * `appmeta events tail`: reads GET /api/v1/events (Server-Sent Events) and prints each event,
 * reconnecting with Last-Event-ID when the connection drops, so that no event is missed.
 */
import { AppError } from '../errors.js';

export interface TailedEvent {
  seq: number;
  id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

const RECONNECT_MS = 1_000;

export async function tailEvents(options: {
  url: string;
  key: string;
  lastEventId: string | null;
  print: (event: TailedEvent) => void;
  signal?: AbortSignal;
}): Promise<void> {
  let lastEventId = options.lastEventId;
  const aborted = () => options.signal?.aborted === true;
  while (!aborted()) {
    let response: Response;
    try {
      response = await fetch(new URL('/api/v1/events', options.url), {
        headers: {
          authorization: `Bearer ${options.key}`,
          accept: 'text/event-stream',
          ...(lastEventId !== null && { 'last-event-id': lastEventId }),
        },
        ...(options.signal && { signal: options.signal }),
      });
    } catch (error) {
      if (aborted()) return;
      process.stderr.write(`cannot reach ${options.url}: ${(error as Error).message}; retrying\n`);
      await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      continue;
    }
    if (!response.ok || response.body === null) {
      const body = (await response.json().catch(() => null)) as {
        error?: { code: string; message: string };
      } | null;
      throw new AppError(
        response.status === 401 ? 'UNAUTHORIZED' : 'INVALID_REQUEST',
        body?.error?.message ?? `the service answered ${response.status}`,
      );
    }
    try {
      for await (const frame of frames(response.body)) {
        if (frame.id !== undefined) lastEventId = frame.id;
        if (frame.data === undefined) continue;
        const payload = JSON.parse(frame.data) as Omit<TailedEvent, 'seq'>;
        options.print({ seq: Number(frame.id), ...payload });
      }
    } catch (error) {
      if (aborted()) return;
      process.stderr.write(`the stream broke (${(error as Error).message}); resuming\n`);
    }
    if (!aborted()) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}

/** The events of an SSE body: `id:` and `data:` lines up to a blank line; comments skipped. */
async function* frames(body: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const frame: { id?: string; data?: string } = {};
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) frame.id = line.slice(4);
        else if (line.startsWith('data: '))
          frame.data = (frame.data === undefined ? '' : `${frame.data}\n`) + line.slice(6);
      }
      yield frame;
    }
  }
}
