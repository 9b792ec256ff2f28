import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely } from 'kysely';
import { InlineLimitSqliteDialect } from './dialects.js';
import type { DatabaseConfig } from '../config.js';
import { createIdentityAnnouncer, IDENTITY_WRITE } from './identity-version.js';
import type { Database } from './tables.js';
import { createPostgres } from './postgres.js';
import type { PoolUse } from '../metrics/index.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  readonly kysely: Kysely<Database>;
  readonly dialect: Dialect;
  /**
   * A number that changes whenever an api_keys, members or organizations row may have changed
   * (a key revoked, a role changed, a member removed, a plan changed), by this process or by
   * another one, so that what was read of them may be kept until then. Null on PostgreSQL
   * without Redis, where those rows are read afresh on every request.
   */
  readonly identityVersion: IdentityVersion | null;
  /** The connection pool's use (PostgreSQL); null on SQLite, one connection in process. */
  poolUse(): PoolUse | null;
  /**
   * SQLite: copies the database into `file` by SQLite's online backup, a consistent snapshot taken
   * while others read and write; null on PostgreSQL (see db/snapshot.ts).
   */
  backupTo: ((file: string) => Promise<void>) | null;
  /** Answers whether the database answers a trivial query (readiness). */
  ping(): Promise<boolean>;
  /**
   * Throws DatabaseOpenError, saying which database and why (refused, authentication, unknown
   * database, ...), unless the database answers: for start-up, before migrations run.
   */
  check(): Promise<void>;
  destroy(): Promise<void>;
}

/** Db.identityVersion. */
export interface IdentityVersion {
  /** The version now (SQLite), or the last one the rate-limit store reported (PostgreSQL); null keeps nothing. */
  current(): number | null;
  /**
   * PostgreSQL only: takes the version a request's rate-limit count read back from Redis (null
   * when it could not). A key found in the cache under another version must be read again before
   * the request goes on: this is how a change made on another instance is seen at once.
   */
  report: ((version: number | null) => void) | null;
}

/** The database named by DATABASE_URL cannot be opened; the message says which and why. */
export class DatabaseOpenError extends Error {
  constructor(message: string, options?: { cause: unknown }) {
    super(message, options);
    this.name = 'DatabaseOpenError';
  }
}

/** The database as a person may see it: a PostgreSQL URL without its password, or the file. */
export function describeDatabase(config: DatabaseConfig): string {
  if (config.kind === 'sqlite')
    return config.path === ':memory:' ? 'an in-memory SQLite database' : config.path;
  const url = new URL(config.url);
  if (url.password !== '') url.password = '***';
  return url.toString();
}

/** Why PostgreSQL could not be reached, in a person's words. */
function whyUnreachable(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const code = (cause as { code?: string }).code;
  const message = cause instanceof Error ? cause.message : String(cause);
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused (is PostgreSQL running at that host and port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name was not found';
    case '28P01':
    case '28000':
      return `authentication failed (${message})`;
    case '3D000':
      return `${message} (create it, or name another database in the URL)`;
    default:
      return /timeout/i.test(message) ? 'it did not answer in time' : message;
  }
}

/** Longest a single statement may run before PostgreSQL cancels it: part of the request timeout. */
const STATEMENT_TIMEOUT_MS = 15_000;

export function createDb(config: DatabaseConfig): Db {
  const announcer = createIdentityAnnouncer(config);
  const { kysely, identityVersion, poolUse, backupTo } =
    config.kind === 'sqlite'
      ? { ...createSqlite(config.path), poolUse: () => null }
      : {
          ...createPostgres(config.url, announcer, STATEMENT_TIMEOUT_MS),
          identityVersion: announcer === null ? null : reportedIdentityVersion(),
          backupTo: null,
        };
  const select1 = () => kysely.selectNoFrom((eb) => eb.val(1).as('one')).execute();
  return {
    kysely,
    dialect: config.kind,
    identityVersion,
    poolUse,
    backupTo,
    async ping() {
      try {
        await select1();
        return true;
      } catch {
        return false;
      }
    },
    async check() {
      try {
        await select1();
      } catch (error) {
        throw new DatabaseOpenError(
          `Cannot open the database ${describeDatabase(config)} (DATABASE_URL): ${whyUnreachable(error)}`,
          { cause: error },
        );
      }
    },
    async destroy() {
      await kysely.destroy();
      announcer?.close();
    },
  };
}

/** Db.identityVersion on PostgreSQL with Redis: the last version a rate-limit count reported. */
function reportedIdentityVersion(): IdentityVersion {
  let reported: number | null = null;
  return {
    current: () => reported,
    report: (version) => void (reported = version),
  };
}

/**
 * Creates the missing folders of `dir` one level at a time. (Node 20's recursive mkdirSync never
 * returns for a path under /proc, spinning at full CPU; one level at a time fails at once.)
 */
