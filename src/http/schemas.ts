/** Schema pieces shared by every route: the envelope, errors, timestamps, pagination. */
import { Type, type TSchema } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });

export const ErrorResponse = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object({
      code: Type.String({ description: 'One of the codes of the error table (design.md §5)' }),
      message: Type.String(),
      details: Type.Optional(
        Type.Array(
          Type.Object({
            field: Type.String(),
            message: Type.String(),
            limit: Type.Optional(Type.Integer({ description: 'For a length rule: the limit broken' })),
            length: Type.Optional(
              Type.Integer({ description: "For a length rule: the value's length (Unicode code points)" }),
            ),
          }),
          { description: 'Present on validation failures: one entry per offending field, all of them' },
        ),
      ),
    }),
  },
  { $id: 'ErrorResponse', description: 'The error envelope' },
);

const ErrorRef = Type.Ref(ErrorResponse);

/** The success envelope around a route's data. */
export const Ok = <T extends TSchema>(data: T) => Type.Object({ success: Type.Literal(true), data });

/** A page of entries (a history, the audit log), newest first, with the page it is. */
export const EntriesPage = <T extends TSchema>(entry: T) =>
  Ok(
    Type.Object({
      entries: Type.Array(entry),
      total: Type.Integer(),
      limit: Type.Integer(),
      offset: Type.Integer(),
    }),
  );

/** Who made a change of a history: a member, the operator, or (for a sync) the store. */
export const HistoryActor = Type.Object({
  memberId: Nullable(Type.String()),
  operator: Nullable(Type.String({ description: 'The operator when no member acted, e.g. cli:alice' })),
  name: Nullable(
    Type.String({
      description:
        "The member's name (null once they left), the operator's label, or `App Store`/`Google Play` for a sync",
    }),
  ),
});

/** Error responses every authenticated route can give; routes add their own success codes. */
export const ERRORS = { '4xx': ErrorRef, '5xx': ErrorRef } as const;

export const MessageResponse = Type.Object({ success: Type.Literal(true), message: Type.String() });

const PAGE_DEFAULTS = { limit: 20, offset: 0 };

/** `limit` and `offset`, both optional (design.md §7: 20 and 0 when left out). */
export const PageQuery = (maxLimit = 100) =>
  Type.Object({
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxLimit,
        default: PAGE_DEFAULTS.limit,
        description: `1..${maxLimit}`,
      }),
    ),
    offset: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 1_000_000_000, default: PAGE_DEFAULTS.offset }),
    ),
  });

/** The page a query asks for, defaults filled in. */
export const pageOf = (query: { limit?: number; offset?: number }) => ({
  limit: query.limit ?? PAGE_DEFAULTS.limit,
  offset: query.offset ?? PAGE_DEFAULTS.offset,
});

/** An API key, or the dashboard's session cookie (design.md §10). */
export const BEARER: { [scheme: string]: string[] }[] = [{ bearerAuth: [] }, { sessionCookie: [] }];
/** Routes that need no API key say so explicitly. */
export const PUBLIC: [] = [];

/** A string enum as one JSON-schema `enum` (clearer errors and docs than a union of literals). */
export const StringEnum = <const T extends readonly string[]>(
  values: T,
  options: { default?: T[number]; description?: string } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
