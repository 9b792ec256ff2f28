/**
 * Apple's rules on a JSON:API write body, shared by the emulator's marketing resources (custom
 * product pages, in-app events): the body against the spec, locale codes, duplicates, attributes an
 * update may not carry, length limits — each refused with Apple's code and pointer (stores.md §6).
 */
import type { FastifyReply } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError } from './errors.js';
import type { JsonApi } from './json-api.js';
import { LOCALES } from './rules.js';

export interface WriteBody {
  data: {
    id?: string;
    attributes?: Record<string, unknown>;
    relationships?: Record<string, { data: { id: string } }>;
  };
}

export const entityError = (code: string, detail: string, pointer?: string) =>
  new AscFailure(
    409,
    code,
    'There is a problem with the request entity',
    detail,
    ...(pointer === undefined ? [] : [{ pointer }]),
  );

/** The resource of `type` with this id, or Apple's 404 for it. */
export function findOr404<T>(resources: ReadonlyMap<string, T>, type: string, id: string): T {
  const found = resources.get(id);
  if (found === undefined) throw notFoundError(type, id);
  return found;
}

/** A body checked against the named request schema of Apple's spec. */
export const bodyChecker = (spec: SpecValidator) => (schema: string, body: unknown) => {
  const problem = spec.check(schema, body);
  if (problem !== null) throw entityError('ENTITY_ERROR', problem);
  return body as WriteBody;
};

/** One resource as Apple answers it: `data` and its self link, checked against the schema. */
export const answerOne =
  (respond: JsonApi['respond']) =>
  (reply: FastifyReply, status: number, schema: string, resource: { links: { self: string } }) =>
    respond(reply, status, schema, { data: resource, links: { self: resource.links.self } });

/** A text over its limit, as Apple says it. */
export function checkLength(name: string, value: unknown, max: number): void {
  if (typeof value === 'string' && [...value].length > max) {
    throw entityError(
      'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_LONG',
      `The provided entity contains a field '${name}' whose value is too long. It cannot exceed ${max} characters.`,
      `/data/attributes/${name}`,
    );
  }
}

/** Refuses attributes an update request may not carry (checklist 4), and an id that is not the path's. */
export function checkUpdate(body: WriteBody, id: string, allowed: string[]): Record<string, unknown> {
  if (body.data.id !== id) {
    throw entityError(
      'ENTITY_ERROR.INCLUDED.INVALID_ID',
      `The id '${body.data.id}' does not match the path.`,
      '/data/id',
    );
  }
  const attributes = body.data.attributes ?? {};
  for (const name of Object.keys(attributes)) {
    if (!allowed.includes(name))
      throw entityError(
        'ENTITY_ERROR.ATTRIBUTE.NOT_ALLOWED',
        `'${name}' can not be updated`,
        `/data/attributes/${name}`,
      );
  }
  return attributes;
}

export function checkLocale(locale: string): void {
  if (!LOCALES.has(locale))
    throw entityError(
      'ENTITY_ERROR.ATTRIBUTE.INVALID',
      `'${locale}' is not a valid locale`,
      '/data/attributes/locale',
    );
}

export const duplicateLocale = (locale: string) =>
  entityError(
    'ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE',
    `Entity with locale: '${locale}' already exists. Try updating.`,
    '/data/attributes/locale',
  );
