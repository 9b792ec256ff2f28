import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { InlineLimitPostgresDialect, InlineLimitSqliteDialect } from './dialects.js';
import type pg from 'pg';
import type { DatabaseConfig } from '../config.js';
import { serviceUnavailable } from '../errors.js';
import { lazyModule } from '../shared/lazy-module.js';
import { createIdentityAnnouncer, type IdentityAnnouncer } from './identity-version.js';
import type { Database } from './tables.js';

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
  const { kysely, identityVersion } =
    config.kind === 'sqlite'
      ? createSqlite(config.path)
      : {
          kysely: createPostgres(config.url, announcer),
          identityVersion: announcer === null ? null : reportedIdentityVersion(),
        };
  const select1 = () => kysely.selectNoFrom((eb) => eb.val(1).as('one')).execute();
  return {
    kysely,
    dialect: config.kind,
    identityVersion,
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

function createSqlite(file: string): { kysely: Kysely<Database>; identityVersion: IdentityVersion } {
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
  return { kysely, identityVersion: { current: changes.version, report: null } };
}

/** Statements that may change who a key signs in, or what they may do (Db.identityVersion). */
const IDENTITY_WRITE = /^\s*(update|delete\s+from)\s+"?(api_keys|members|organizations)"?\s/i;

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

/** The PostgreSQL client, loaded only when the database is PostgreSQL. */
const postgres = lazyModule<typeof pg>('pg');

function createPostgres(url: string, announcer: IdentityAnnouncer | null): Kysely<Database> {
  // count(*) and other int8 values arrive as strings by default; our counts fit in a double.
  const { types, Pool } = postgres();
  types.setTypeParser(types.builtins.INT8, (value) => Number(value));
  const pool = new Pool({
    connectionString: url,
    max: 10,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client that loses its connection emits 'error' (the pool re-emits it here); the pool
  // discards that client by itself, and without a listener the event would kill the process.
  pool.on('error', () => undefined);
  return new Kysely<Database>({
    dialect: new InlineLimitPostgresDialect({ pool: resilientPool(pool, announcer) }),
  });
}

/** Most SQL texts given a name; later ones run unnamed (parsed and planned each time). */
const NAMED_STATEMENTS_MAX = 500;

/**
 * The pool as Kysely sees it, adding what a service under load needs from PostgreSQL:
 *
 * - Named statements. Kysely sends every query unnamed, so PostgreSQL parses and plans it anew
 *   each time — for our small indexed queries that costs more than running them (BENCHMARKS.md).
 *   Queries with parameters are sent as named statements instead, one name per SQL text, which
 *   each connection prepares once and then only binds and executes. Statements without parameters
 *   (transaction control, migrations' DDL) stay unnamed.
 * - Surviving a lost connection. When PostgreSQL ends a backend (a restart, a failover,
 *   pg_terminate_backend, a proxy's idle timeout) the client emits 'error' even while Kysely holds
 *   it; every client therefore gets a listener, a broken client is discarded on release, and the
 *   failure becomes a 503 SERVICE_UNAVAILABLE. A read outside a transaction is run once more on a
 *   fresh connection first, since repeating it cannot change anything.
 */
function resilientPool(pool: pg.Pool, announcer: IdentityAnnouncer | null): PostgresPool {
  const names = new Map<string, string>();
  let nextName = 0;
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (name === undefined && names.size < NAMED_STATEMENTS_MAX) {
      name = `appmeta_${nextName++}`;
      names.set(text, name);
    }
    return name;
  };

  const broken = new WeakMap<pg.PoolClient, Error>();
  // Each client is watched from the moment it connects, before the pool hands it out: a backend
  // ended just after it connected sends its error in the same read as its last connection message,
  // before the code awaiting pool.connect() could add a listener — and an 'error' nobody listens
  // to ends the process.
  pool.on('connect', (client) => client.on('error', (error: Error) => broken.set(client, error)));
  // Whatever keeps a new connection from opening (the server starting up or shutting down, too
  // many connections, a database not accepting any, a network fault) is the service's state, not
  // the request's fault: 503 with Retry-After, the cause in the log.
  const acquire = async (): Promise<pg.PoolClient> => {
    try {
      return await pool.connect();
    } catch (error) {
      throw unavailable(error);
    }
  };
  // Released with its error, a broken client is destroyed by the pool instead of reused.
  const release = (client: pg.PoolClient) => client.release(broken.get(client));

  async function run(client: pg.PoolClient, text: string, values: readonly unknown[]) {
    const name = values.length > 0 ? nameOf(text) : undefined;
    try {
      return await client.query({ ...(name !== undefined && { name }), text, values: [...values] });
    } catch (error) {
      // Another instance changed a table this statement reads (a migration): the prepared
      // statement can no longer run. The text gets a new name, which every connection then
      // prepares afresh, and this call runs unnamed.
      if (name === undefined || !isStalePlan(error)) throw error;
      if (names.get(text) === name) names.delete(text);
      return client.query({ text, values: [...values] });
    }
  }

  // Kysely keys its connection state by client object, so each pg client keeps one wrapper.
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapper = wrapped.get(client);
    if (wrapper !== undefined) return wrapper;
    let inTransaction = false;
    /** Whether the open transaction changed an identity table: announced once it commits. */
    let identityChanged = false;
    const query = async (text: string, values: readonly unknown[]) => {
      const result = await retried(text, values);
      if (announcer === null) return result;
      if (IDENTITY_WRITE.test(text)) {
        if (inTransaction) identityChanged = true;
        else await announcer.announce();
      } else if (TRANSACTION_END.test(text)) {
        if (identityChanged && COMMIT.test(text)) await announcer.announce();
        identityChanged = false;
      }
      return result;
    };
    const retried = async (text: string, values: readonly unknown[]) => {
      if (TRANSACTION_START.test(text)) inTransaction = true;
      else if (TRANSACTION_END.test(text)) inTransaction = false;
      try {
        return await run(client, text, values);
      } catch (error) {
        if (!isConnectionLoss(error)) throw error;
        if (inTransaction || !READ.test(text)) throw unavailable(error);
        const fresh = await acquire();
        try {
          return await run(fresh, text, values);
        } catch (retryError) {
          throw isConnectionLoss(retryError) ? unavailable(retryError) : retryError;
        } finally {
          release(fresh);
        }
      }
    };
    // No cursor is configured, so Kysely only calls query(sql, parameters).
    wrapper = {
      query,
      release: () => {
        inTransaction = false;
        identityChanged = false;
        release(client);
      },
    } as unknown as PostgresPoolClient;
    wrapped.set(client, wrapper);
    return wrapper;
  };
  return {
    connect: async () => wrap(await acquire()),
    end: () => pool.end(),
  };
}

const TRANSACTION_START = /^\s*(begin|start transaction)\b/i;
const TRANSACTION_END = /^\s*(commit|rollback)\b/i;
const COMMIT = /^\s*commit\b/i;
const READ = /^\s*select\b/i;

/** PostgreSQL's refusal to run a prepared statement whose result columns have changed. */
const isStalePlan = (error: unknown) =>
  error instanceof Error &&
  (error as { code?: string }).code === '0A000' &&
  error.message.includes('cached plan must not change result type');

const LOST_CONNECTION_CODES = new Set([
  // PostgreSQL: admin_shutdown (pg_terminate_backend, fast shutdown), crash_shutdown, cannot_connect_now
  '57P01',
  '57P02',
  '57P03',
  // too_many_connections
  '53300',
  // the socket
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Whether an error means the server or the connection to it is gone, as opposed to a bad query. */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // Class 08: connection_exception and its subclasses.
  if (typeof code === 'string' && (code.startsWith('08') || LOST_CONNECTION_CODES.has(code))) return true;
  return /Connection terminated|not queryable|timeout exceeded when trying to connect/i.test(error.message);
}

const unavailable = (cause: unknown) =>
  serviceUnavailable('The database cannot be reached right now; retry shortly', cause);

/** What repositories take: the database or a transaction of it (a Transaction is a Kysely). */
export type Executor = Kysely<Database>;
