/** Schemas of versions, tracks and release notes (design.md §13). */
import { Type } from '@sinclair/typebox';
import { HistoryActor, Nullable, Ok, StringEnum, Timestamp } from '../../http/schemas.js';
import { STORES } from '../../shared/stores.js';

const Version = Type.Object({
  id: Type.String(),
  platform: Type.String(),
  versionString: Type.String(),
  state: Type.String({ description: "App Store Connect's appVersionState" }),
  editable: Type.Boolean({ description: 'Its texts (and What’s New) may be written' }),
  firstVersion: Type.Boolean({ description: "The app's first version: it has no What's New" }),
  createdDate: Nullable(Type.String()),
});
const Release = Type.Object({
  name: Nullable(Type.String()),
  versionCodes: Type.Array(Type.String()),
  status: Type.String({ description: 'draft, inProgress, halted or completed' }),
  userFraction: Nullable(Type.Number()),
  releaseNotes: Type.Record(Type.String(), Type.String(), {
    description: 'language → text, as the store has them',
  }),
});
const Track = Type.Object({ track: Type.String(), releases: Type.Array(Release) });

export const ReleasesResponse = Ok(
  Type.Object({
    appStore: Type.Union([Type.Object({ readAt: Timestamp, versions: Type.Array(Version) }), Type.Null()], {
      description: 'App Store versions (iOS), newest first, as the last sync read them; null before',
    }),
    playStore: Type.Union([Type.Object({ readAt: Timestamp, tracks: Type.Array(Track) }), Type.Null()], {
      description: 'Google Play tracks with their releases, as the last sync read them; null before',
    }),
  }),
);

export const CreateVersionBody = Type.Object(
  { versionString: Type.String({ minLength: 1, maxLength: 32, description: 'e.g. 2.4.0' }) },
  { additionalProperties: false },
);
export const CreateVersionResponse = Ok(
  Type.Object({ version: Type.Omit(Version, ['firstVersion']), versions: Type.Array(Version) }),
);

const Note = Type.Object({
  locale: Type.String(),
  value: Nullable(Type.String({ description: 'The working copy' })),
  base: Nullable(Type.String({ description: 'What the store had at the last sync or push' })),
  state: StringEnum(['unchanged', 'modified', 'conflict']),
  storeValue: Type.Optional(Nullable(Type.String({ description: "In conflict: the store's text" }))),
});

export const NotesQuery = Type.Object({
  store: StringEnum(STORES),
  version: Type.Optional(
    Type.String({
      maxLength: 32,
      description: 'App Store: a version string (default: the one being prepared)',
    }),
  ),
  track: Type.Optional(Type.String({ maxLength: 100, description: 'Google Play: one track' })),
  versionCode: Type.Optional(
    Type.String({ maxLength: 20, description: 'Google Play: the release holding it' }),
  ),
});
export const NotesResponse = Ok(
  Type.Union([
    Type.Object({
      store: Type.Literal('appstore'),
      version: Nullable(Version),
      notes: Type.Array(Note, { description: "What's New per locale (the listing field whatsNew)" }),
    }),
    Type.Object({
      store: Type.Literal('playstore'),
      releases: Type.Array(
        Type.Object({
          track: Type.String(),
          versionCode: Type.String({ description: "The release's key: its first version code" }),
          versionCodes: Type.Array(Type.String()),
          name: Nullable(Type.String()),
          status: Type.String(),
          notes: Type.Array(Note),
        }),
      ),
    }),
  ]),
);

export const NoteBody = Type.Object(
  {
    text: Nullable(Type.String({ maxLength: 4000, description: 'The notes; null removes them' })),
  },
  { additionalProperties: false },
);
export const AppStoreNoteParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  versionString: Type.String({ maxLength: 32 }),
  locale: Type.String({ maxLength: 20 }),
});
export const PlayNoteParams = Type.Object({
  projectId: Type.String({ maxLength: 64 }),
  track: Type.String({ maxLength: 100 }),
  versionCode: Type.String({ maxLength: 20, pattern: '^[0-9]+$' }),
  locale: Type.String({ maxLength: 20 }),
});
export const PlayNoteResponse = Ok(
  Type.Object({
    track: Type.String(),
    versionCode: Type.String(),
    ...Note.properties,
  }),
);

export const NoteHistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});
export const NoteHistoryResponse = Ok(
  Type.Object({
    entries: Type.Array(
      Type.Object({
        id: Type.String(),
        old: Nullable(Type.String()),
        new: Nullable(Type.String()),
        source: Type.String({ description: 'edit, revert, copy, import or sync' }),
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
      {
        store: StringEnum(STORES),
        track: Type.Optional(Type.String({ maxLength: 100 })),
        versionCode: Type.Optional(Type.String({ maxLength: 20 })),
      },
      { additionalProperties: false, description: "appstore: What's New of the version being prepared" },
    ),
    to: Type.Object(
      { track: Type.String({ maxLength: 100 }), versionCode: Type.String({ maxLength: 20 }) },
      { additionalProperties: false, description: 'The Google Play release (any of its version codes)' },
    ),
    locales: Type.Optional(
      Type.Array(Type.String({ maxLength: 20 }), {
        maxItems: 200,
        description: 'Play languages; all when omitted',
      }),
    ),
  },
  { additionalProperties: false },
);
export const PlayNotesResponse = Ok(
  Type.Object({
    copied: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
    notes: Type.Array(Type.Object({ track: Type.String(), versionCode: Type.String(), ...Note.properties })),
  }),
);
