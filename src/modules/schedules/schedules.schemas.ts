/** Schemas of scheduled changes and release controls (design.md §20). */
import { Type } from '@sinclair/typebox';
import { Nullable, Ok, PageQuery, StringEnum, Timestamp } from '../../http/schemas.js';
import { ReleaseActionSchema } from '../releases/index.js';
import { SCHEDULE_STATUSES } from './schedule.js';

export const ScheduleParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  scheduleId: Type.String({ maxLength: 64 }),
});

const Summary = Type.Object({
  changeCount: Type.Integer(),
  mediaChangeCount: Type.Integer(),
  releaseNoteChangeCount: Type.Integer(),
  productChangeCount: Type.Integer(),
  detailChangeCount: Type.Integer(),
  fields: Type.Array(
    Type.Object({
      store: Type.String(),
      locale: Type.String(),
      field: Type.String(),
      new: Nullable(Type.String()),
    }),
  ),
});

export const ScheduleSchema = Type.Object({
  id: Type.String(),
  projectId: Type.String(),
  kind: StringEnum(['push', 'release'] as const),
  status: StringEnum(SCHEDULE_STATUSES, {
    description:
      'scheduled → running → completed, or held (not pushed: the reason says why) or failed; a campaign is live ' +
      'between its push and its revert (reverting → completed); cancelled',
  }),
  at: Timestamp,
  revertAt: Nullable(Timestamp),
  timeZone: Nullable(Type.String({ description: 'The IANA zone it was entered in' })),
  atLocal: Nullable(Type.String({ description: 'at on the wall clock of timeZone, with its offset' })),
  revertAtLocal: Nullable(Type.String()),
  note: Nullable(Type.String()),
  hash: Nullable(Type.String({ description: 'The diff hash it pushes' })),
  release: Nullable(ReleaseActionSchema),
  summary: Nullable(Summary),
  createdBy: Type.Object({ memberId: Nullable(Type.String()), operator: Nullable(Type.String()) }),
  operationId: Nullable(Type.String({ description: 'The push operation, once it started' })),
  revertOperationId: Nullable(Type.String()),
  reason: Nullable(Type.String({ description: 'Why it was held or failed' })),
  outcome: Nullable(Type.Record(Type.String(), Type.Unknown())),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ScheduleBody = Type.Object(
  {
    at: Type.String({
      maxLength: 40,
      description: 'When: 2027-03-28T09:00:00+02:00, or a wall-clock time 2027-03-28T09:00 with timeZone',
    }),
    timeZone: Type.Optional(Type.String({ maxLength: 64, description: 'IANA zone, e.g. Europe/Berlin' })),
    hash: Type.Optional(Type.String({ maxLength: 128, description: 'The diff hash to push (GET .../diff)' })),
    release: Type.Optional(ReleaseActionSchema),
    revertAt: Type.Optional(
      Type.String({ maxLength: 40, description: 'A campaign: when the texts it pushed are put back' }),
    ),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

export const ScheduleQuery = Type.Intersect([
  PageQuery(),
  Type.Object({
    from: Type.Optional(Type.String({ maxLength: 40, description: 'at ≥ from' })),
    to: Type.Optional(Type.String({ maxLength: 40, description: 'at < to' })),
    status: Type.Optional(Type.String({ maxLength: 200, description: 'Comma-separated statuses' })),
  }),
]);

export const ScheduleResponse = Ok(Type.Object({ schedule: ScheduleSchema }));

export const ScheduleCreatedResponse = Ok(
  Type.Object({
    schedule: ScheduleSchema,
    approval: Nullable(
      Type.Object({
        required: Type.Boolean(),
        approved: Type.Boolean({
          description: 'false: it holds at its time unless an admin approves this hash first',
        }),
      }),
    ),
  }),
);

export const SchedulesResponse = Ok(
  Type.Object({
    schedules: Type.Array(ScheduleSchema),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  }),
);
