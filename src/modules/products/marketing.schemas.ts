/** Schemas of App Store custom product pages and in-app events (design.md §18). */
import { Type } from '@sinclair/typebox';
import { Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { KindRules } from './products.schemas.js';

const State = StringEnum(['unchanged', 'modified', 'conflict']);
const Texts = Type.Record(Type.String(), Type.Record(Type.String(), Nullable(Type.String())), {
  description: 'locale → field → working copy',
});
const Editability = {
  editable: Type.Boolean({ description: 'Whether App Store Connect takes changes to its texts now' }),
  reason: Nullable(Type.String({ description: 'Why not, in the store state it is in' })),
};
const Pending = {
  locales: Texts,
  states: Type.Record(Type.String(), State, {
    description: 'locale → whether its texts are as the store has them, changed here, or in conflict',
  }),
  pending: Type.Integer({ description: 'Texts that differ from the store (or are in conflict)' }),
  readAt: Timestamp,
};

const Page = Type.Object({
  pageId: Type.String({ description: "The store's id of the page" }),
  name: Type.String({ description: 'Its reference name' }),
  visible: Type.Boolean(),
  url: Nullable(Type.String({ description: 'The URL to use in ads (read-only)' })),
  version: Type.Object({
    version: Nullable(Type.String()),
    state: Nullable(Type.String({ description: "The newest version's state" })),
    ...Editability,
    deepLink: Nullable(Type.String()),
  }),
  ...Pending,
  preview: Nullable(
    Type.Object(
      {
        locale: Type.String(),
        slotType: Type.String(),
        thumbnails: Type.Array(Type.String(), { description: 'URLs of its first screenshots' }),
      },
      { description: "The page's first screenshots, for a list" },
    ),
  ),
});

const Event = Type.Object({
  eventId: Type.String({ description: "The store's id of the event" }),
  referenceName: Type.String(),
  badge: Nullable(Type.String()),
  purpose: Nullable(Type.String()),
  priority: Nullable(Type.String()),
  primaryLocale: Nullable(Type.String()),
  schedules: Type.Array(
    Type.Object({
      territories: Type.Array(Type.String()),
      publishStart: Nullable(Type.String()),
      eventStart: Nullable(Type.String()),
      eventEnd: Nullable(Type.String()),
    }),
  ),
  state: Nullable(Type.String({ description: "The event's state in App Store Connect" })),
  ...Editability,
  ...Pending,
});

export const PagesResponse = Ok(Type.Object({ pages: Type.Array(Page), limits: Type.Optional(KindRules) }));
export const EventsResponse = Ok(
  Type.Object({ events: Type.Array(Event), limits: Type.Optional(KindRules) }),
);

const Field = Type.Object({
  value: Nullable(Type.String()),
  base: Nullable(Type.String()),
  state: State,
  storeValue: Type.Optional(Nullable(Type.String())),
  limit: Type.Integer(),
});

const LocaleView = (idName: 'pageId' | 'eventId') =>
  Ok(
    Type.Object({
      [idName]: Type.String(),
      locale: Type.String(),
      state: Nullable(Type.String()),
      ...Editability,
      fields: Type.Record(Type.String(), Field),
    }),
  );
export const PageLocaleResponse = LocaleView('pageId');
export const EventLocaleResponse = LocaleView('eventId');

const projectId = Type.String({ maxLength: 100 });
const locale = Type.String({ maxLength: 20, description: "App Store Connect's locale code" });
export const PageParams = Type.Object({ projectId, pageId: Type.String({ maxLength: 100 }) });
export const PageLocaleParams = Type.Object({ projectId, pageId: Type.String({ maxLength: 100 }), locale });
export const EventLocaleParams = Type.Object({
  projectId,
  eventId: Type.String({ maxLength: 100 }),
  locale,
});

const text = (max: number, what: string) =>
  Type.Optional(Nullable(Type.String({ maxLength: max * 4, description: `${what} (≤ ${max} characters)` })));

export const PagePatchBody = Type.Object(
  { promotionalText: text(170, "The page's promotional text") },
  { additionalProperties: false },
);
export const EventPatchBody = Type.Object(
  {
    name: text(30, 'Event name'),
    shortDescription: text(50, 'Short description'),
    longDescription: text(120, 'Long description'),
  },
  { additionalProperties: false },
);

export const CopyDefaultBody = Type.Object(
  {
    locales: Type.Optional(
      Type.Array(Type.String({ maxLength: 20 }), {
        maxItems: 50,
        description: 'App Store locales; default: every App Store listing of the project',
      }),
    ),
    parts: Type.Optional(
      Type.Array(StringEnum(['texts', 'media']), {
        minItems: 1,
        uniqueItems: true,
        description: 'What to copy: the promotional text, the screenshots and previews, or both (default)',
      }),
    ),
  },
  { additionalProperties: false },
);
export const CopyDefaultResponse = Ok(
  Type.Object({
    pageId: Type.String(),
    locales: Type.Array(Type.String()),
    copied: Type.Object({
      texts: Type.Array(Type.String(), { description: 'Locales whose promotional text was copied' }),
      mediaSlots: Type.Integer(),
      mediaItems: Type.Integer(),
    }),
  }),
);
