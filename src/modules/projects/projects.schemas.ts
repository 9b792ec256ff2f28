import { Type } from '@sinclair/typebox';
import { Nullable, Ok, Timestamp } from '../../http/schemas.js';
import { DisplayName } from '../organizations/index.js';
import { APP_STORE_APP_ID_PATTERN, PACKAGE_NAME_MAX, PACKAGE_NAME_PATTERN } from './project.js';

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

const SourceLocale = Type.String({
  maxLength: 20,
  description:
    "A locale code both stores accept; translations are made from it (design.md §14). Null follows the organization's defaultLocale. Read back with GET /projects/:projectId/translations (project responses keep the interface spec's shape)",
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
    name: DisplayName,
    appStoreAppId: Type.Optional(AppStoreAppId),
    playStorePackageName: Type.Optional(PackageName),
    sourceLocale: Type.Optional(Nullable(SourceLocale)),
  },
  { additionalProperties: false },
);
export const CreateProjectResponse = Ok(Type.Object({ projectId: Type.String(), project: Project }));

export const GetProjectResponse = Ok(Type.Object({ project: ProjectWithMetadata }));

export const UpdateProjectBody = Type.Object(
  {
    name: Type.Optional(DisplayName),
    appStoreAppId: Type.Optional(Nullable(AppStoreAppId)),
    playStorePackageName: Type.Optional(Nullable(PackageName)),
    sourceLocale: Type.Optional(Nullable(SourceLocale)),
  },
  { additionalProperties: false },
);
export const UpdateProjectResponse = Ok(
  Type.Object({
    project: Type.Pick(Project, ['id', 'name', 'appStoreAppId', 'playStorePackageName', 'updatedAt']),
  }),
);

export const DeleteProjectResponse = Ok(Type.Object({ deleted: Type.Boolean() }));
