/**
 * PostgreSQL under load: named statements, a lost connection survived (a read retried once, the
 * rest a 503), and identity changes announced to every instance on commit.
 */
import { Kysely, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { serviceUnavailable } from '../errors.js';
import { lazyModule } from '../shared/lazy-module.js';
import { InlineLimitPostgresDialect } from './dialects.js';
import { IDENTITY_WRITE, type IdentityAnnouncer } from './identity-version.js';
import type { Database } from './tables.js';
import type { PoolUse } from '../metrics/index.js';

/** The PostgreSQL client, loaded only when the database is PostgreSQL. */
const postgres = lazyModule<typeof pg>('pg');

/** Connections one instance opens at most. */
const POOL_MAX = 10;

export function createPostgres(
  url: string,
  announcer: IdentityAnnouncer | null,
  statementTimeoutMs: number,
): { kysely: Kysely<Database>; poolUse: () => PoolUse } {
  // count(*) and other int8 values arrive as strings by default; our counts fit in a double.
  const { types, Pool } = postgres();
  types.setTypeParser(types.builtins.INT8, (value) => Number(value));
  const pool = new Pool({
    connectionString: url,
    max: POOL_MAX,
    statement_timeout: statementTimeoutMs,
    connectionTimeoutMillis: 5_000,
  });
  // An idle client that loses its connection emits 'error' (the pool re-emits it here); the pool
  // discards that client by itself, and without a listener the event would kill the process.
  pool.on('error', () => undefined);
  const kysely = new Kysely<Database>({
    dialect: new InlineLimitPostgresDialect({ pool: resilientPool(pool, announcer) }),
  });
  return {
    kysely,
    poolUse: () => ({
      max: POOL_MAX,
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
  };
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
