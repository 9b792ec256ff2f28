/**
 * The writes of localizations (PATCH, POST, DELETE of appInfoLocalizations and
 * appStoreVersionLocalizations) with Apple's rules: body against the spec, known attributes and
 * their limits, locale codes, duplicates, the state of the parent (stores.md §2.1, §8).
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError, stateError } from './errors.js';
import type { JsonApi } from './json-api.js';
import {
  EDITABLE_INFO,
  EDITABLE_VERSION,
  INFO_ATTRIBUTES,
  LIMITS,
  LOCALES,
  VERSION_ATTRIBUTES,
} from './rules.js';
import type { AppStoreState, Localization } from './state.js';

export function registerLocalizationWrites(
  scope: FastifyInstance,
  state: AppStoreState,
  spec: SpecValidator,
  { origin, respond, resource }: JsonApi,
): void {
  const checkAttributes = (attributes: Record<string, unknown>, allowed: string[]) => {
    for (const [name, value] of Object.entries(attributes)) {
      if (!allowed.includes(name)) {
        throw new AscFailure(
          409,
          'ENTITY_ERROR.ATTRIBUTE.UNKNOWN',
          'The provided entity includes an unknown attribute',
          `'${name}' is not a valid attribute for this request`,
          { pointer: `/data/attributes/${name}` },
        );
      }
      const limit = LIMITS[name];
      if (typeof value === 'string' && limit !== undefined && [...value].length > limit) {
        throw new AscFailure(
          409,
          'ENTITY_ERROR.ATTRIBUTE.INVALID.TOO_LONG',
          'There is a problem with the request entity',
          `The provided entity contains a field '${name}' whose value is too long. It cannot exceed ${limit} characters.`,
          { pointer: `/data/attributes/${name}` },
        );
      }
    }
  };

  const checkBody = (schema: string, body: unknown) => {
    const problem = spec.check(schema, body);
    if (problem !== null)
      throw new AscFailure(409, 'ENTITY_ERROR', 'There is a problem with the request entity', problem);
  };

  /** Whether the parent container accepts edits of these attributes (stores.md §2.1 state rules). */
  const assertEditable = (
    kind: 'appInfoLocalizations' | 'appStoreVersionLocalizations',
    parentId: string,
    attributes: string[],
  ) => {
    if (kind === 'appInfoLocalizations') {
      const info = state.appInfos.get(parentId);
      if (info && !EDITABLE_INFO.has(info.state) && attributes.length > 0) throw stateError(attributes[0]!);
      return;
    }
    const version = state.versions.get(parentId);
    if (version === undefined) return;
    if (!EDITABLE_VERSION.has(version.appVersionState)) {
      const blocked = attributes.find((a) => a !== 'promotionalText');
      if (blocked !== undefined) throw stateError(blocked);
    }
    if (attributes.includes('whatsNew')) {
      const count = [...state.versions.values()].filter((v) => v.appId === version.appId).length;
      if (count === 1) throw stateError('whatsNew'); // an app's first version has no release notes
    }
  };

  for (const kind of ['appInfoLocalizations', 'appStoreVersionLocalizations'] as const) {
    const store = kind === 'appInfoLocalizations' ? state.infoLocs : state.versionLocs;
    const allowed = kind === 'appInfoLocalizations' ? INFO_ATTRIBUTES : VERSION_ATTRIBUTES;
    const singular = kind === 'appInfoLocalizations' ? 'AppInfoLocalization' : 'AppStoreVersionLocalization';

    scope.patch<{ Params: { id: string } }>(`/${kind}/:id`, async (request, reply) => {
      checkBody(`${singular}UpdateRequest`, request.body);
      const body = request.body as {
        data: { type: string; id: string; attributes?: Record<string, string | null> };
      };
      if (body.data.type !== kind || body.data.id !== request.params.id) {
        throw new AscFailure(
          409,
          'ENTITY_ERROR.INVALID_ID',
          'The provided entity id does not match the path',
          `Expected type '${kind}' and id '${request.params.id}'`,
          { pointer: '/data/id' },
        );
      }
      const loc = store.get(request.params.id);
      if (!loc) throw notFoundError(kind, request.params.id);
      const attributes = body.data.attributes ?? {};
      checkAttributes(attributes, allowed);
      assertEditable(kind, loc.parentId, Object.keys(attributes));
      Object.assign(loc.attributes, attributes);
      return respond(reply, 200, `${singular}Response`, {
        data: resource(request, kind, loc),
        links: { self: `${origin(request)}/v1/${kind}/${loc.id}` },
      });
    });

    scope.post(`/${kind}`, async (request, reply) => {
      checkBody(`${singular}CreateRequest`, request.body);
      const body = request.body as {
        data: {
          type: string;
          attributes: Record<string, string | null> & { locale: string };
          relationships: Record<string, { data: { id: string } }>;
        };
      };
      if (body.data.type !== kind)
        throw new AscFailure(
          409,
          'ENTITY_ERROR.INVALID_TYPE',
          'The provided entity type is not valid',
          `Expected '${kind}'`,
          { pointer: '/data/type' },
        );
      const parentId = Object.values(body.data.relationships)[0]?.data.id ?? '';
      const parents = kind === 'appInfoLocalizations' ? state.appInfos : state.versions;
      if (!parents.has(parentId))
        throw new AscFailure(
          409,
          'ENTITY_ERROR.RELATIONSHIP.INVALID',
          'The provided entity has an invalid relationship',
          `No parent '${parentId}'`,
        );
      const { locale, ...attributes } = body.data.attributes;
      if (!LOCALES.has(locale)) {
        const hint = [...LOCALES].find((code) => code.toLowerCase() === locale.toLowerCase());
        throw new AscFailure(
          409,
          'ENTITY_ERROR.ATTRIBUTE.INVALID',
          'An attribute value is invalid.',
          `Check case sensitivity.${hint ? ` May be: ${hint}` : ''}`,
          { pointer: '/data/attributes/locale' },
        );
      }
      if ([...store.values()].some((l) => l.parentId === parentId && l.locale === locale)) {
        throw new AscFailure(
          409,
          'ENTITY_ERROR.ATTRIBUTE.INVALID.DUPLICATE',
          'The provided entity is a duplicate',
          `A localization for '${locale}' already exists`,
          { pointer: '/data/attributes/locale' },
        );
      }
      checkAttributes(attributes, allowed);
      assertEditable(kind, parentId, Object.keys(attributes));
      const loc: Localization = { id: randomUUID(), parentId, locale, attributes };
      store.set(loc.id, loc);
      return respond(reply, 201, `${singular}Response`, {
        data: resource(request, kind, loc),
        links: { self: `${origin(request)}/v1/${kind}/${loc.id}` },
      });
    });

    scope.delete<{ Params: { id: string } }>(`/${kind}/:id`, async (request, reply) => {
      const loc = store.get(request.params.id);
      if (!loc) throw notFoundError(kind, request.params.id);
      assertEditable(kind, loc.parentId, ['locale']);
      store.delete(loc.id);
      return reply.code(204).send();
    });
  }
}
