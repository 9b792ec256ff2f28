import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { EntriesPage, HistoryActor, Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { MediaChangesSchema } from '../media/index.js';
import { APPSTORE_FIELDS, PLAYSTORE_FIELDS, type FieldRule } from '../../shared/listing-fields.js';

export const StoreParam = StringEnum(['appstore', 'playstore']);

export const ListingParams = Type.Object({
  projectId: Type.String({ maxLength: 100 }),
  store: StoreParam,
  locale: Type.String({ maxLength: 20, description: "The store's own code: Apple zh-Hans, Google zh-CN" }),
});

const FieldView = Type.Object({
  value: Nullable(Type.String()),
  base: Nullable(Type.String()),
  state: StringEnum(['unchanged', 'modified', 'conflict']),
  storeValue: Type.Optional(Nullable(Type.String())),
});

export const ListingSchema = Type.Object({
  store: StoreParam,
  locale: Type.String(),
  state: StringEnum(['unchanged', 'modified', 'conflict']),
  fields: Type.Record(Type.String(), FieldView, { description: 'Every field of the store, set or not' }),
  updatedAt: Timestamp,
});

const Warnings = Type.Array(Type.Object({ field: Type.String(), message: Type.String() }), {
  description: 'Advice that did not block the write',
});

const describeRule = (rule: FieldRule) =>
  rule.kind === 'url'
    ? `${rule.label}: an http(s) URL`
    : `${rule.label}: ${rule.min ? `${rule.min}..` : 'at most '}${rule.max} characters (Unicode code points)` +
      (rule.kind === 'keywords' ? ', comma separated; over 100 UTF-8 bytes is a warning' : '');

const fieldSchemas = (fields: Record<string, FieldRule>): Record<string, TSchema> =>
  Object.fromEntries(
    Object.entries(fields).map(([name, rule]) => [
      name,
      Type.Optional(Nullable(Type.String({ maxLength: 20_000, description: describeRule(rule) }))),
    ]),
  );

export const ListingPatch = Type.Object(
  { ...fieldSchemas(APPSTORE_FIELDS), ...fieldSchemas(PLAYSTORE_FIELDS) },
  {
    additionalProperties: false,
    description:
      'Fields to change: App Store fields for an appstore listing, Google Play fields for a playstore listing. ' +
      '`null` or "" clears a field.',
  },
);

export const EditResponse = Ok(Type.Object({ listing: ListingSchema, warnings: Warnings }));
export const ValidateResponse = Ok(
  Type.Object({
    valid: Type.Literal(true, { description: 'Invalid texts are a 400 naming every field' }),
    warnings: Warnings,
  }),
);

/** Whether the pending changes need an approval, and whether they have one. */
export const ApprovalState = Type.Object({
  required: Type.Boolean(),
  approved: Type.Boolean(),
  approvedBy: Nullable(Type.String()),
  approvedAt: Nullable(Timestamp),
});

/** One field's pending change: what the store has (old), the working copy (new), a conflict. */
export const Change = Type.Object({
  old: Nullable(Type.String()),
  new: Nullable(Type.String()),
  conflict: Type.Optional(Type.Object({ storeValue: Nullable(Type.String()) })),
});

/** Product texts that differ from the store's (design.md §17). */
export const ProductChangesSchema = Type.Record(
  Type.String(),
  Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Change))),
  { description: 'store → product id → locale → field → change (benefits: one per line)' },
);

/** App details that differ from the store's (design.md §19). */
export const DetailChangesSchema = Type.Record(Type.String(), Type.Record(Type.String(), Change), {
  description:
    'store → detail (review.<name> for App Review information) → change; the demo account password only as "set"',
});

/** Per store, how many changes of each kind (design.md §15). */
export const KindCountsByStore = Type.Record(
  Type.String(),
  Type.Object({
    fields: Type.Integer(),
    media: Type.Integer({ description: 'Screenshot and preview slots' }),
    releaseNotes: Type.Integer({ description: 'Google Play release notes (release × language)' }),
    products: Type.Integer({
      description: 'In-app purchase and subscription texts (product × locale × field)',
    }),
    details: Type.Optional(Type.Integer({ description: 'App details and App Review information' })),
    removedLocales: Type.Integer(),
  }),
  { description: 'store → counts per kind; a store without changes is left out' },
);

export const DiffResponse = Ok(
  Type.Object({
    inSync: Type.Boolean(),
    counts: KindCountsByStore,
    changeCount: Type.Integer(),
    stores: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Change)), {
      description: 'store → locale → field → {old: base, new: working copy}',
    }),
    removedLocales: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'Locales deleted here that only a push with prune removes from the store',
    }),
    media: MediaChangesSchema,
    mediaChangeCount: Type.Integer({ description: 'Slots whose media differ from the store' }),
    releaseNotes: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Change)), {
      description: 'Google Play release notes: track → version code → language → change',
    }),
    releaseNoteChangeCount: Type.Integer({ description: 'Release notes (release × language) that differ' }),
    products: ProductChangesSchema,
    productChangeCount: Type.Integer({ description: 'Product texts (product × locale × field) that differ' }),
    details: DetailChangesSchema,
    detailChangeCount: Type.Integer({ description: 'App details that differ' }),
    hash: Type.String({ description: 'SHA-256 of the whole project diff; approvals are bound to it' }),
    approval: ApprovalState,
    storeDrift: Type.Array(
      Type.Object({
        store: Type.String(),
        locale: Type.String(),
        field: Type.String({ description: 'The field, or * for a locale added in the store' }),
        base: Nullable(Type.String({ description: 'What the store had at the last sync or push' })),
        storeValue: Nullable(Type.String({ description: 'What the store has now' })),
        detectedAt: Timestamp,
      }),
      { description: 'Changed in the store since the last sync (drift checks); a sync merges them' },
    ),
  }),
);

