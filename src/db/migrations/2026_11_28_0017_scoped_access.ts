import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Scoped access (design.md §16): a member's projects, locales and approving (JSON; null is the
 * default, everything and no approving), carried by their invite, and recorded with a background
 * operation so that its worker acts within the requester's scope.
 */
const COLUMNS: [table: string, column: string][] = [
  ['members', 'access'],
  ['invites', 'access'],
  ['operations', 'actor_access'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, column] of COLUMNS)
    await db.schema.alterTable(table).addColumn(column, 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, column] of COLUMNS) await db.schema.alterTable(table).dropColumn(column).execute();
}
