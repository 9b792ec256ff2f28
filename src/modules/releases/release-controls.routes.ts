import type { Api } from '../../http/api.js';
import { ok } from '../../http/envelope.js';
import { contextOf } from '../../http/identity.js';
import { BEARER, ERRORS } from '../../http/schemas.js';
import { ProjectParams } from '../projects/index.js';
import type { ReleaseControls } from './release-controls.js';
import * as S from './release-controls.schemas.js';

const tags = ['releases'];

/** Release controls (design.md §20): thin adapters over the release controls. */
export function releaseControlRoutes(app: Api, services: { releaseControls: ReleaseControls }): void {
  const { releaseControls } = services;

  app.get('/projects/:projectId/release-controls', {
    schema: {
      operationId: 'releaseControls.get',
      tags,
      summary: 'Release type, phased release and staged rollouts, as the stores have them now',
      description:
        "Reads the stores: the App Store's newest version (release type, phased release) and Google Play's releases " +
        'that are rolling out, halted or complete.',
      security: BEARER,
      params: ProjectParams,
      response: { 200: S.ReleaseControlsResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await releaseControls.getControls(contextOf(request), request.params.projectId)),
  });

  app.post('/projects/:projectId/release-controls', {
    schema: {
      operationId: 'releaseControls.apply',
      tags,
      summary: 'Applies a release control now',
      description:
        'App Store: setReleaseType {releaseType, earliestReleaseDate with SCHEDULED}, enablePhasedRelease, ' +
        'pausePhasedRelease, resumePhasedRelease, completePhasedRelease. Google Play: setRolloutFraction {track, ' +
        'fraction}, haltRollout, resumeRollout, completeRollout {track}. The store refusing (its state does not allow ' +
        'it) is 409 with its words. POST .../schedules {release} does the same at a time.',
      security: BEARER,
      params: ProjectParams,
      body: S.ReleaseActionSchema,
      response: { 200: S.ReleaseControlAppliedResponse, ...ERRORS },
    },
    handler: async (request) =>
      ok(await releaseControls.applyControl(contextOf(request), request.params.projectId, request.body)),
  });
}
