/**
 * A PostgreSQL database as rows and back (appmeta backup/restore, design.md §21). Export reads
 * every table of the schema in one REPEATABLE READ, READ ONLY transaction — one snapshot, while
 * the service goes on writing — as JSON lines made by PostgreSQL itself (`row_to_json`), through a
 * cursor so that no table is held in memory; loading gives the lines back to PostgreSQL
 * (`json_populate_recordset`), which converts every value to its column's type, parents before
 * children. Migration bookkeeping is not exported: a restore migrates to the backup's migration.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './tables.js';

/** Rows fetched from a cursor, and inserted by one statement. */
const BATCH_ROWS = 500;

/** Kysely's own tables: the restore's migrator writes them. */
const BOOKKEEPING = new Set(['kysely_migration', 'kysely_migration_lock']);

/** A table of the export: its qualified name as PostgreSQL writes it, and where its rows go. */
export interface ExportedTable {
  table: string;
  rows: number;
}

/** Where the exported rows go, table by table, batch by batch. */
export type RowSink = (table: string, lines: string[]) => Promise<void>;

/** The schema's tables, parents before the tables that refer to them. */
async function tablesInOrder(db: Kysely<Database> | Transaction<Database>): Promise<string[]> {
  const tables = await sql<{ name: string }>`
    SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename`.execute(
    db,
  );
  const references = await sql<{ child: string; parent: string }>`
    SELECT c.relname AS child, p.relname AS parent
    FROM pg_constraint k
    JOIN pg_class c ON c.oid = k.conrelid
    JOIN pg_class p ON p.oid = k.confrelid
    WHERE k.contype = 'f' AND k.connamespace = current_schema()::regnamespace`.execute(db);
  const names = tables.rows.map((row) => row.name).filter((name) => !BOOKKEEPING.has(name));
  const parentsOf = new Map(names.map((name) => [name, new Set<string>()]));
  for (const { child, parent } of references.rows) if (child !== parent) parentsOf.get(child)?.add(parent);
  const ordered: string[] = [];
  const placed = new Set<string>();
  const place = (name: string, path: Set<string>) => {
    if (placed.has(name) || path.has(name)) return;
    path.add(name);
    for (const parent of parentsOf.get(name) ?? []) place(parent, path);
    placed.add(name);
    ordered.push(name);
  };
  for (const name of names) place(name, new Set());
  return ordered;
}

/**
 * Every table of the schema, as one snapshot; `extra` names further tables outside the schema to
 * read in the same snapshot (the job queue's), each with a condition on its rows.
 */
export async function exportPostgres(
  db: Kysely<Database>,
  sink: RowSink,
  extra: { table: string; where: string }[] = [],
): Promise<ExportedTable[]> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await sql`SET TRANSACTION READ ONLY`.execute(trx);
      const exported: ExportedTable[] = [];
      const sources = [
        ...(await tablesInOrder(trx)).map((table) => ({ table, from: sql.id(table), where: sql`TRUE` })),
        ...(await existing(trx, extra)).map(({ table, where }) => ({
          table,
          from: sql.table(table),
          where: sql.raw(where),
        })),
      ];
      for (const [index, source] of sources.entries()) {
        const cursor = sql.id(`appmeta_export_${index}`);
        await sql`DECLARE ${cursor} NO SCROLL CURSOR FOR
          SELECT row_to_json(t)::text AS line FROM ${source.from} AS t WHERE ${source.where}`.execute(trx);
        let rows = 0;
        for (;;) {
          const batch = await sql<{
            line: string;
          }>`FETCH ${sql.raw(String(BATCH_ROWS))} FROM ${cursor}`.execute(trx);
          if (batch.rows.length === 0) break;
          rows += batch.rows.length;
          await sink(
            source.table,
            batch.rows.map((row) => row.line),
          );
        }
        await sql`CLOSE ${cursor}`.execute(trx);
        exported.push({ table: source.table, rows });
      }
      return exported;
    });
}

/** The extra tables that exist (the job queue's schema is made on the queue's first start). */
async function existing(trx: Transaction<Database>, extra: { table: string; where: string }[]) {
  const found: { table: string; where: string }[] = [];
  for (const entry of extra) {
    const { rows } = await sql<{ t: string | null }>`SELECT to_regclass(${entry.table})::text AS t`.execute(
      trx,
    );
    if (rows[0]?.t !== null && rows[0]?.t !== undefined) found.push(entry);
  }
  return found;
}

/** Whether the schema holds no table at all (a restore goes only into an empty database). */
export async function isEmptyPostgres(db: Kysely<Database>): Promise<boolean> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = current_schema()`.execute(db);
  return rows[0]!.n === 0;
}

/** The tables of the schema in the order a load must fill them. */
export const loadOrder = (db: Kysely<Database>) => tablesInOrder(db);

/** Inserts exported lines into `table` (a name of the schema, or a qualified one such as pgboss.job). */
export async function loadRows(
  db: Kysely<Database> | Transaction<Database>,
  table: string,
  lines: string[],
): Promise<void> {
  const target = table.includes('.') ? sql.table(table) : sql.id(table);
  for (let start = 0; start < lines.length; start += BATCH_ROWS) {
    const batch = `[${lines.slice(start, start + BATCH_ROWS).join(',')}]`;
    await sql`INSERT INTO ${target} SELECT * FROM json_populate_recordset(NULL::${target}, ${batch}::json)`.execute(
      db,
    );
  }
}

/** Every row of a table in a SQLite file opened read-only apart from the service (a backup's copy). */
export async function readSqliteTable(file: string, table: string): Promise<Record<string, unknown>[]> {
  const { default: SqliteDatabase } = await import('better-sqlite3');
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return database.prepare(`SELECT * FROM "${table.replace(/"/g, '""')}"`).all() as Record<
      string,
      unknown
    >[];
  } finally {
    database.close();
  }
}

/** Whether a SQLite file holds no table (a restore goes only into an empty database). */
export async function isEmptySqlite(file: string): Promise<boolean> {
  const { default: SqliteDatabase } = await import('better-sqlite3');
  const database = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  try {
    const row = database.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'`).get() as {
      n: number;
    };
    return row.n === 0;
  } finally {
    database.close();
  }
}
