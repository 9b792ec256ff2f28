/**
 * The bookkeeping of sync and push on product texts: a sync merges each text three-way like a
 * listing field (design.md §9); a push moves base up to the value the store took.
 */
import type { StoreProduct } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { newId } from '../../shared/ids.js';
import { isMarketingKind, productFieldNames, type ProductLimits } from '../../shared/product-fields.js';
import type { Store } from '../../shared/stores.js';
import type { AuditActor } from '../audit/index.js';
import { mergeField, type Conflict, type TextChange, type TextsChanged } from '../listings/index.js';
import { lockProject } from '../projects/index.js';
import { productsRepository as repo, type TextHistoryRow, type TextRow } from './products.repository.js';

/**
 * How a product text is named where one field name is expected (conflicts, failures, translation
 * records, XLIFF units): `products.<productId>.<field>`. Product ids may hold dots, field names never.
 */
export const productField = (productId: string, field: string) => `products.${productId}.${field}`;

/** The product and field a `products.<productId>.<field>` name stands for; null for a listing field. */
export function parseProductField(name: string): { productId: string; field: string } | null {
  if (!name.startsWith('products.')) return null;
  const dot = name.lastIndexOf('.');
  if (dot <= 'products.'.length) return null;
  return { productId: name.slice('products.'.length, dot), field: name.slice(dot + 1) };
}

export interface ProductMerge {
  /** In-app purchases, subscriptions and groups read. */
  products: number;
  productPages: number;
  appEvents: number;
  conflicts: Conflict[];
  changedTexts: number;
}

/**
 * Merges what a store has into the project's products, in the caller's transaction. A product
 * gone from the store goes from here with its texts (appmeta never creates one); a locale gone
 * from a product goes unless it carries local edits.
 */
export async function mergeProducts(
  db: Executor,
  scope: { projectId: string; actor: Pick<AuditActor, 'memberId' | 'operator'> },
  store: Store,
  incoming: StoreProduct[],
  limits: ProductLimits,
  at: string,
  /** The translation bookkeeping, told of the texts the store changed here. */
  textsChanged?: TextsChanged,
): Promise<ProductMerge> {
  await lockProject(db, scope.projectId);
  const known = await repo.products(db, scope.projectId, store);
  const rows = await repo.texts(db, scope.projectId, { store });
  const key = (productId: string, locale: string, field: string) =>
    `${productId}\u0000${locale}\u0000${field}`;
  const byKey = new Map(rows.map((r) => [key(r.product_id, r.locale, r.field), r]));
  const count = (kind: string) => incoming.filter((p) => p.kind === kind).length;
  const result: ProductMerge = {
    products: incoming.filter((p) => !isMarketingKind(p.kind)).length,
    productPages: count('customProductPage'),
    appEvents: count('appEvent'),
    conflicts: [],
    changedTexts: 0,
  };
  const history: TextHistoryRow[] = [];
  const changes: TextChange[] = [];
  const seen = new Set<string>();

  for (const product of incoming) {
    await repo.upsertProduct(db, {
      project_id: scope.projectId,
      store,
      product_id: product.productId,
      kind: product.kind,
      reference_name: product.referenceName,
      state: product.state,
      store_ref: product.storeRef,
      details: product.details === undefined ? null : JSON.stringify(product.details),
      locked: product.locked ?? null,
      read_at: at,
    });
    const fields = productFieldNames(limits, store, product.kind);
    for (const [locale, texts] of product.texts) {
      for (const field of fields) {
        const k = key(product.productId, locale, field);
        seen.add(k);
        const row = byKey.get(k);
        const value = row?.value ?? null;
        const next = mergeField(
          row && { value, base: row.base, inConflict: row.in_conflict === 1 },
          texts[field] ?? null,
        );
        if (next === null) continue;
        if (next.conflict !== undefined) {
          result.conflicts.push({
            store,
            locale,
            field: productField(product.productId, field),
            localValue: value,
            storeValue: next.conflict,
          });
        }
        const updated: TextRow = {
          project_id: scope.projectId,
          store,
          product_id: product.productId,
          locale,
          field,
          value: next.value,
          base: next.base,
          in_conflict: next.conflict === undefined ? 0 : 1,
          conflict_value: next.conflict ?? null,
          updated_at: at,
        };
        if (updated.value === null && updated.base === null && updated.in_conflict === 0) {
          if (row !== undefined) await repo.deleteText(db, { ...scopeKey(updated), field });
        } else await repo.upsertText(db, updated);
        if (next.value !== value) {
          result.changedTexts += 1;
          history.push(historyRow(updated, value, 'sync', scope.actor, at));
          changes.push({
            store,
            locale,
            field: productField(product.productId, field),
            before: value,
            after: next.value,
          });
        }
      }
    }
  }

  const present = new Set(incoming.map((p) => p.productId));
  for (const product of known) {
    if (!present.has(product.product_id))
      await repo.deleteProduct(db, scope.projectId, store, product.product_id);
  }
  for (const row of rows) {
    if (!present.has(row.product_id) || seen.has(key(row.product_id, row.locale, row.field))) continue;
    // The store no longer has this text: follow it unless it was edited here (or never pushed).
    const untouched = row.value === row.base && row.in_conflict === 0;
    if (untouched && row.base !== null) await repo.deleteText(db, { ...scopeKey(row), field: row.field });
  }
  await repo.insertHistory(db, history);
  if (changes.length > 0) await textsChanged?.(db, scope.projectId, changes);
  return result;
}

const scopeKey = (row: TextRow) => ({
  projectId: row.project_id,
  store: row.store,
  productId: row.product_id,
  locale: row.locale,
});

export function historyRow(
  row: TextRow,
  old: string | null,
  source: string,
  actor: Pick<AuditActor, 'memberId' | 'operator'>,
  at: string,
): TextHistoryRow {
  return {
    id: newId('pth'),
    project_id: row.project_id,
    store: row.store,
    product_id: row.product_id,
    locale: row.locale,
    field: row.field,
    old_value: old,
    new_value: row.value,
    source,
    actor_member_id: actor.memberId,
    actor_operator: actor.operator,
    created_at: at,
  };
}

/**
 * After a store took a product's locales, in the caller's transaction: base = value for the
 * texts pushed — only where the value is still what was pushed (an edit made meanwhile stays).
 */
export async function recordProductPush(
  db: Executor,
  projectId: string,
  store: Store,
  taken: { productId: string; locale: string; fields: Record<string, string | null> }[],
  at: string,
): Promise<void> {
  await lockProject(db, projectId);
  for (const change of taken) {
    const rows = await repo.texts(db, projectId, {
      store,
      productId: change.productId,
      locale: change.locale,
    });
    for (const row of rows) {
      if (!Object.hasOwn(change.fields, row.field) || row.value !== change.fields[row.field]) continue;
      if (row.value === null) await repo.deleteText(db, { ...scopeKey(row), field: row.field });
      else
        await repo.upsertText(db, {
          ...row,
          base: row.value,
          in_conflict: 0,
          conflict_value: null,
          updated_at: at,
        });
    }
  }
}
