/**
 * What the last lookups of API keys found, by key hash, so that a request with a known key does
 * not read its key, member and organization again (BENCHMARKS.md, #22). An entry lives while the
 * identity version it was read under holds (Db.identityVersion: any change to keys, members or
 * organizations, here or by another process, empties the cache) and at most TTL_MS besides.
 * Without a version (PostgreSQL without Redis) nothing is kept. Unknown keys are never kept:
 * guessing goes to the database, throttled per client IP.
 */

/**
 * A safety net only: the version already ends every entry a change could affect (on PostgreSQL,
 * unless the change could not be announced to Redis: db/identity-version.ts).
 */
const TTL_MS = 60_000;
/** Enough for every active key of a large installation; past it the cache starts over. */
const MAX_ENTRIES = 10_000;

export interface KeyCache<Row> {
  /** The row kept for `hash`, and the version it holds under. */
  get(hash: string): { row: Row; version: number } | undefined;
  /** The version to hand to set() for a row about to be read; null when nothing is kept. */
  ticket(): number | null;
  /** Keeps `row` unless the version moved since `ticket` (it may have been read before a change). */
  set(hash: string, row: Row, ticket: number | null): void;
}

/** `version`: Db.identityVersion's current version; null while nothing may be kept. */
export function createKeyCache<Row>(version: () => number | null, now: () => number): KeyCache<Row> {
  const entries = new Map<string, { row: Row; until: number }>();
  let seen: number | null = null;
  /** The current version, the cache emptied when it moved. */
  const current = (): number | null => {
    const v = version();
    if (v !== seen) {
      entries.clear();
      seen = v;
    }
    return v;
  };
  return {
    get(hash) {
      const v = current();
      if (v === null) return undefined;
      const entry = entries.get(hash);
      if (entry === undefined) return undefined;
      if (entry.until > now()) return { row: entry.row, version: v };
      entries.delete(hash);
      return undefined;
    },
    ticket: current,
    set(hash, row, ticket) {
      if (ticket === null || current() !== ticket) return;
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(hash, { row, until: now() + TTL_MS });
    },
  };
}
