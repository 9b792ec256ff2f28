import type { Compilable, CompiledQuery } from 'kysely';
import type { Executor } from './database.js';

/** Stands in for an argument while a prepared query is built; replaced by the value on each call. */
class Placeholder {
  constructor(readonly index: number) {}
}

interface Compiled<R> {
  query: CompiledQuery<R>;
  /** For each parameter of the SQL: the argument it takes (≥ 0), or -1 for a value built in. */
  slots: number[];
}

/**
 * A query that is built and compiled once per database, then run with new argument values.
 * Building a Kysely query costs more than running a small indexed one (the profile in
 * BENCHMARKS.md), so the queries every request runs — the key lookup, a project page — are
 * prepared. `build` receives placeholders for its arguments and must use each only as a value
 * (in a where clause, limit, offset, ...), never to decide the shape of the query; it declares
 * each argument plainly (no defaults, no rest), since their number is read from `build.length`.
 *
 * Compiled per executor: a transaction is a new executor, so inside one the query is compiled
 * for each call — correct, just not faster.
 */
export function preparedQuery<A extends unknown[], R>(
  build: (db: Executor, ...args: A) => Compilable<R>,
): (db: Executor, ...args: A) => Promise<R[]> {
  const cache = new WeakMap<Executor, Compiled<R>>();
  const arity = build.length - 1;

  function compile(db: Executor): Compiled<R> {
    const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
    const query = build(db, ...(placeholders as unknown as A)).compile();
    const slots = query.parameters.map((p) => (p instanceof Placeholder ? p.index : -1));
    // An argument missing from the parameters was used for something other than a value.
    const unused = placeholders.find((p) => !slots.includes(p.index));
    if (unused !== undefined) throw new Error(`prepared query: argument ${unused.index} is not a value`);
    return { query, slots };
  }

  return async (db, ...args) => {
    if (args.length !== arity) throw new Error(`prepared query: ${args.length} arguments for ${arity}`);
    let compiled = cache.get(db);
    if (compiled === undefined) {
      compiled = compile(db);
      cache.set(db, compiled);
    }
    const { query, slots } = compiled;
    const parameters = slots.map((slot, i) => (slot === -1 ? query.parameters[i] : args[slot]));
    const result = await db.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
}
