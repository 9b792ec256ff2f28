import type { FastifyInstance } from 'fastify';
import { AppError, invalidField } from '../errors.js';
import { findTextProblem, mayBreakTextRule } from '../shared/text.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * How deep a body may nest. No request of the API nests more than a few levels; a deeper one only
 * makes recursive code (validation, the text rule's walk, libraries) run out of stack.
 */
const MAX_DEPTH = 32;

/** Whether the JSON text opens more than `max` objects or arrays at once (brackets in strings ignored). */
function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > max) return true;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) depth--;
  }
  return false;
}

/**
 * Our JSON body parser: an empty body is "no body" (clients send Content-Type on bodiless
 * DELETEs), bad JSON is 400, a charset other than UTF-8 is 415, bytes that are not UTF-8 are 400,
 * and every string in the body follows the text rule of src/shared/text.ts (no control characters
 * but tab and line breaks, NUL included, no unpaired surrogates) — a 400 naming the field, the same
 * on both databases.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  // JSON only: any other content type (text/plain, forms...) is 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      return done(
        new AppError(
          'INVALID_REQUEST',
          `The body must be UTF-8 JSON (charset ${charset} is not accepted)`,
          undefined,
          415,
        ),
      );
    }
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      return done(invalidField('body', 'is not valid UTF-8'));
    }
    if (text.trim() === '') return done(null, undefined);
    if (nestsDeeperThan(text, MAX_DEPTH)) {
      return done(
        new AppError('INVALID_REQUEST', `The body nests objects and arrays deeper than ${MAX_DEPTH} levels`),
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return done(new AppError('INVALID_REQUEST', `The body is not valid JSON: ${(error as Error).message}`));
    }
    // Controls and surrogates can only arrive escaped (or as DEL/C1): most bodies skip the walk.
    const problem = mayBreakTextRule(text) ? findTextProblem(value) : null;
    if (problem !== null) return done(invalidField(problem.field, problem.message));
    done(null, value);
  });
}

/** Query strings and paths: a %00 anywhere in the URL is refused before it can reach a query. */
export function registerNulUrlGuard(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.includes('%00')) return done();
    done(new AppError('INVALID_REQUEST', 'The URL must not contain the NUL character (%00)'));
  });
}
