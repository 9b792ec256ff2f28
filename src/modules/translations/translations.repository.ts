import type { Executor } from '../../db/database.js';
import { preparedQuery } from '../../db/prepared.js';
import type { TranslationGlossariesTable, TranslationStatesTable } from '../../db/tables.js';
import { parseSettings } from '../organizations/index.js';
import { parseProductField } from '../products/index.js';

export type StateRow = TranslationStatesTable;

// Prepared (db/prepared.ts) where every listing edit runs them.
const sourceLocaleRow = preparedQuery((db: Executor, projectId: string) =>
  db
    .selectFrom('projects')
    .innerJoin('organizations', 'organizations.id', 'projects.organization_id')
    .select(['projects.source_locale', 'organizations.settings'])
    .where('projects.id', '=', projectId),
);

/** The project's source locale: its own, or its organization's defaultLocale. */
async function sourceLocaleOf(db: Executor, projectId: string): Promise<string> {
  const [row] = await sourceLocaleRow(db, projectId);
  if (row === undefined) throw new Error(`project ${projectId} not found`);
  return row.source_locale ?? parseSettings(row.settings).defaultLocale;
}

async function listStates(db: Executor, projectId: string): Promise<StateRow[]> {
  return db.selectFrom('translation_states').selectAll().where('project_id', '=', projectId).execute();
}

async function upsertState(db: Executor, row: StateRow): Promise<void> {
  const { project_id: _p, store: _s, locale: _l, field: _f, ...changes } = row;
  await db
    .insertInto('translation_states')
    .values(row)
    .onConflict((oc) => oc.columns(['project_id', 'store', 'locale', 'field']).doUpdateSet(changes))
    .execute();
}

