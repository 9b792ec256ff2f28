/**
 * Route schemas are compiled on first use instead of at start-up (issue #22): a process keeps
 * compiled validators and serializers only for the routes it serves — a few of some 150 — and
 * starts sooner. The first request of a route pays its compilation once (about a millisecond).
 * `compileAll` compiles what is left, so that the suite still fails on a schema that cannot
 * compile, rather than a client meeting it as a 500.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { withNullableScalars } from './nullable-scalars.js';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

export interface DeferredCompilation {
  /** A function answering compile()'s result, compiled on the first call. */
  defer<T>(this: void, compile: () => T): () => T;
  /** Compiles everything still deferred; answers how many there were. */
  compileAll(this: void): number;
}

export function createDeferredCompilation(): DeferredCompilation {
  const pending = new Set<() => unknown>();
  return {
    defer<T>(compile: () => T) {
      let compiled: { value: T } | undefined;
      const get = () => {
        if (compiled === undefined) {
          compiled = { value: compile() };
          pending.delete(get);
        }
        return compiled.value;
      };
      pending.add(get);
      return get;
    },
    compileAll() {
      const count = pending.size;
      for (const get of [...pending]) get();
      return count;
    },
  };
}

/**
 * Fastify's own response serializers (fast-json-stringify), each built on its first response, with
 * nullable scalars as the serializer writes them fastest (nullable-scalars.ts).
 */
export function deferredSerializers(deferred: DeferredCompilation): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      const serializer = deferred.defer(() =>
        compile({ ...route, schema: withNullableScalars(route.schema) }),
      );
      return (data) => serializer()(data);
    };
  };
}
