/** Schemas of sync, push and the operations log; the domain's result types derive from them. */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { STORE_SELECTIONS } from '../../shared/stores.js';
import {
  ApprovalState,
  Change,
  Conflict,
  KindCountsByStore,
  ProductChangesSchema,
} from '../listings/index.js';
import { ProjectParams } from '../projects/index.js';

export { ProjectParams };

export const StoreSelection = StringEnum(STORE_SELECTIONS, { default: 'both' });

/** Why a store did not sync or push: STORE_NOT_LINKED, NOT_REQUESTED, CREDENTIALS_MISSING, or the store's code. */
export const OutcomeError = Type.Object({ code: Type.String(), message: Type.String() });

/** design.md §17: sync and push include products unless `include` names parts without them. */
export const Include = Type.Array(StringEnum(['listings', 'products', 'details']), {
  minItems: 1,
  uniqueItems: true,
  description:
    'What to take part: listings (texts, media, release notes) and products (in-app purchase and subscription texts; App Store custom product pages with their media, and in-app events) and details (app details and App Review information); all when omitted',
});

export const SyncBody = Type.Object(
  { store: Type.Optional(StoreSelection), include: Type.Optional(Include) },
  { additionalProperties: false },
);
export const SyncOutcome = Type.Object({
  synced: Type.Boolean(),
  locales: Type.Integer(),
  products: Type.Optional(Type.Integer({ description: 'In-app purchases and subscriptions read' })),
  productPages: Type.Optional(Type.Integer({ description: 'App Store custom product pages read' })),
  appEvents: Type.Optional(Type.Integer({ description: 'App Store in-app events read' })),
  details: Type.Optional(Type.Integer({ description: 'App details the store changed here' })),
  conflicts: Type.Optional(Type.Integer()),
  error: Type.Optional(OutcomeError),
});
/** Something a store refused or could not do; locale and field when the store said which. */
export const Failure = Type.Object({
  store: Type.String(),
  locale: Nullable(Type.String()),
  field: Nullable(
    Type.String({
      description:
        'A text field, media.<slotType> for a media slot (media.page:<pageId>:<slotType> for a custom product ' +
        "page's), products.<productId>.<field> for a product, page or event text, details.<field> for an app detail",
    }),
  ),
  sha256: Type.Optional(Type.String({ description: 'Media: the file the store refused' })),
  error: OutcomeError,
});
export const SyncResult = Type.Object({
  syncedLocales: Type.Array(Type.String()),
  appStore: SyncOutcome,
  playStore: SyncOutcome,
  conflicts: Type.Array(Conflict, {
    description: 'Fields changed here and in the store; the local value was kept',
  }),
  failures: Type.Array(Failure),
});
export const SyncResponse = Ok(SyncResult);

