import type { FastifyInstance } from 'fastify';
import { AppError, invalidField } from '../errors.js';

/**
 * Our JSON body parser: an empty body is "no body" (clients send Content-Type on bodiless
 * DELETEs), bad JSON is 400, and text containing NUL is 400 on both databases because
 * PostgreSQL cannot store it (design.md §5).
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  // JSON only: any other content type (text/plain, forms...) is 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      // NUL can only reach us escaped as \u0000; the reviver runs only when that text is present.
      const value: unknown = text.includes('u0000') ? JSON.parse(text, rejectNul) : JSON.parse(text);
      done(null, value);
    } catch (error) {
      if (error instanceof AppError) return done(error);
      done(new AppError('INVALID_REQUEST', `The body is not valid JSON: ${(error as Error).message}`));
    }
  });
}

function rejectNul(key: string, value: unknown): unknown {
  if (typeof value === 'string' && value.includes('\u0000')) {
    throw invalidField(key || 'body', 'must not contain the NUL character');
  }
  if (key.includes('\u0000')) throw invalidField('body', 'field names must not contain the NUL character');
  return value;
}

/** Query strings and paths: a %00 anywhere in the URL is refused before it can reach a query. */
export function registerNulUrlGuard(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    if (/%00/.test(request.url)) {
      throw new AppError('INVALID_REQUEST', 'The URL must not contain the NUL character (%00)');
    }
  });
}
