/** Apple's JSON:API answers as the emulator sends them: checked against the spec, paged, shaped. */
import { randomUUID } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure } from './errors.js';
import type { AppStoreState, Localization } from './state.js';

export function createJsonApi(state: AppStoreState, spec: SpecValidator) {
  const origin = (request: FastifyRequest) => `http://${request.headers.host ?? 'localhost'}`;

  /** Sends a body after checking it against the named response schema of Apple's spec. */
  const respond = (reply: FastifyReply, status: number, schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null) throw new Error(`emulator response does not match ${schema}: ${problem}`);
    return reply.code(status).type('application/json').send(body);
  };

  const sendFailure = (reply: FastifyReply, failure: AscFailure) =>
    respond(reply, failure.status, 'ErrorResponse', {
      errors: [failure, ...failure.also].map((f) => ({
        id: randomUUID(),
        status: String(f.status),
        code: f.code,
        title: f.title,
        ...(f.detail && { detail: f.detail }),
        ...(f.source && { source: f.source }),
      })),
    });

  const resource = (request: FastifyRequest, type: string, loc: Localization) => ({
    type,
    id: loc.id,
    // Apple leaves out unset attributes; the spec types them as non-null strings in responses.
    attributes: Object.fromEntries(
      Object.entries({ locale: loc.locale, ...loc.attributes }).filter(([, v]) => v !== null),
    ),
    links: { self: `${origin(request)}/v1/${type}/${loc.id}` },
  });

  /** A page of a collection: `limit` ≤ 200, opaque cursor, absolute links.next (stores.md §5). */
  function page<T>(request: FastifyRequest, items: T[]) {
    const query = request.query as Record<string, string | undefined>;
    const limit = query.limit === undefined ? 50 : Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      throw new AscFailure(
        400,
        'PARAMETER_ERROR.INVALID',
        'A parameter has an invalid value',
        `'${query.limit}' is not a valid value for limit; the maximum is 200`,
        { parameter: 'limit' },
      );
    }
    const offset = query.cursor === undefined ? 0 : Number(Buffer.from(query.cursor, 'base64url').toString());
    const size = Math.min(limit, state.pageSize);
    const slice = items.slice(offset, offset + size);
    const url = new URL(request.url, origin(request));
    // Re-serialized so that brackets of filter[...] are percent-encoded, as in Apple's links.
    url.search = new URLSearchParams(url.searchParams).toString();
    const self = url.toString();
    let next: string | undefined;
    if (offset + size < items.length) {
      url.searchParams.set('cursor', Buffer.from(String(offset + size)).toString('base64url'));
      next = url.toString();
    }
    return {
      slice,
      links: { self, ...(next && { next }) },
      meta: {
        paging: {
          total: items.length,
          limit,
          ...(next && { nextCursor: new URL(next).searchParams.get('cursor')! }),
        },
      },
    };
  }

  return { origin, respond, sendFailure, resource, page };
}

export type JsonApi = ReturnType<typeof createJsonApi>;
