/** Schemas of release controls (design.md §20). */
import { Type } from '@sinclair/typebox';
import { Nullable, Ok, StringEnum } from '../../http/schemas.js';
import { APP_STORE_ACTIONS, PLAY_ACTIONS } from './release-controls.js';

export const ReleaseActionSchema = Type.Object(
  {
    store: StringEnum(['appstore', 'playstore'] as const),
    action: StringEnum([...APP_STORE_ACTIONS, ...PLAY_ACTIONS] as const, {
      description:
        'App Store: setReleaseType, enablePhasedRelease, pausePhasedRelease, resumePhasedRelease, completePhasedRelease. ' +
        'Google Play: setRolloutFraction, haltRollout, resumeRollout, completeRollout.',
    }),
    releaseType: Type.Optional(StringEnum(['MANUAL', 'AFTER_APPROVAL', 'SCHEDULED'] as const)),
    earliestReleaseDate: Type.Optional(
      Type.String({ maxLength: 40, description: 'With SCHEDULED: a time on the hour with an offset' }),
    ),
    track: Type.Optional(Type.String({ maxLength: 100, description: 'Google Play: production, beta, …' })),
    fraction: Type.Optional(
      Type.Number({ description: 'setRolloutFraction: the share of users, 0 < f < 1' }),
    ),
  },
  { additionalProperties: false },
);

const PhasedRelease = Type.Object({
  id: Type.String(),
  state: Type.String({ description: 'INACTIVE, ACTIVE, PAUSED or COMPLETE' }),
  startDate: Nullable(Type.String()),
  currentDayNumber: Nullable(Type.Integer()),
  totalPauseDuration: Nullable(Type.Integer()),
});

const ControlsView = Type.Object({
  appStore: Nullable(
    Type.Object({
      id: Type.String(),
      versionString: Type.String(),
      state: Type.String(),
      releaseType: Nullable(Type.String()),
      earliestReleaseDate: Nullable(Type.String()),
      phasedRelease: Nullable(PhasedRelease),
    }),
  ),
  playStore: Nullable(
    Type.Array(
      Type.Object({
        track: Type.String(),
        name: Nullable(Type.String()),
        versionCodes: Type.Array(Type.String()),
        status: Type.String(),
        userFraction: Nullable(Type.Number()),
      }),
    ),
  ),
});

export const ReleaseControlsResponse = Ok(ControlsView);
export const ReleaseControlAppliedResponse = Ok(
  Type.Object({ action: ReleaseActionSchema, controls: ControlsView }),
);