export const PushBody = Type.Object(
  {
    store: Type.Optional(StoreSelection),
    include: Type.Optional(Include),
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
export const MediaPushOutcome = Type.Object({
  slots: Type.Integer({ description: 'Media slots the push brought to their files' }),
  uploaded: Type.Integer(),
  deleted: Type.Integer(),
  uploadedBytes: Type.Integer(),
});
export const PushOutcome = Type.Object({
  pushed: Type.Boolean(),
  locales: Type.Integer(),
  media: Type.Optional(MediaPushOutcome),
  releaseNotes: Type.Optional(Type.Integer({ description: 'Google Play releases whose notes were written' })),
  products: Type.Optional(
    Type.Integer({ description: 'Products all of whose changed texts the store took' }),
  ),
  details: Type.Optional(Type.Integer({ description: 'App details the store took' })),
  error: Type.Optional(OutcomeError),
});
/** What a push wrote in one store and locale, per kind of change. */
export const LocaleWritten = Type.Object({
  store: Type.String(),
  locale: Type.String(),
  fields: Type.Integer({ description: 'Text fields the store took' }),
  mediaSlots: Type.Integer({ description: 'Screenshot and preview slots brought to their files' }),
  mediaItems: Type.Integer({ description: 'Files uploaded or removed' }),
  releaseNotes: Type.Integer({ description: 'Releases whose notes in this language the store took' }),
  products: Type.Integer({ description: 'Product texts in this language the store took' }),
  failures: Type.Integer({
    description: 'Changes here the store refused or the push left out: see failures',
  }),
});
export const PushResult = Type.Object({
  pushedLocales: Type.Array(Type.String()),
  appStore: PushOutcome,
  playStore: PushOutcome,
  written: Type.Array(LocaleWritten, {
    description: 'Per store and locale, what was written of each kind and how many changes failed',
  }),
  failures: Type.Array(Failure, {
    description: 'Everything a store refused: store, locale, field, the store error',
  }),
});
/** A media slot in a dry run: the files it gains and loses, and the store calls planned. */
export const MediaPreview = Type.Object({
  added: Type.Array(Type.String()),
  removed: Type.Array(Type.String()),
  reordered: Type.Boolean(),
  replaced: Type.Array(Type.Object({ old: Type.String(), new: Type.String() }), {
    description: 'Positions where a new file takes the place of another',
  }),
  uploadBytes: Type.Integer(),
  conflict: Type.Boolean({ description: 'In conflict with the store: left alone by the push' }),
  calls: Type.Array(Type.String(), { description: 'The store calls planned, in order' }),
});
/** A dry run of a push: the changes it would write, per store and locale. */
export const PushPreview = Type.Object({
  dryRun: Type.Literal(true),
  stores: Type.Array(Type.String()),
  counts: KindCountsByStore,
  changeCount: Type.Integer(),
  changes: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Change))),
  mediaChangeCount: Type.Integer(),
  uploadBytes: Type.Integer({ description: 'Bytes of media the push would upload' }),
  media: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), MediaPreview)), {
    description: 'store → locale → slot type → what the push would do there',
  }),
  releaseNoteChangeCount: Type.Integer(),
  releaseNotes: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Change)), {
    description: 'Google Play release notes: track → version code → language → change',
  }),
  productChangeCount: Type.Integer(),
  products: ProductChangesSchema,
  approval: ApprovalState,
});
export const PushResponse = Ok(Type.Union([PushResult, PushPreview]));

const MediaCount = Type.Object(
  { done: Type.Integer(), failed: Type.Integer(), total: Type.Integer() },
  { description: 'Media files the stores settled, refused, of those to upload' },
);
const ProductCount = Type.Object(
  { done: Type.Integer(), failed: Type.Integer(), total: Type.Integer() },
  { description: 'Products whose texts the stores took, refused, of those to write' },
);
export const OperationRecord = Type.Object({
  id: Type.String(),
  kind: StringEnum(['sync', 'push']),
  status: StringEnum(['queued', 'running', 'succeeded', 'partial', 'failed', 'cancelled']),
  actor: Type.Object({
    memberId: Nullable(Type.String()),
    operator: Nullable(Type.String({ description: 'The operator when no member acted, e.g. cli:alice' })),
  }),
  stores: Type.Array(Type.String()),
  locales: Nullable(Type.Array(Type.String())),
  progress: Nullable(
    Type.Object(
      {
        done: Type.Integer(),
        total: Type.Integer(),
        stores: Type.Record(
          Type.String(),
          Type.Object({
            done: Type.Integer(),
            total: Type.Integer(),
            locales: Type.Array(Type.String()),
            media: Type.Optional(MediaCount),
            products: Type.Optional(ProductCount),
          }),
        ),
        media: Type.Optional(MediaCount),
        products: Type.Optional(ProductCount),
      },
      { description: 'Locales done of those to do, in all and per store (locales: the ones done)' },
    ),
  ),
  cancelRequested: Type.Boolean(),
  outcome: Nullable(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'Once finished: the result the synchronous call answers, or {error}',
    }),
  ),
  queuedAt: Nullable(Timestamp),
  startedAt: Timestamp,
  finishedAt: Nullable(Timestamp),
});
export const OperationParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  operationId: Type.String({ maxLength: 64 }),
});
export const OperationResponse = Ok(Type.Object({ operation: OperationRecord }));
export const OperationsResponse = Ok(
  Type.Object({
    operations: Type.Array(OperationRecord),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  }),
);

export type OutcomeError = Static<typeof OutcomeError>;
export type SyncOutcome = Static<typeof SyncOutcome>;
export type Failure = Static<typeof Failure>;
export type SyncResult = Static<typeof SyncResult>;
export type PushOutcome = Static<typeof PushOutcome>;
export type PushResult = Static<typeof PushResult>;
export type LocaleWritten = Static<typeof LocaleWritten>;
export type PushPreview = Static<typeof PushPreview>;
export type MediaPreview = Static<typeof MediaPreview>;
export type OperationRecord = Static<typeof OperationRecord>;
export type SyncInput = Static<typeof SyncBody>;
export type PushInput = Static<typeof PushBody>;
