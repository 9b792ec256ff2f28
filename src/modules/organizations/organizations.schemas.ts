import { Type } from '@sinclair/typebox';
import { EntriesPage, Nullable, Ok, PageQuery, StringEnum, Timestamp } from '../../http/schemas.js';
import { MAX_KEPT_TERM, MAX_KEPT_TERMS, NAME_MAX } from './organization.js';
import { PLAN_NAMES } from './plans.js';

export const Settings = Type.Object({
  defaultLocale: Type.String({ description: 'A locale code both stores accept', examples: ['en-US'] }),
  requireApproval: Type.Boolean(),
  allowedDomains: Type.Array(Type.String(), {
    description: 'E-mail domains that invites may go to; empty = any',
  }),
  driftCheckMinutes: Type.Integer({
    minimum: 0,
    maximum: 1440,
    description: 'Minutes between read-only checks of each linked store for edits made there; 0 = off',
  }),
  doNotTranslate: Type.Array(Type.String(), {
    description:
      'Terms machine translation keeps as written in every language (the app name, trademarks); shown to translators',
  }),
});

export const Organization = Type.Object({
  id: Type.String(),
  name: Type.String(),
  plan: StringEnum(PLAN_NAMES),
  memberCount: Type.Integer(),
  settings: Settings,
  usage: Type.Object({
    mediaBytes: Type.Integer({ description: 'Bytes of the distinct media files the organization holds' }),
    mediaBytesLimit: Nullable(Type.Integer({ description: "The plan's media storage; null: unlimited" })),
  }),
  createdAt: Timestamp,
});

export const GetOrganizationResponse = Ok(Organization);

/** A display name — organization, project, member (design.md §7); the same limit the domain enforces. */
export const DisplayName = Type.String({
  minLength: 1,
  maxLength: NAME_MAX,
  description: `1..${NAME_MAX} characters on one line; surrounding whitespace is trimmed`,
});

export const UpdateOrganizationBody = Type.Object(
  {
    name: Type.Optional(DisplayName),
    settings: Type.Optional(
      Type.Object(
        {
          defaultLocale: Type.Optional(Type.String({ maxLength: 20 })),
          requireApproval: Type.Optional(Type.Boolean()),
          allowedDomains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 100 })),
          driftCheckMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440 })),
          doNotTranslate: Type.Optional(
            Type.Array(Type.String({ maxLength: MAX_KEPT_TERM }), { maxItems: MAX_KEPT_TERMS }),
          ),
        },
        {
          additionalProperties: false,
          description: 'Merged into the current settings; unknown keys are 400',
        },
      ),
    ),
  },
  { additionalProperties: false },
);

export const UpdateOrganizationResponse = Ok(
  Type.Object({ id: Type.String(), name: Type.String(), settings: Settings }),
);

/** The audit log's filters (design.md §15), for the page and the CSV alike. */
export const AuditLogFilter = Type.Object({
  actor: Type.Optional(Type.String({ maxLength: 64, description: 'A member id: what that member did' })),
  projectId: Type.Optional(Type.String({ maxLength: 64, description: 'Changes made in this project' })),
  action: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z][A-Za-z.]*$',
      maxLength: 80,
      description: 'An operation id (`listings.update`), or a prefix ending in `.` (`listings.`)',
    }),
  ),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Entries at or after this time' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'Entries before this time' })),
});

export const AuditLogQuery = Type.Object({ ...PageQuery().properties, ...AuditLogFilter.properties });

export const AuditLogResponse = EntriesPage(
  Type.Object({
    id: Type.String(),
    actor: Type.Object({
      memberId: Nullable(Type.String()),
      keyId: Nullable(Type.String()),
      operator: Nullable(Type.String({ description: 'The operator when no member acted, e.g. cli:alice' })),
      name: Nullable(
        Type.String({ description: "The member's name, or the operator's label, as it was at the time" }),
      ),
    }),
    action: Type.String({ description: 'The operation id, e.g. members.updateRole' }),
    target: Type.Object({ type: Type.String(), id: Type.String() }),
    project: Nullable(
      Type.Object(
        { id: Type.String(), name: Nullable(Type.String()) },
        { description: 'The project the change was made in, by its name then' },
      ),
    ),
    details: Nullable(Type.Record(Type.String(), Type.Unknown())),
    createdAt: Timestamp,
  }),
);
