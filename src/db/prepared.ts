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
 * BENCHMARKS.md), so the queries every request runs — the key lookup, a project page, a listing
 * edit's statements — are prepared. `build` receives placeholders for its arguments and must use
 * each only as a value (in a where clause, limit, offset, ...), never to decide the shape of the
 * query; it declares each argument plainly (no defaults, no rest), since their number is read
 * from `build.length`.
 *
 * Compiled once per database: the compiled query is kept by the database's adapter, which its
 * transactions share (a transaction is a new executor over the same dialect). An executor with
 * plugins, which may rewrite the query, keeps its own.
 */
export function preparedQuery<A extends unknown[], R>(
  build: (db: Executor, ...args: A) => Compilable<R>,
): (db: Executor, ...args: A) => Promise<R[]> {
  const arity = build.length - 1;
  const run = compiledOnce(arity, (db, placeholders) => build(db, ...(placeholders as unknown as A)));
  return async (db, ...args) => {
    if (args.length !== arity) throw new Error(`prepared query: ${args.length} arguments for ${arity}`);
    return run(db, args);
  };
}

/**
 * preparedQuery for a query that takes one row, such as an insert or an upsert: `build` receives
 * a row whose `columns` are placeholders, each call a row with exactly those columns.
 */
export function preparedRowQuery<Row extends object, R>(
  columns: readonly (keyof Row & string)[],
  build: (db: Executor, row: Row) => Compilable<R>,
): (db: Executor, row: Row) => Promise<R[]> {
  const run = compiledOnce(columns.length, (db, placeholders) =>
    build(db, Object.fromEntries(columns.map((column, i) => [column, placeholders[i]])) as Row),
  );
  return async (db, row) => {
    // A column left out of `columns` would be missing from the query, not written.
    const extra = Object.keys(row).find((key) => !columns.includes(key as keyof Row & string));
    if (extra !== undefined) throw new Error(`prepared query: column ${extra} is not one of its columns`);
    return run(
      db,
      columns.map((column) => row[column]),
    );
  };
}

/** Builds and compiles a query of `arity` placeholders once per database; runs it with values. */
function compiledOnce<R>(
  arity: number,
  build: (db: Executor, placeholders: Placeholder[]) => Compilable<R>,
): (db: Executor, args: readonly unknown[]) => Promise<R[]> {
  const cache = new WeakMap<object, Compiled<R>>();

  function compile(db: Executor): Compiled<R> {
    const placeholders = Array.from({ length: arity }, (_, i) => new Placeholder(i));
    const query = build(db, placeholders).compile();
    const slots = query.parameters.map((p) => (p instanceof Placeholder ? p.index : -1));
    // An argument missing from the parameters was used for something other than a value.
    const unused = placeholders.find((p) => !slots.includes(p.index));
    if (unused !== undefined) throw new Error(`prepared query: argument ${unused.index} is not a value`);
    return { query, slots };
  }

  return async (db, args) => {
    const executor = db.getExecutor();
    const key = executor.plugins.length === 0 ? executor.adapter : db;
    let compiled = cache.get(key);
    if (compiled === undefined) {
      compiled = compile(db);
      cache.set(key, compiled);
    }
    const { query, slots } = compiled;
    const parameters = slots.map((slot, i) => (slot === -1 ? query.parameters[i] : args[slot]));
    const result = await db.executeQuery<R>({ ...query, parameters });
    return result.rows;
  };
}
