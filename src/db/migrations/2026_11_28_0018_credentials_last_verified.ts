import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The last time a stored credential was checked with its store (or DeepL), and the answer (JSON:
 * at, verified, the refusal's code and message). A new key clears it: it has not been checked.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('store_credentials').addColumn('last_verification', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('store_credentials').dropColumn('last_verification').execute();
}
