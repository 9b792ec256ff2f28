import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Translations (design.md §14).
 *
 * - projects.source_locale: the project's source locale; null follows the organization's
 *   defaultLocale.
 * - translation_states: per target listing field, the source text it was translated from (its
 *   SHA-256 decides `outdated`, the text itself shows what changed since) and a machine draft
 *   waiting for a member (never pushed: it lives here, not in the listing). A target field with a
 *   value and no row counts as current until its source changes: the source's change pins such
 *   fields to the text they were written against.
 * - translation_glossaries: an organization's terms per language pair, and the provider's copy.
 * - translation_usage: characters sent to the machine translation provider, per month.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('projects').addColumn('source_locale', 'text').execute();

  await db.schema
    .createTable('translation_states')
    .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
    .addColumn('store', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('source_value', 'text')
    .addColumn('source_hash', 'text')
    .addColumn('draft_value', 'text')
    .addColumn('draft_source_value', 'text')
    .addColumn('draft_source_hash', 'text')
    .addColumn('draft_provider', 'text')
    .addColumn('draft_note', 'text')
    .addColumn('draft_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('translation_states_pk', ['project_id', 'store', 'locale', 'field'])
    .execute();

  await db.schema
    .createTable('translation_glossaries')
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('source_language', 'text', (c) => c.notNull())
    .addColumn('target_language', 'text', (c) => c.notNull())
    .addColumn('entries', 'text', (c) => c.notNull())
    // The provider's glossary made from these entries; replaced when the entries change.
    .addColumn('provider_glossary_id', 'text')
    .addColumn('provider_entries_hash', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('translation_glossaries_pk', [
      'organization_id',
      'source_language',
      'target_language',
    ])
    .execute();

  await db.schema
    .createTable('translation_usage')
    .addColumn('organization_id', 'text', (c) =>
      c.notNull().references('organizations.id').onDelete('cascade'),
    )
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('characters', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('translation_usage_pk', ['organization_id', 'period'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['translation_usage', 'translation_glossaries', 'translation_states']) {
    await db.schema.dropTable(table).execute();
  }
  await db.schema.alterTable('projects').dropColumn('source_locale').execute();
}
