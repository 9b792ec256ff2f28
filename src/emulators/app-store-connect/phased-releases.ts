/**
 * A version's release in the emulator (stores-media.md B1.1 and the spec's
 * appStoreVersionPhasedReleases): `releaseType` (MANUAL, AFTER_APPROVAL, SCHEDULED with an
 * `earliestReleaseDate` on the hour) PATCHed while the version is editable; a phased release
 * created for a version not yet released (INACTIVE), ACTIVE from the day the version goes live,
 * paused and resumed (the pause is counted in `totalPauseDuration`, days), completed. A move the
 * state does not allow is Apple's 409 STATE_ERROR; one phased release per version.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SpecValidator } from '../spec-validator.js';
import { AscFailure, notFoundError, stateError } from './errors.js';
import {
  answerOne,
  bodyChecker,
  checkUpdate,
  entityError,
  findOr404,
  type WriteBody,
} from './entity-rules.js';
import type { JsonApi } from './json-api.js';
import { EDITABLE_VERSION } from './rules.js';
import type { AppStoreState, PhasedRelease, Version } from './state.js';

const DAY_MS = 86_400_000;
/** Apple's phased release lasts seven days (1, 2, 5, 10, 20, 50, 100 %). */
const PHASE_DAYS = 7;
const RELEASED = new Set(['READY_FOR_DISTRIBUTION', 'PROCESSING_FOR_DISTRIBUTION']);
const RELEASE_TYPES = ['MANUAL', 'AFTER_APPROVAL', 'SCHEDULED'];

const moveRefused = (from: string, to: string) =>
  new AscFailure(
    409,
    'STATE_ERROR',
    'The request cannot be fulfilled because of the state of another resource.',
    `A phased release in state ${from} cannot be changed to ${to}.`,
    { pointer: '/data/attributes/phasedReleaseState' },
  );

/** The release attributes of a version resource (Apple leaves unset ones out). */
export const releaseAttributes = (v: Version) => ({
  releaseType: v.releaseType ?? 'AFTER_APPROVAL',
  ...(v.earliestReleaseDate != null && { earliestReleaseDate: v.earliestReleaseDate }),
});

/** A PATCH of a version's release attributes, with Apple's rules; the caller checked the body's shape. */
export function applyReleaseAttributes(
  version: Version,
  attributes: Record<string, unknown>,
  now: number,
): void {
  const touches =
    Object.hasOwn(attributes, 'releaseType') || Object.hasOwn(attributes, 'earliestReleaseDate');
  if (!touches) return;
  if (!EDITABLE_VERSION.has(version.appVersionState)) throw stateError('releaseType');
  const type = (attributes.releaseType as string | undefined) ?? version.releaseType ?? 'AFTER_APPROVAL';
  if (!RELEASE_TYPES.includes(type)) {
    throw entityError(
      'ENTITY_ERROR.ATTRIBUTE.INVALID',
      `'${type}' is not a valid release type`,
      '/data/attributes/releaseType',
    );
  }
  const date = Object.hasOwn(attributes, 'earliestReleaseDate')
    ? ((attributes.earliestReleaseDate as string | null) ?? null)
    : type === 'SCHEDULED'
      ? (version.earliestReleaseDate ?? null)
      : null;
  if (type === 'SCHEDULED') {
    if (date === null) {
      throw entityError(
        'ENTITY_ERROR.ATTRIBUTE.REQUIRED',
        "You must provide a value for the attribute 'earliestReleaseDate' with this request",
        '/data/attributes/earliestReleaseDate',
      );
    }
    const at = Date.parse(date);
    if (Number.isNaN(at) || at % 3_600_000 !== 0 || at <= now) {
      throw entityError(
        'ENTITY_ERROR.ATTRIBUTE.INVALID',
        'The earliest release date must be in the future and on the hour.',
        '/data/attributes/earliestReleaseDate',
      );
    }
  } else if (date !== null) {
    throw entityError(
      'ENTITY_ERROR.ATTRIBUTE.INVALID',
      'An earliest release date is only allowed with the release type SCHEDULED.',
      '/data/attributes/earliestReleaseDate',
    );
  }
  version.releaseType = type;
  version.earliestReleaseDate =
    date === null ? null : new Date(Date.parse(date)).toISOString().replace('.000Z', 'Z');
}

