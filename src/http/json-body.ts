import type { FastifyInstance } from 'fastify';
import { AppError, invalidField } from '../errors.js';
import { findTextProblem, mayBreakTextRule } from '../shared/text.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * How deep a body may nest. No request of the API nests more than a few levels; a deeper one only
 * makes recursive code (validation, the text rule's walk, libraries) run out of stack.
 */
const MAX_DEPTH = 32;
const TOO_DEEP = `The body nests objects and arrays deeper than ${MAX_DEPTH} levels`;

/**
 * Whether a parsed body nests objects and arrays more than `max` deep. Walked without recursion,
 * on the parsed value rather than the text: a typical body is a handful of nodes (0.4 µs), where
 * scanning its text cost more than parsing it.
 */
function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    const children: unknown[] = Array.isArray(node) ? (node as unknown[]) : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
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
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      // V8 parses without recursion; should a body still exhaust the stack, it is said as depth.
      const reason =
        error instanceof RangeError ? TOO_DEEP : `The body is not valid JSON: ${(error as Error).message}`;
      return done(new AppError('INVALID_REQUEST', reason));
    }
    if (nestsDeeperThan(value, MAX_DEPTH)) return done(new AppError('INVALID_REQUEST', TOO_DEEP));
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
