/** Response serializers write nullable scalars with a null test, not by validating union branches. */
import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { createDeferredCompilation, deferredSerializers } from '../../src/http/deferred-compilation.js';
import { withNullableScalars } from '../../src/http/nullable-scalars.js';
import { Nullable } from '../../src/http/schemas.js';

const Project = Type.Object({
  id: Type.String(),
  appStoreAppId: Nullable(Type.String()),
  rank: Type.Optional(Nullable(Type.Integer())),
  lastSyncedAt: Nullable(Type.String({ format: 'date-time' })),
});
const Page = Type.Object({
  projects: Type.Array(Project),
  total: Nullable(Type.Number()),
  byLocale: Type.Record(Type.String(), Nullable(Type.String())),
});

describe('withNullableScalars', () => {
  it('writes every nullable scalar as nullable: true, nested in objects and arrays', () => {
    const rewritten = withNullableScalars(Page) as any;
    const project = rewritten.properties.projects.items.properties;
    expect(project.appStoreAppId).toEqual({ ...Type.String(), nullable: true });
    expect(project.rank).toEqual({ ...Type.Integer(), nullable: true });
    expect(project.lastSyncedAt).toEqual({ ...Type.String({ format: 'date-time' }), nullable: true });
    expect(rewritten.properties.total).toEqual({ ...Type.Number(), nullable: true });
    expect(Object.values(rewritten.properties.byLocale.patternProperties)).toEqual([
      { ...Type.String(), nullable: true },
    ]);
    expect(project.id).toBe(Page.properties.projects.items.properties.id);
  });

  it('leaves the schema it was given as it was: validation and the API document keep the unions', () => {
    const before = JSON.stringify(Page);
    withNullableScalars(Page);
    expect(JSON.stringify(Page)).toBe(before);
    expect(Page.properties.total.anyOf).toHaveLength(2);
  });

  it('keeps unions that are not a scalar or null', () => {
    const untouched = [
      Type.Object({ either: Type.Union([Type.String(), Type.Integer()]) }),
      Type.Object({ maybe: Nullable(Type.Object({ a: Type.String() })) }),
      Type.Object({ three: Type.Union([Type.String(), Type.Integer(), Type.Null()]) }),
      Type.Object({ described: Type.Union([Type.String(), Type.Null()], { description: 'kept' }) }),
    ];
    for (const schema of untouched) expect(withNullableScalars(schema)).toBe(schema);
  });
});

describe('the response serializers', () => {
  const serializerFor = (schema: object) =>
    deferredSerializers(createDeferredCompilation())({}, undefined)({
      schema,
      method: 'GET',
      url: '/projects',
      httpStatus: '200',
    });

  it('write nulls and values of nullable fields', () => {
    const serialize = serializerFor(Page);
    const page = {
      projects: [
        { id: 'p1', appStoreAppId: null, rank: null, lastSyncedAt: null },
        { id: 'p2', appStoreAppId: '123', rank: 2, lastSyncedAt: '2026-11-27T06:00:00.000Z' },
        { id: 'p3', appStoreAppId: 'a "quoted" id', lastSyncedAt: null },
      ],
      total: 3,
      byLocale: { 'en-US': 'Hello', 'de-DE': null },
    };
    expect(JSON.parse(serialize(page))).toEqual(page);
    const empty = { projects: [], total: null, byLocale: {} };
    expect(JSON.parse(serialize(empty))).toEqual(empty);
  });

  it('do not validate a nullable value against its union (which would throw for a bad format)', () => {
    // Union branches are chosen by validating the value; a nullable field is only tested for null.
    const serialize = serializerFor(Type.Object({ at: Nullable(Type.String({ format: 'date-time' })) }));
    expect(serialize({ at: 'yesterday' })).toBe('{"at":"yesterday"}');
  });
});
