import { Type } from '@sinclair/typebox';
import { EntriesPage, HistoryActor, Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';

export const StoreParam = StringEnum(['appstore', 'playstore']);

const SlotTypeParam = Type.String({
  maxLength: 40,
  description:
    'App Store: a screenshot display type (APP_IPHONE_67, ...) or PREVIEW_<previewType> (PREVIEW_IPHONE_67, ...); ' +
    'Google Play: phoneScreenshots, sevenInchScreenshots, tenInchScreenshots, tvScreenshots, wearScreenshots, ' +
    'icon, featureGraphic, tvBanner',
});

export const SlotParams = Type.Object({
  projectId: Type.String({ maxLength: 100 }),
  store: StoreParam,
  locale: Type.String({ maxLength: 20, description: "The store's own code" }),
  slotType: SlotTypeParam,
});

export const ItemParams = Type.Object({ ...SlotParams.properties, itemId: Type.String({ maxLength: 100 }) });

const ProductPageField = Type.String({
  maxLength: 100,
  description: "A custom product page's id (App Store, design.md §18); absent: the default product page",
});

/** `?productPage=`: the slot of a custom product page rather than of the default page. */
export const PageQuery = Type.Object({ productPage: Type.Optional(ProductPageField) });

export const MediaItemSchema = Type.Object({
  id: Type.String(),
  sha256: Type.String(),
  md5: Type.String({ description: "MD5 hex: App Store Connect's sourceFileChecksum" }),
  kind: StringEnum(['image', 'video']),
  contentType: Type.String(),
  bytes: Type.Integer(),
  width: Nullable(Type.Integer()),
  height: Nullable(Type.Integer()),
  durationMs: Nullable(Type.Integer()),
  fileName: Type.String(),
  position: Type.Integer({ description: '1-based place in the slot' }),
  url: Type.String(),
  thumbnailUrl: Nullable(Type.String()),
});

export const MediaSlotSchema = Type.Object({
  store: StoreParam,
  locale: Type.String(),
  slotType: Type.String(),
  productPage: Type.Optional(ProductPageField),
  kind: StringEnum(['image', 'video']),
  maxItems: Type.Integer(),
  state: StringEnum(['unchanged', 'modified', 'conflict']),
  items: Type.Array(MediaItemSchema),
  base: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description: 'SHA-256 of what the store had at the last sync or push, in order; null if never read',
  }),
  conflict: Type.Union([Type.Array(Type.String()), Type.Null()], {
    description:
      "The store's files (SHA-256, in order) when a sync found the slot changed here and in the store; editing the slot resolves it",
  }),
});

export const SlotsResponse = Ok(Type.Object({ slots: Type.Array(MediaSlotSchema) }));
export const SlotResponse = Ok(Type.Object({ slot: MediaSlotSchema }));

export const UploadResponse = Ok(
  Type.Object({
    ...MediaItemSchema.properties,
    replaced: Type.Union([Type.String(), Type.Null()], {
      description: 'The item a single-image slot held before',
    }),
    notVerified: Type.Array(Type.String(), {
      description:
        'Rules that could not be checked from the bytes (e.g. a video whose duration is not readable)',
    }),
  }),
);

export const OrderBody = Type.Object(
  { items: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 50 }) },
  { additionalProperties: false },
);

const Place = Type.Object(
  { store: StoreParam, locale: Type.String({ maxLength: 20 }), productPage: Type.Optional(ProductPageField) },
  { additionalProperties: false },
);

export const CopyBody = Type.Object(
  {
    from: Place,
    to: Type.Object(
      {
        store: StoreParam,
        productPage: Type.Optional(ProductPageField),
        locale: Type.Optional(
          Type.String({
            maxLength: 20,
            description:
              'Target locale; default: the source locale mapped to the target store; "*": every locale of the target store in the project',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    slotTypes: Type.Optional(
      Type.Array(Type.String({ maxLength: 80 }), {
        maxItems: 60,
        description: 'Source slot types (default: every slot with media), each optionally `source:target`',
      }),
    ),
  },
  { additionalProperties: false },
);

export const CopyResponse = Ok(
  Type.Object({
    slots: Type.Array(MediaSlotSchema),
    copied: Type.Array(Type.Object({ from: Type.String(), to: Type.String(), items: Type.Integer() })),
  }),
);

export const MediaHistoryResponse = EntriesPage(
  Type.Object({
    id: Type.String(),
    old: Type.Array(Type.String(), { description: 'SHA-256 of the files before, in order' }),
    new: Type.Array(Type.String()),
    source: Type.String(),
    actor: HistoryActor,
    createdAt: Timestamp,
  }),
);

export const RevertBody = Type.Object(
  {
    historyId: Type.String({ maxLength: 100 }),
    to: Type.Optional(StringEnum(['before', 'after'], { default: 'before' })),
  },
  { additionalProperties: false },
);

export const SlotTypesResponse = Ok(
  Type.Object({
    slotTypes: Type.Array(
      Type.Object({
        store: StoreParam,
        slotType: Type.String(),
        name: Type.String({
          description: 'What people call it: iPhone 6.9″, iPad 13″, Phone, 7-inch tablet',
        }),
        kind: StringEnum(['image', 'video']),
        label: Type.String(),
        maxItems: Type.Integer(),
        formats: Type.Array(Type.String()),
        sizes: Type.Optional(Type.Array(Type.Object({ width: Type.Integer(), height: Type.Integer() }))),
        range: Type.Optional(
          Type.Object({
            min: Type.Integer(),
            max: Type.Integer(),
            maxRatio: Type.Number(),
            aspect: Type.Optional(Type.Number()),
          }),
        ),
        alpha: StringEnum(['forbidden', 'required', 'allowed']),
        maxBytes: Type.Integer(),
        durationSeconds: Type.Optional(Type.Object({ min: Type.Integer(), max: Type.Integer() })),
      }),
    ),
  }),
);

export const MediaChangeSchema = Type.Object({
  old: Type.Array(Type.String()),
  new: Type.Array(Type.String()),
  added: Type.Array(Type.String()),
  removed: Type.Array(Type.String()),
  reordered: Type.Boolean(),
  uploadBytes: Type.Integer(),
  conflict: Type.Optional(
    Type.Array(Type.String(), {
      description: "In conflict: the store's files; a push leaves the slot alone until it is edited",
    }),
  ),
});

export const MediaChangesSchema = Type.Record(
  Type.String(),
  Type.Record(Type.String(), Type.Record(Type.String(), MediaChangeSchema)),
  {
    description:
      'store → locale → slot type → change (SHA-256 lists), for slots whose files differ from the store',
  },
);

/** A file's bytes in a response. */
export const Binary = Type.Unsafe<Buffer>({ type: 'string', format: 'binary' });