export const HistoryResponse = EntriesPage(
  Type.Object({
    id: Type.String(),
    field: Type.String(),
    old: Nullable(Type.String()),
    new: Nullable(Type.String()),
    source: StringEnum(['edit', 'revert', 'copy', 'import', 'translation', 'sync', 'push']),
    actor: HistoryActor,
    createdAt: Timestamp,
  }),
);

export const RevertBody = Type.Object(
  {
    historyId: Type.String({ maxLength: 100 }),
    to: Type.Optional(
      StringEnum(['before', 'after'], { default: 'before', description: 'before undoes the entry' }),
    ),
  },
  { additionalProperties: false },
);

const Place = (withOptionalLocale: boolean) =>
  Type.Object(
    {
      store: StoreParam,
      locale: withOptionalLocale
        ? Type.Optional(
            Type.String({ maxLength: 20, description: 'Defaults to the mapped locale of `from`' }),
          )
        : Type.String({ maxLength: 20 }),
    },
    { additionalProperties: false },
  );

export const CopyBody = Type.Object(
  {
    from: Place(false),
    to: Place(true),
    fields: Type.Optional(
      Type.Array(Type.String({ maxLength: 40 }), {
        maxItems: 20,
        description: 'Source fields; default all mapped',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CopyResponse = Ok(
  Type.Object({
    listing: ListingSchema,
    warnings: Warnings,
    copied: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
  }),
);

export const ApprovalResponse = Ok(
  Type.Object({
    approvalId: Type.String(),
    hash: Type.String(),
    changeCount: Type.Integer(),
    approvedBy: Type.String(),
    approvedAt: Timestamp,
  }),
);

export const ApprovalRequestBody = Type.Object(
  { note: Type.Optional(Type.String({ maxLength: 2000, description: 'What the admin should know' })) },
  { additionalProperties: false },
);

const ApprovalRequestSchema = Type.Object({
  id: Type.String(),
  projectId: Type.String(),
  hash: Type.String({ description: 'The diff hash the request is about' }),
  note: Nullable(Type.String()),
  requestedBy: Type.Object({ memberId: Nullable(Type.String()), name: Nullable(Type.String()) }),
  createdAt: Timestamp,
  changes: Type.Object(
    {
      fields: Type.Integer(),
      media: Type.Integer({ description: 'Screenshot and preview slots' }),
      releaseNotes: Type.Integer(),
      products: Type.Integer({ description: 'In-app purchase and subscription texts' }),
      removedLocales: Type.Integer(),
    },
    { description: 'What the pending changes hold, per kind' },
  ),
});

export const ApprovalRequestResponse = Ok(Type.Object({ request: ApprovalRequestSchema }));
export const ApprovalRequestsResponse = Ok(Type.Object({ requests: Type.Array(ApprovalRequestSchema) }));

export const ImportQuery = Type.Object({
  path: Type.Optional(
    Type.String({
      maxLength: 1000,
      description:
        'The folder to read as the metadata tree, relative to the archive root: one holding fastlane/metadata or ' +
        'metadata, or the metadata folder itself ("." for the root). Needed only when the archive holds several trees.',
    }),
  ),
});

export const ImportResponse = Ok(
  Type.Object({
    tree: Type.String({ description: 'The folder read as the metadata tree ("" for the archive root)' }),
    imported: Type.Array(Type.Object({ store: StoreParam, locale: Type.String(), fields: Type.Integer() })),
    releaseNotes: Type.Integer({
      description:
        "Google Play release notes taken from supply's changelogs/<versionCode>.txt and default.txt",
    }),
    details: Type.Integer({
      description:
        "App Store details taken from deliver's copyright.txt, *_category.txt and review_information/",
    }),
    skipped: Type.Array(
      Type.Object({
        path: Type.String({ description: 'A file, or a folder (ending with /) with everything in it' }),
        reason: Type.String(),
      }),
      {
        description:
          'What the tree holds besides listing texts and changelogs (images, other folders), and why',
      },
    ),
    warnings: Type.Array(
      Type.Object({ store: StoreParam, locale: Type.String(), field: Type.String(), message: Type.String() }),
    ),
  }),
);

/** A field changed both here and in the store: found by a sync, the local value kept. */
export const Conflict = Type.Object({
  store: Type.String(),
  locale: Type.String({ description: 'The locale; "" for an app detail (details.<field>), which has none' }),
  field: Type.String({
    description: 'A listing field, media.<slotType>, products.<productId>.<field> or details.<field>',
  }),
  localValue: Nullable(Type.String()),
  storeValue: Nullable(Type.String()),
  localMedia: Type.Optional(
    Type.Array(Type.String(), { description: 'A media slot (field media.<slotType>): our files, SHA-256' }),
  ),
  storeMedia: Type.Optional(Type.Array(Type.String(), { description: "A media slot: the store's files" })),
});

export type FieldChange = Static<typeof Change>;
export type Conflict = Static<typeof Conflict>;

export const ApproveBody = Type.Object(
  {
    hash: Type.Optional(
      Type.String({ pattern: '^[0-9a-f]{64}$', description: 'The diff hash as reviewed (GET /diff)' }),
    ),
  },
  { additionalProperties: false },
);