function ensureFolder(dir: string): void {
  const missing: string[] = [];
  let current = path.resolve(dir);
  while (!fs.existsSync(current)) {
    missing.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  if (fs.existsSync(current) && !fs.statSync(current).isDirectory())
    throw new Error(`${current} is not a folder`);
  for (const folder of missing) fs.mkdirSync(folder);
}

function createSqlite(file: string): {
  kysely: Kysely<Database>;
  identityVersion: IdentityVersion;
  backupTo: (file: string) => Promise<void>;
} {
  let database: SqliteDatabase.Database;
  try {
    if (file !== ':memory:') ensureFolder(path.dirname(file));
    database = new SqliteDatabase(file);
  } catch (error) {
    throw new DatabaseOpenError(
      `Cannot open the SQLite database ${file} (DATABASE_URL): ${(error as Error).message}`,
      { cause: error },
    );
  }
  database.pragma('journal_mode = WAL');
  database.pragma('foreign_keys = ON');
  database.pragma('busy_timeout = 5000');
  database.pragma('synchronous = NORMAL');
  const changes = watchIdentityChanges(database);
  const kysely = new Kysely<Database>({
    dialect: new InlineLimitSqliteDialect({ database: withStatementCache(database, changes.written) }),
  });
  return {
    kysely,
    identityVersion: { current: changes.version, report: null },
    backupTo: async (destination) => void (await database.backup(destination)),
  };
}

/**
 * Db.identityVersion on SQLite. This connection's own writes are seen as they run (Kysely's
 * driver runs one query at a time and a transaction holds the connection, so no read can fall
 * between such a write and its commit); other connections' commits — a second instance, the
 * CLI — through `PRAGMA data_version`, which changes exactly when one has committed (checked on
 * every call: about a microsecond). Any write to the tables counts, the once-a-minute
 * "last used" touch included: a spare re-read is cheap, a missed change is not.
 */
function watchIdentityChanges(database: SqliteDatabase.Database) {
  const dataVersion = database.prepare('PRAGMA data_version').pluck();
  let seen = dataVersion.get() as number;
  let version = 0;
  return {
    written: () => void version++,
    version: (): number => {
      const current = dataVersion.get() as number;
      if (current !== seen) {
        seen = current;
        version++;
      }
      return version;
    },
  };
}

/** Most statements the SQLite statement cache keeps; our queries have a few dozen shapes. */
const STATEMENT_CACHE_SIZE = 500;

/** What Kysely's SQLite driver uses of a statement. */
interface DriverStatement {
  readonly reader: boolean;
  all(parameters: readonly unknown[]): unknown[];
  run(parameters: readonly unknown[]): SqliteDatabase.RunResult;
  iterate(parameters: readonly unknown[]): IterableIterator<unknown>;
}

/**
 * Kysely prepares every query anew, and preparing costs SQLite more than running our small
 * queries (the profile behind BENCHMARKS.md). Statements are reused per SQL text instead; Kysely's
 * SQLite driver runs one query at a time, so a statement is never used by two queries at once.
 */
function withStatementCache(database: SqliteDatabase.Database, identityWritten: () => void) {
  const cache = new Map<string, DriverStatement>();
  return {
    close: () => database.close(),
    prepare(query: string): DriverStatement {
      let statement = cache.get(query);
      if (statement === undefined) {
        statement = withRowsAsObjects(database.prepare(query));
        if (IDENTITY_WRITE.test(query)) statement = reportingRuns(statement, identityWritten);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
        cache.set(query, statement);
      }
      return statement;
    },
  };
}

/** A statement that calls `ran` after each run, whether or not it succeeded. */
function reportingRuns(statement: DriverStatement, ran: () => void): DriverStatement {
  const report = <T>(work: () => T): T => {
    try {
      return work();
    } finally {
      ran();
    }
  };
  return {
    reader: statement.reader,
    all: (parameters) => report(() => statement.all(parameters)),
    run: (parameters) => report(() => statement.run(parameters)),
    iterate: (parameters) => report(() => statement.iterate(parameters)),
  };
}

/**
 * A statement whose rows are read as arrays and made into objects here. better-sqlite3 builds
 * each row object natively, property by property, which costs more than the query: a page of 20
 * projects took 53 µs as objects and 36 µs as arrays made into objects (BENCHMARKS.md, #22).
 * Duplicate column names keep the last value, as better-sqlite3's own objects do.
 */
function withRowsAsObjects(statement: SqliteDatabase.Statement): DriverStatement {
  if (!statement.reader) return statement;
  const toObject = rowMaker(statement.columns().map((column) => column.name));
  const raw = statement.raw(true);
  return {
    reader: true,
    all: (parameters) => (raw.all(parameters) as unknown[][]).map(toObject),
    run: (parameters) => raw.run(parameters),
    *iterate(parameters) {
      for (const values of raw.iterate(parameters) as IterableIterator<unknown[]>) yield toObject(values);
    },
  };
}

/**
 * A function making a row object of a statement's values. It is written as one object literal
 * for the statement's columns, so that every row has the same shape from the start; setting
 * properties by name one at a time cost a tenth of a project page (#22). The names are quoted
 * by JSON.stringify and the values passed by position, so no column name can become code; a
 * computed key keeps a column named __proto__ an own property, as in better-sqlite3's rows.
 */
function rowMaker(names: readonly string[]): (values: unknown[]) => Record<string, unknown> {
  const fields = names.map((name, i) => {
    const key = JSON.stringify(name);
    return `${name === '__proto__' ? `[${key}]` : key}: values[${i}]`;
  });
  // Generated code, as Ajv and fast-json-stringify generate theirs: only quoted names go into it.
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return new Function('values', `return { ${fields.join(', ')} };`) as (
    values: unknown[],
  ) => Record<string, unknown>;
}

/** What repositories take: the database or a transaction of it (a Transaction is a Kysely). */
export type Executor = Kysely<Database>;
