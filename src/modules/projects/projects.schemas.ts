import { Type } from '@sinclair/typebox';
import { Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { NAME_MAX } from '../organizations/organization.js';
import { APP_STORE_APP_ID_PATTERN, PACKAGE_NAME_MAX, PACKAGE_NAME_PATTERN } from './project.js';

const Name = Type.String({
  minLength: 1,
  maxLength: NAME_MAX * 2,
  description: '1..200 characters after trimming',
});
const AppStoreAppId = Type.String({
  pattern: APP_STORE_APP_ID_PATTERN.source,
  description: 'Numeric App Store app id',
  examples: ['1234567890'],
});
const PackageName = Type.String({
  pattern: PACKAGE_NAME_PATTERN.source,
  maxLength: PACKAGE_NAME_MAX,
  description: 'Google Play package name',
  examples: ['com.example.app'],
});

export const Project = Type.Object({
  id: Type.String({ examples: ['proj_0123456789abcdefghjkmnpqrs'] }),
  name: Type.String(),
  appStoreAppId: Nullable(Type.String()),
  playStorePackageName: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ProjectWithMetadata = Type.Composite([
  Project,
  Type.Object({
    metadata: Type.Object({
      locales: Type.Array(Type.String(), {
        description: 'Sorted union of the locales with a listing in either store',
      }),
      lastSyncedAt: Nullable(Timestamp),
    }),
  }),
]);

export const ProjectParams = Type.Object({ projectId: Type.String({ maxLength: 100 }) });

export const ListProjectsResponse = Ok(
  Type.Object({
    projects: Type.Array(Project),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  }),
);

export const CreateProjectBody = Type.Object(
  {
    name: Name,
    appStoreAppId: Type.Optional(AppStoreAppId),
    playStorePackageName: Type.Optional(PackageName),
  },
  { additionalProperties: false },
);
export const CreateProjectResponse = Ok(Type.Object({ projectId: Type.String(), project: Project }));

export const GetProjectResponse = Ok(Type.Object({ project: ProjectWithMetadata }));

export const UpdateProjectBody = Type.Object(
  {
    name: Type.Optional(Name),
    appStoreAppId: Type.Optional(Nullable(AppStoreAppId)),
    playStorePackageName: Type.Optional(Nullable(PackageName)),
  },
  { additionalProperties: false },
);
export const UpdateProjectResponse = Ok(
  Type.Object({
    project: Type.Pick(Project, ['id', 'name', 'appStoreAppId', 'playStorePackageName', 'updatedAt']),
  }),
);

export const DeleteProjectResponse = Ok(Type.Object({ deleted: Type.Boolean() }));

const StoreSelection = StringEnum(['appstore', 'playstore', 'both'], { default: 'both' });
const OutcomeError = Type.Object({ code: Type.String(), message: Type.String() });

export const SyncBody = Type.Object(
  { store: Type.Optional(StoreSelection) },
  { additionalProperties: false },
);
const SyncOutcome = Type.Object({
  synced: Type.Boolean(),
  locales: Type.Integer(),
  conflicts: Type.Optional(Type.Integer()),
  error: Type.Optional(OutcomeError),
});
const Failure = Type.Object({
  store: Type.String(),
  locale: Nullable(Type.String()),
  field: Nullable(Type.String()),
  error: OutcomeError,
});
const Conflict = Type.Object({
  store: Type.String(),
  locale: Type.String(),
  field: Type.String(),
  localValue: Nullable(Type.String()),
  storeValue: Nullable(Type.String()),
});
export const SyncResponse = Ok(
  Type.Object({
    syncedLocales: Type.Array(Type.String()),
    appStore: SyncOutcome,
    playStore: SyncOutcome,
    conflicts: Type.Array(Conflict, {
      description: 'Fields changed here and in the store; the local value was kept',
    }),
    failures: Type.Array(Failure),
  }),
);

export const PushBody = Type.Object(
  {
    store: Type.Optional(StoreSelection),
    locales: Type.Optional(
      Type.Array(Type.String({ maxLength: 20 }), {
        maxItems: 200,
        description: 'Locales to push; all when omitted',
      }),
    ),
    dryRun: Type.Optional(
      Type.Boolean({
        description: 'Answer what the push would change (per store, locale, field) without writing',
      }),
    ),
    prune: Type.Optional(
      Type.Boolean({
        description: 'Also delete from the store the locales deleted here (default false: additive)',
      }),
    ),
    changesNotSentForReview: Type.Optional(
      Type.Boolean({ description: 'Google Play: commit the edit with changesNotSentForReview=true' }),
    ),
  },
  { additionalProperties: false },
);
const PushOutcome = Type.Object({
  pushed: Type.Boolean(),
  locales: Type.Integer(),
  error: Type.Optional(OutcomeError),
});
const Change = Type.Object({
  old: Nullable(Type.String()),
  new: Nullable(Type.String()),
  conflict: Type.Optional(Type.Object({ storeValue: Nullable(Type.String()) })),
});
export const PushResponse = Ok(
  Type.Union([
    Type.Object({
      pushedLocales: Type.Array(Type.String()),
      appStore: PushOutcome,
      playStore: PushOutcome,
      failures: Type.Array(Failure, {
        description: 'Everything a store refused: store, locale, field, the store error',
      }),
    }),
    Type.Object({
      dryRun: Type.Literal(true),
      stores: Type.Array(Type.String()),
      changeCount: Type.Integer(),
      changes: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Change))),
      approval: Type.Object({
        required: Type.Boolean(),
        approved: Type.Boolean(),
        approvedBy: Nullable(Type.String()),
        approvedAt: Nullable(Timestamp),
      }),
    }),
  ]),
);

export const OperationsResponse = Ok(
  Type.Object({
    operations: Type.Array(
      Type.Object({
        id: Type.String(),
        kind: StringEnum(['sync', 'push']),
        status: StringEnum(['running', 'succeeded', 'partial', 'failed']),
        actor: Type.Object({ memberId: Nullable(Type.String()) }),
        stores: Type.Array(Type.String()),
        locales: Nullable(Type.Array(Type.String())),
        outcome: Nullable(Type.Record(Type.String(), Type.Unknown())),
        startedAt: Timestamp,
        finishedAt: Nullable(Timestamp),
      }),
    ),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  }),
);
