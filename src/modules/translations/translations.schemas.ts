/** Schemas of translations, machine drafts and glossaries (design.md §14). */
import { Type } from '@sinclair/typebox';
import { Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { STORES } from '../../shared/stores.js';
import { TRANSLATION_STATES } from './translation-state.js';

const State = StringEnum(TRANSLATION_STATES, {
  description:
    'missing: no text; outdated: the source changed since it was translated; draft: a machine translation waits for a member; current',
});
const Fit = {
  length: Type.Integer({ description: 'Characters (Unicode code points)' }),
  limit: Nullable(Type.Integer()),
  overLimit: Type.Boolean({ description: 'Over the limit: cannot be accepted until shortened' }),
  note: Nullable(Type.String({ description: 'E.g. keywords left out to stay within the limit' })),
};

export const LocaleParams = Type.Object({
  projectId: Type.String(),
  locale: Type.String({ minLength: 2, maxLength: 16, description: 'A target locale, e.g. de-DE' }),
});

export const StatusResponse = Ok(
  Type.Object({
    sourceLocale: Type.String(),
    stores: Type.Array(StringEnum(STORES), { description: 'The stores with a listing in the source locale' }),
    items: Type.Array(
      Type.Object({
        locale: Type.String({ description: "The target locale, in the store's own code" }),
        store: StringEnum(STORES),
        field: Type.String(),
        state: State,
        draft: Type.Optional(Type.Object(Fit)),
      }),
    ),
    counts: Type.Record(Type.String(), Type.Integer(), { description: 'Items per state' }),
  }),
);

export const LocaleResponse = Ok(
  Type.Object({
    sourceLocale: Type.String(),
    locale: Type.String(),
    entries: Type.Array(
      Type.Object({
        store: StringEnum(STORES),
        locale: Type.String(),
        field: Type.String(),
        state: State,
        source: Nullable(Type.String({ description: 'The source text now' })),
        target: Nullable(Type.String()),
        translatedFrom: Nullable(
          Type.String({ description: 'The source text the target was translated from, when known' }),
        ),
        limit: Type.Optional(
          Nullable(Type.Integer({ description: 'A product text: its limit (per line for benefits)' })),
        ),
        product: Type.Optional(
          Type.Object(
            { productId: Type.String(), kind: Type.String(), field: Type.String() },
            { description: 'A product text (field products.<productId>.<field>): its product and field' },
          ),
        ),
        draft: Nullable(
          Type.Object({
            text: Type.String(),
            sourceValue: Nullable(Type.String({ description: 'The source text the draft was made from' })),
            provider: Type.String(),
            createdAt: Timestamp,
            ...Fit,
          }),
        ),
      }),
    ),
  }),
);

export const ExportQuery = Type.Object({
  version: Type.Optional(StringEnum(['2.0', '1.2'], { default: '2.0', description: 'XLIFF version' })),
});

export const ImportResponse = Ok(
  Type.Object({
    locale: Type.String(),
    version: StringEnum(['2.0', '1.2']),
    imported: Type.Array(Type.Object({ store: StringEnum(STORES), field: Type.String() }), {
      description: 'Units written, or confirmed unchanged (their state raised)',
    }),
    ignored: Type.Integer({ description: 'Units untouched or without a target' }),
  }),
);

const Field = Type.String({ minLength: 1, maxLength: 40 });

export const MachineBody = Type.Object(
  {
    targetLocales: Type.Array(Type.String({ minLength: 2, maxLength: 16 }), { minItems: 1, maxItems: 50 }),
    stores: Type.Optional(Type.Array(StringEnum(STORES), { minItems: 1, maxItems: 2 })),
    fields: Type.Optional(Type.Array(Field, { minItems: 1, maxItems: 20 })),
    states: Type.Optional(
      Type.Array(State, {
        minItems: 1,
        maxItems: 4,
        description: 'Which fields to translate by state (default: missing and outdated)',
      }),
    ),
    formality: Type.Optional(
      StringEnum(['more', 'less'], { description: 'Where the target language has it (de, fr, ja, …)' }),
    ),
  },
  { additionalProperties: false },
);

const Place = { store: StringEnum(STORES), locale: Type.String(), field: Type.String() };

export const MachineResponse = Ok(
  Type.Object({
    provider: Type.String(),
    drafts: Type.Array(Type.Object({ ...Place, ...Fit })),
    errors: Type.Array(
      Type.Object({
        ...Place,
        code: Type.String({ description: 'PROVIDER_AUTH, PROVIDER_QUOTA, PROVIDER_RATE_LIMITED, …' }),
        message: Type.String(),
        retryAfterSeconds: Type.Optional(Type.Number()),
      }),
    ),
    usage: Type.Object({
      characters: Type.Integer({ description: 'Billed for this request' }),
      month: Type.Object({ period: Type.String(), characters: Type.Integer(), requests: Type.Integer() }),
    }),
  }),
);

export const AcceptBody = Type.Object(
  {
    store: Type.Optional(StringEnum(STORES)),
    fields: Type.Optional(Type.Array(Field, { minItems: 1, maxItems: 20 })),
  },
  { additionalProperties: false },
);

export const AcceptResponse = Ok(
  Type.Object({
    locale: Type.String(),
    accepted: Type.Array(Type.Object({ store: StringEnum(STORES), field: Type.String() })),
    skipped: Type.Array(
      Type.Object({ store: StringEnum(STORES), field: Type.String(), reason: Type.String() }),
      { description: 'Drafts over their limit (when no fields were named)' },
    ),
  }),
);

const Glossary = Type.Object({
  sourceLanguage: Type.String(),
  targetLanguage: Type.String(),
  entries: Type.Record(Type.String(), Type.String(), { description: 'source term → target term' }),
  updatedAt: Timestamp,
});

export const GlossaryParams = Type.Object({
  source: Type.String({ minLength: 2, maxLength: 3, description: 'Source language, e.g. en' }),
  target: Type.String({ minLength: 2, maxLength: 3, description: 'Target language, e.g. de' }),
});

export const GlossaryBody = Type.Object(
  {
    terms: Type.Optional(
      Type.Array(Type.String({ maxLength: 1024 }), {
        maxItems: 5000,
        description: 'Terms kept as they are: the app name, trademarks',
      }),
    ),
    entries: Type.Optional(
      Type.Record(Type.String({ maxLength: 1024 }), Type.String({ maxLength: 1024 }), {
        description: 'source term → target term',
      }),
    ),
  },
  { additionalProperties: false },
);

export const GlossaryResponse = Ok(Glossary);
export const GlossariesResponse = Ok(
  Type.Object({
    glossaries: Type.Array(Glossary),
    usage: Type.Object(
      { period: Type.String(), characters: Type.Integer(), requests: Type.Integer() },
      { description: "This month's machine translation" },
    ),
  }),
);
