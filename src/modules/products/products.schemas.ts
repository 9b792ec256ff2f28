/** Schemas of in-app purchases and subscriptions (design.md §17). */
import { Type } from '@sinclair/typebox';
import { HistoryActor, Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { STORES } from '../../shared/stores.js';

/** A text: a string, or for a list (Google Play benefits) its items. */
const Text = Nullable(Type.Union([Type.String(), Type.Array(Type.String())]));

export const ProductsQuery = Type.Object({ store: Type.Optional(StringEnum(STORES)) });

const Product = Type.Object({
  store: Type.String(),
  kind: Type.String({
    description:
      'appstore: inAppPurchase, subscription, subscriptionGroup; playstore: inAppProduct, subscription',
  }),
  productId: Type.String({ description: 'The store product id (App Store groups: group:<reference name>)' }),
  referenceName: Nullable(Type.String()),
  state: Nullable(Type.String({ description: "The store's state of the product" })),
  locales: Type.Record(Type.String(), Type.Record(Type.String(), Text), {
    description: 'locale → field → working copy',
  }),
  states: Type.Record(Type.String(), StringEnum(['unchanged', 'modified', 'conflict']), {
    description: 'locale → whether its texts are as the store has them, changed here, or in conflict',
  }),
  linkedProductId: Nullable(
    Type.String({ description: "The counterpart's product id in the other store, when one was linked" }),
  ),
  pending: Type.Integer({ description: 'Texts that differ from the store (or are in conflict)' }),
  readAt: Timestamp,
});

export const Rule = Type.Object({
  label: Type.String(),
  max: Type.Integer(),
  min: Type.Optional(Type.Integer()),
  required: Type.Boolean(),
  list: Type.Optional(Type.Object({ maxItems: Type.Integer() })),
  plainCharacters: Type.Optional(Type.Boolean()),
  confirmed: Type.Boolean({ description: 'Whether a trustworthy source gives the number' }),
});

/** field → limits, of one kind. */
export const KindRules = Type.Record(Type.String(), Rule);

export const ProductsResponse = Ok(
  Type.Object({
    products: Type.Array(Product),
    limits: Type.Record(Type.String(), Type.Record(Type.String(), Type.Record(Type.String(), Rule)), {
      description: 'store → kind → field → limits (APPMETA_PRODUCT_LIMITS changes the unconfirmed ones)',
    }),
  }),
);

export const ProductParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  store: StringEnum(STORES),
  productId: Type.String({ minLength: 1, maxLength: 200 }),
  locale: Type.String({ minLength: 1, maxLength: 20 }),
});

const FieldView = Type.Object({
  value: Text,
  base: Text,
  state: StringEnum(['unchanged', 'modified', 'conflict']),
  storeValue: Type.Optional(Text),
  limit: Type.Integer({ description: 'Characters (per item for a list)' }),
  maxItems: Type.Optional(Type.Integer()),
  required: Type.Boolean(),
});

export const ProductLocaleResponse = Ok(
  Type.Object({
    store: Type.String(),
    kind: Type.String(),
    productId: Type.String(),
    referenceName: Nullable(Type.String()),
    state: Nullable(Type.String()),
    locale: Type.String(),
    fields: Type.Record(Type.String(), FieldView),
  }),
);

export const ProductPatchBody = Type.Record(Type.String({ maxLength: 40 }), Text, {
  description: 'field → new text; null clears an optional one; benefits as a list of up to 4 items',
  minProperties: 1,
  maxProperties: 10,
});

export const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

export const ProductHistoryResponse = Ok(
  Type.Object({
    entries: Type.Array(
      Type.Object({
        id: Type.String(),
        field: Type.String(),
        old: Text,
        new: Text,
        source: Type.String({ description: 'edit, revert, sync' }),
        actor: HistoryActor,
        createdAt: Timestamp,
      }),
    ),
  }),
);

export const RevertBody = Type.Object(
  {
    historyId: Type.String({ maxLength: 100 }),
    to: Type.Optional(StringEnum(['before', 'after'], { default: 'before' })),
  },
  { additionalProperties: false },
);

export const CopyBody = Type.Object(
  {
    from: Type.Object(
      { store: StringEnum(STORES), productId: Type.String({ minLength: 1, maxLength: 200 }) },
      { additionalProperties: false },
    ),
    to: Type.Optional(
      Type.Object(
        {
          productId: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 200,
              description: "The counterpart's product id in the other store, when it differs",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    locales: Type.Optional(
      Type.Array(Type.String({ maxLength: 20 }), {
        maxItems: 200,
        description: "Target locales, in the target store's codes; all by default",
      }),
    ),
  },
  { additionalProperties: false },
);

export const CopyResponse = Ok(
  Type.Object({
    store: Type.String(),
    productId: Type.String(),
    copied: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
  }),
);

export const LinkParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  store: StringEnum(STORES),
  productId: Type.String({ minLength: 1, maxLength: 200 }),
});

export const LinkBody = Type.Object(
  {
    productId: Nullable(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: "The counterpart's product id in the other store; null unlinks",
      }),
    ),
  },
  { additionalProperties: false },
);

export const LinkResponse = Ok(
  Type.Object({ store: Type.String(), productId: Type.String(), linkedProductId: Nullable(Type.String()) }),
);
