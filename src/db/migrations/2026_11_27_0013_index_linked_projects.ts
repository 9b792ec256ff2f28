import { sql, type Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * The projects linked to a store, indexed by themselves: the drift schedule looks at them every
 * minute on every instance (src/worker.ts), and without this index it read every project to find
 * them — a million unlinked ones in the bench's largest organization.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('projects_linked_idx')
    .on('projects')
    .column('organization_id')
    .where(sql<boolean>`app_store_app_id is not null or play_store_package_name is not null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('projects_linked_idx').execute();
}