/** Stores a draft; a field's existing record keeps what its target was translated from. */
async function setDraft(db: Executor, row: StateRow): Promise<void> {
  await db
    .insertInto('translation_states')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['project_id', 'store', 'locale', 'field']).doUpdateSet({
        draft_value: row.draft_value,
        draft_source_value: row.draft_source_value,
        draft_source_hash: row.draft_source_hash,
        draft_provider: row.draft_provider,
        draft_note: row.draft_note,
        draft_at: row.draft_at,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Rows for fields that have none yet; an existing row (a pinned source, a draft) is kept. */
async function insertMissing(db: Executor, rows: StateRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('translation_states')
    .values(rows)
    .onConflict((oc) => oc.columns(['project_id', 'store', 'locale', 'field']).doNothing())
    .execute();
}

async function deleteState(
  db: Executor,
  key: { projectId: string; store: string; locale: string; field: string },
): Promise<void> {
  await db
    .deleteFrom('translation_states')
    .where('project_id', '=', key.projectId)
    .where('store', '=', key.store)
    .where('locale', '=', key.locale)
    .where('field', '=', key.field)
    .execute();
}

async function deleteProjectStates(db: Executor, projectId: string): Promise<void> {
  await db.deleteFrom('translation_states').where('project_id', '=', projectId).execute();
}

/** The target texts of one store field across the project's other active locales. */
const listingTargetValues = preparedQuery(
  (db: Executor, projectId: string, store: string, field: string, sourceLocale: string) =>
    db
      .selectFrom('listing_fields')
      .innerJoin('listings', 'listings.id', 'listing_fields.listing_id')
      .select(['listings.locale', 'listing_fields.value'])
      .where('listings.project_id', '=', projectId)
      .where('listings.store', '=', store)
      .where('listings.status', '=', 'active')
      .where('listings.locale', '!=', sourceLocale)
      .where('listing_fields.field', '=', field)
      .where('listing_fields.value', 'is not', null),
);

const fieldValueRow = preparedQuery(
  (db: Executor, projectId: string, store: string, locale: string, field: string) =>
    db
      .selectFrom('listing_fields')
      .innerJoin('listings', 'listings.id', 'listing_fields.listing_id')
      .select('listing_fields.value')
      .where('listings.project_id', '=', projectId)
      .where('listings.store', '=', store)
      .where('listings.locale', '=', locale)
      .where('listings.status', '=', 'active')
      .where('listing_fields.field', '=', field),
);

/** The target texts of one product text across the product's other locales. */
const productTargetValues = preparedQuery(
  (db: Executor, projectId: string, store: string, productId: string, field: string, sourceLocale: string) =>
    db
      .selectFrom('product_texts')
      .select(['locale', 'value'])
      .where('project_id', '=', projectId)
      .where('store', '=', store)
      .where('product_id', '=', productId)
      .where('field', '=', field)
      .where('locale', '!=', sourceLocale)
      .where('value', 'is not', null),
);

const productValueRow = preparedQuery(
  (db: Executor, projectId: string, store: string, productId: string, locale: string, field: string) =>
    db
      .selectFrom('product_texts')
      .select('value')
      .where('project_id', '=', projectId)
      .where('store', '=', store)
      .where('product_id', '=', productId)
      .where('locale', '=', locale)
      .where('field', '=', field),
);

/** Other locales' texts of a listing field, or of a product text (`products.<id>.<field>`). */
async function targetValues(
  db: Executor,
  projectId: string,
  store: string,
  field: string,
  sourceLocale: string,
) {
  const product = parseProductField(field);
  return product === null
    ? listingTargetValues(db, projectId, store, field, sourceLocale)
    : productTargetValues(db, projectId, store, product.productId, product.field, sourceLocale);
}

/** A field's text in one listing, or a product text's (null when unset or absent). */
async function fieldValue(db: Executor, projectId: string, store: string, locale: string, field: string) {
  const product = parseProductField(field);
  const [row] =
    product === null
      ? await fieldValueRow(db, projectId, store, locale, field)
      : await productValueRow(db, projectId, store, product.productId, locale, product.field);
  return row?.value ?? null;
}

export type GlossaryRow = TranslationGlossariesTable;

async function listGlossaries(db: Executor, organizationId: string): Promise<GlossaryRow[]> {
  return db
    .selectFrom('translation_glossaries')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('source_language')
    .orderBy('target_language')
    .execute();
}

async function findGlossary(db: Executor, organizationId: string, source: string, target: string) {
  return db
    .selectFrom('translation_glossaries')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('source_language', '=', source)
    .where('target_language', '=', target)
    .executeTakeFirst();
}

async function upsertGlossary(db: Executor, row: GlossaryRow): Promise<void> {
  await db
    .insertInto('translation_glossaries')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['organization_id', 'source_language', 'target_language']).doUpdateSet({
        entries: row.entries,
        provider_glossary_id: row.provider_glossary_id,
        provider_entries_hash: row.provider_entries_hash,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Records the provider's copy of the entries it was made from (unless they changed meanwhile). */
async function setGlossaryCopy(db: Executor, row: GlossaryRow, glossaryId: string, hash: string) {
  await db
    .updateTable('translation_glossaries')
    .set({ provider_glossary_id: glossaryId, provider_entries_hash: hash })
    .where('organization_id', '=', row.organization_id)
    .where('source_language', '=', row.source_language)
    .where('target_language', '=', row.target_language)
    .where('entries', '=', row.entries)
    .execute();
}

async function deleteGlossary(db: Executor, organizationId: string, source: string, target: string) {
  const result = await db
    .deleteFrom('translation_glossaries')
    .where('organization_id', '=', organizationId)
    .where('source_language', '=', source)
    .where('target_language', '=', target)
    .executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

/** Adds characters and one request to the organization's count for the period (YYYY-MM). */
async function addUsage(db: Executor, organizationId: string, period: string, characters: number) {
  await db
    .insertInto('translation_usage')
    .values({ organization_id: organizationId, period, characters, requests: 1 })
    .onConflict((oc) =>
      oc.columns(['organization_id', 'period']).doUpdateSet((eb) => ({
        characters: eb('translation_usage.characters', '+', characters),
        requests: eb('translation_usage.requests', '+', 1),
      })),
    )
    .execute();
}

async function usageOf(db: Executor, organizationId: string, period: string) {
  const row = await db
    .selectFrom('translation_usage')
    .select(['characters', 'requests'])
    .where('organization_id', '=', organizationId)
    .where('period', '=', period)
    .executeTakeFirst();
  return { characters: Number(row?.characters ?? 0), requests: Number(row?.requests ?? 0) };
}

export const translationsRepository = {
  sourceLocaleOf,
  listStates,
  upsertState,
  setDraft,
  insertMissing,
  deleteState,
  deleteProjectStates,
  targetValues,
  fieldValue,
  listGlossaries,
  findGlossary,
  upsertGlossary,
  setGlossaryCopy,
  deleteGlossary,
  addUsage,
  usageOf,
};
