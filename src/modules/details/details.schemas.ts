/** Schemas of app details and App Review information (design.md §19). */
import { Type } from '@sinclair/typebox';
import { HistoryActor, Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { STORES } from '../../shared/stores.js';

export const DetailsParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  store: StringEnum(STORES),
});

const text = (description: string) => Type.Optional(Nullable(Type.String({ maxLength: 4000, description })));

const Review = Type.Object(
  {
    contactFirstName: text('App Review contact first name'),
    contactLastName: text('App Review contact last name'),
    contactPhone: text('With + and the country code'),
    contactEmail: text('App Review contact e-mail'),
    demoAccountName: text('Demo account user name'),
    demoAccountPassword: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 200,
          description: 'A secret: admins set it; it is stored encrypted and never returned',
        }),
      ),
    ),
    demoAccountRequired: Type.Optional(Nullable(Type.Boolean())),
    notes: text('Notes for App Review (2–4000 characters)'),
  },
  { additionalProperties: false },
);

export const DetailsBody = Type.Object(
  {
    copyright: text('App Store: the copyright of the version being prepared'),
    primaryCategory: text('App Store category id, e.g. WEATHER'),
    secondaryCategory: text('App Store category id, or null'),
    review: Type.Optional(Review),
    contactEmail: text('Google Play contact e-mail'),
    contactPhone: text('Google Play contact phone'),
    contactWebsite: text('Google Play contact website (http(s) URL)'),
    defaultLanguage: text('Google Play default language (a language the app has a listing in)'),
  },
  { additionalProperties: false },
);

const Value = Nullable(
  Type.Union([Type.String(), Type.Boolean(), Type.Object({ set: Type.Boolean() })], {
    description: 'The demo account password shows only {"set": true|false}',
  }),
);

export const DetailsResponse = Ok(
  Type.Object({
    store: Type.String(),
    details: Type.Record(Type.String(), Type.Union([Value, Type.Record(Type.String(), Value)]), {
      description:
        'App Store: copyright, primaryCategory, secondaryCategory, review{…}; Google Play: contact and default language',
    }),
    states: Type.Record(Type.String(), StringEnum(['unchanged', 'modified', 'conflict']), {
      description: 'detail (review.<name>) → its state against the store',
    }),
    storeValues: Type.Optional(
      Type.Record(Type.String(), Value, { description: "The store's value of a detail in conflict" }),
    ),
    pending: Type.Integer(),
  }),
);

export const DetailsHistoryResponse = Ok(
  Type.Object({
    entries: Type.Array(
      Type.Object({
        id: Type.String(),
        field: Type.String(),
        old: Nullable(Type.String({ description: 'The demo account password only as "set"' })),
        new: Nullable(Type.String()),
        source: Type.String(),
        actor: HistoryActor,
        createdAt: Timestamp,
      }),
    ),
  }),
);
