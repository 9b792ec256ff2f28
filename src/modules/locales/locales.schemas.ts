import { Type, type Static } from '@sinclair/typebox';
import { Nullable, Ok } from '../../http/schemas.js';

const Locale = Type.Object({ code: Type.String(), name: Type.String({ description: 'English name' }) });

export const LocaleList = Type.Object({
  stores: Type.Object({
    appstore: Type.Array(Locale, { description: "Apple's codes (case-sensitive)" }),
    playstore: Type.Array(Locale, { description: "Google Play's codes" }),
  }),
  common: Type.Array(Type.String(), { description: 'Codes both stores accept as written' }),
  project: Nullable(
    Type.Object(
      { appstore: Type.Array(Type.String()), playstore: Type.Array(Type.String()) },
      { description: 'The locales the project has, per store (with ?projectId=)' },
    ),
  ),
});

export const LocalesResponse = Ok(LocaleList);
export const LocalesQuery = Type.Object({ projectId: Type.Optional(Type.String({ maxLength: 100 })) });

export type LocaleList = Static<typeof LocaleList>;