export function registerPhasedReleaseRoutes(
  scope: FastifyInstance,
  state: AppStoreState,
  spec: SpecValidator,
  { origin, respond }: JsonApi,
): void {
  const check = bodyChecker(spec);
  const one = answerOne(respond);
  const phased = state.phasedReleases;

  const resource = (request: FastifyRequest, p: PhasedRelease) => {
    const now = state.now();
    const paused = p.pausedMs + (p.pausedAt === null ? 0 : now - p.pausedAt);
    const day =
      p.startDate === null
        ? null
        : Math.min(PHASE_DAYS, Math.floor((now - Date.parse(p.startDate) - paused) / DAY_MS) + 1);
    return {
      type: 'appStoreVersionPhasedReleases',
      id: p.id,
      attributes: {
        phasedReleaseState: p.state,
        ...(p.startDate !== null && { startDate: p.startDate }),
        totalPauseDuration: Math.floor(paused / DAY_MS),
        ...(day !== null && { currentDayNumber: p.state === 'COMPLETE' ? PHASE_DAYS : day }),
      },
      links: { self: `${origin(request)}/v1/appStoreVersionPhasedReleases/${p.id}` },
    };
  };

  scope.get<{ Params: { id: string } }>(
    '/appStoreVersions/:id/appStoreVersionPhasedRelease',
    async (request, reply) => {
      findOr404(state.versions, 'appStoreVersions', request.params.id);
      const found = [...phased.values()].find((p) => p.versionId === request.params.id);
      if (found === undefined)
        throw notFoundError('appStoreVersionPhasedReleases', `of version ${request.params.id}`);
      return one(reply, 200, 'AppStoreVersionPhasedReleaseResponse', resource(request, found));
    },
  );

  scope.post('/appStoreVersionPhasedReleases', async (request, reply) => {
    const body = check('AppStoreVersionPhasedReleaseCreateRequest', request.body) as WriteBody & {
      data: { relationships: { appStoreVersion: { data: { id: string } } } };
    };
    const version = findOr404(
      state.versions,
      'appStoreVersions',
      body.data.relationships.appStoreVersion.data.id,
    );
    if ([...phased.values()].some((p) => p.versionId === version.id)) {
      throw entityError(
        'ENTITY_ERROR.RELATIONSHIP.INVALID',
        'The version already has a phased release.',
        '/data/relationships/appStoreVersion',
      );
    }
    if (RELEASED.has(version.appVersionState) || !EDITABLE_VERSION.has(version.appVersionState)) {
      throw stateError('phasedReleaseState');
    }
    const requested = body.data.attributes?.phasedReleaseState;
    if (requested !== undefined && requested !== null && requested !== 'INACTIVE') {
      throw moveRefused('INACTIVE', JSON.stringify(requested));
    }
    const created: PhasedRelease = {
      id: randomUUID(),
      versionId: version.id,
      state: 'INACTIVE',
      startDate: null,
      pausedAt: null,
      pausedMs: 0,
    };
    phased.set(created.id, created);
    return one(reply, 201, 'AppStoreVersionPhasedReleaseResponse', resource(request, created));
  });

  scope.patch<{ Params: { id: string } }>('/appStoreVersionPhasedReleases/:id', async (request, reply) => {
    const found = findOr404(phased, 'appStoreVersionPhasedReleases', request.params.id);
    const body = check('AppStoreVersionPhasedReleaseUpdateRequest', request.body);
    const attributes = checkUpdate(body, found.id, ['phasedReleaseState']);
    const to = attributes.phasedReleaseState as PhasedRelease['state'] | undefined;
    if (to === undefined || to === found.state)
      return one(reply, 200, 'AppStoreVersionPhasedReleaseResponse', resource(request, found));
    const now = state.now();
    const allowed =
      (to === 'PAUSED' && found.state === 'ACTIVE') ||
      (to === 'ACTIVE' && found.state === 'PAUSED') ||
      (to === 'COMPLETE' && (found.state === 'ACTIVE' || found.state === 'PAUSED'));
    if (!allowed) throw moveRefused(found.state, to);
    if (found.pausedAt !== null) {
      found.pausedMs += now - found.pausedAt;
      found.pausedAt = null;
    }
    if (to === 'PAUSED') found.pausedAt = now;
    found.state = to;
    return one(reply, 200, 'AppStoreVersionPhasedReleaseResponse', resource(request, found));
  });

  scope.delete<{ Params: { id: string } }>('/appStoreVersionPhasedReleases/:id', async (request, reply) => {
    const found = findOr404(phased, 'appStoreVersionPhasedReleases', request.params.id);
    if (found.state !== 'INACTIVE') throw stateError('phasedReleaseState');
    phased.delete(found.id);
    return reply.code(204).send();
  });
}
