import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Who acted, when it was not a member: the operator's label (`cli:<os user>`, or `server:first-start`)
 * next to the member columns of the audit log, the listing history and the operations log.
 */
const TABLES = ['audit_log', 'listing_history', 'operations'];

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) await db.schema.alterTable(table).addColumn('actor_operator', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) await db.schema.alterTable(table).dropColumn('actor_operator').execute();
}
