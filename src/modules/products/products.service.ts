/**
 * In-app purchases and subscriptions as people read and edit them (design.md §17): the products
 * the last sync read, their texts per locale with base and state, history and revert; and the
 * parts sync and push call — merge what a store has, plan a push, record what a store took.
 */
import type { MediaSlotChange, ProductsReport, StoreProduct } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import { invalidField, notFound } from '../../errors.js';
import {
  isMarketingKind,
  productFieldNames,
  productRuleOf,
  type ProductLimits,
} from '../../shared/product-fields.js';
import type { Store } from '../../shared/stores.js';
import { authorize, type RequestContext } from '../access/index.js';
import { actorOf, historyActor } from '../audit/index.js';
import { fieldState, type Changeset } from '../listings/index.js';
import { mergeProducts, recordProductPush } from './product-merge.js';
import { counterpartKind, otherStore, planCopy, type CopyInput } from './product-copy.js';
import { productPushPlan, type ProductPushPlan } from './product-changes.js';
import { createProductWriter, type ProductWriterDeps } from './product-writer.js';
import { productsRepository as repo, type ProductRow, type TextRow } from './products.repository.js';

export type ProductsServiceDeps = ProductWriterDeps;

/** A text as the API shows it: a list field (benefits) as its items. */
export type ApiText = string | string[] | null;

export function apiValue(
  limits: ProductLimits,
  store: Store,
  kind: string,
  field: string,
  value: string | null,
): ApiText {
  if (value === null) return null;
  return productRuleOf(limits, store, kind, field)?.list === undefined ? value : value.split('\n');
}

/** A text as it is stored: list items one per line. */
export const storedValue = (value: ApiText): string | null =>
  Array.isArray(value) ? value.join('\n') : value;

export interface ProductFieldView {
  value: ApiText;
  base: ApiText;
  state: 'unchanged' | 'modified' | 'conflict';
  storeValue?: ApiText;
  limit: number;
  maxItems?: number;
  required: boolean;
}

export function createProductsService(deps: ProductsServiceDeps) {
  const { db, clock, projects, limits } = deps;
  const writer = createProductWriter(deps);
  const write: typeof writer.write = (...args) => writer.write(...args);

  const requireProduct = async (projectId: string, store: Store, productId: string): Promise<ProductRow> => {
    const product = await repo.product(db, projectId, store, productId);
    if (product === undefined) throw notFound('Product');
    return product;
  };

  /** One product's texts in one locale, field by field, with the limits the dashboard counts against. */
  function localeView(product: ProductRow, locale: string, rows: TextRow[]) {
    const store = product.store as Store;
    const fields: Record<string, ProductFieldView> = {};
    for (const field of productFieldNames(limits, store, product.kind)) {
      const row = rows.find((r) => r.field === field);
      const rule = productRuleOf(limits, store, product.kind, field)!;
      const api = (value: string | null) => apiValue(limits, store, product.kind, field, value);
      fields[field] = {
        value: api(row?.value ?? null),
        base: api(row?.base ?? null),
        state: row === undefined ? 'unchanged' : fieldState(row),
        ...(row?.in_conflict === 1 && { storeValue: api(row.conflict_value) }),
        limit: rule.max,
        ...(rule.list !== undefined && { maxItems: rule.list.maxItems }),
        required: rule.required,
      };
    }
    return {
      store,
      kind: product.kind,
      productId: product.product_id,
      referenceName: product.reference_name,
      state: product.state,
      locale,
      fields,
    };
  }

  return {
    /** The writer itself, for translations: check edits first, then write them in the caller's transaction. */
    writer,

    /** Every product of both stores with its texts per locale, as the last sync read them. */
    async list(ctx: RequestContext, projectId: string, query: { store?: Store } = {}) {
      authorize(ctx, 'products.list');
      await projects.require(ctx, projectId);
      const [all, texts] = await Promise.all([
        repo.products(db, projectId, query.store),
        repo.texts(db, projectId, query.store === undefined ? {} : { store: query.store }),
      ]);
      // Pages and events have lists of their own (design.md §18).
      const products = all.filter((p) => !isMarketingKind(p.kind));
      const byProduct = new Map<string, TextRow[]>();
      for (const row of texts) {
        const key = `${row.store}/${row.product_id}`;
        byProduct.set(key, [...(byProduct.get(key) ?? []), row]);
      }
      return {
        products: products.map((p) => {
          const rows = byProduct.get(`${p.store}/${p.product_id}`) ?? [];
          const locales: Record<string, Record<string, ApiText>> = {};
          const states: Record<string, ProductFieldView['state']> = {};
          for (const row of rows) {
            (locales[row.locale] ??= {})[row.field] = apiValue(
              limits,
              p.store as Store,
              p.kind,
              row.field,
              row.value,
            );
            // A locale is in conflict if a text is, else modified if a text is.
            const state = fieldState(row);
            if (state === 'conflict' || (state === 'modified' && states[row.locale] !== 'conflict'))
              states[row.locale] = state;
            else states[row.locale] ??= 'unchanged';
          }
          return {
            store: p.store,
            kind: p.kind,
            productId: p.product_id,
            referenceName: p.reference_name,
            state: p.state,
            locales,
            states,
            linkedProductId: p.linked_product_id,
            pending: rows.filter((r) => fieldState(r) !== 'unchanged').length,
            readAt: p.read_at,
          };
        }),
        limits,
      };
    },

    async get(
      ctx: RequestContext,
      projectId: string,
      key: { store: Store; productId: string; locale: string },
    ) {
      authorize(ctx, 'products.get');
      await projects.require(ctx, projectId);
      const product = await requireProduct(projectId, key.store, key.productId);
      return localeView(product, key.locale, await repo.texts(db, projectId, key));
    },

    /** Changes texts of one product in one locale; all checked first (limits, required texts). */
    async update(
      ctx: RequestContext,
      projectId: string,
      key: { store: Store; productId: string; locale: string },
      fields: Record<string, ApiText>,
    ) {
      authorize(ctx, 'products.update');
      const stored = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, storedValue(v)]));
      await write(ctx, projectId, [{ ...key, fields: stored }], 'edit');
      const product = await requireProduct(projectId, key.store, key.productId);
      return localeView(product, key.locale, await repo.texts(db, projectId, key));
    },

    /** A product text's changes in one locale, newest first. */
    async history(
      ctx: RequestContext,
      projectId: string,
      key: { store: Store; productId: string; locale: string },
      page: { limit: number; offset: number },
    ) {
      authorize(ctx, 'products.history');
      await projects.require(ctx, projectId);
      const product = await requireProduct(projectId, key.store, key.productId);
      const rows = await repo.history(db, { projectId, ...key }, page);
      return {
        entries: rows.map((row) => ({
          id: row.id,
          field: row.field,
          old: apiValue(limits, key.store, product.kind, row.field, row.old_value),
          new: apiValue(limits, key.store, product.kind, row.field, row.new_value),
          source: row.source,
          actor: historyActor(row, key.store),
          createdAt: row.created_at,
        })),
      };
    },

    /** Sets a product text back to its value before (default) or after a history entry. */
    async revert(
      ctx: RequestContext,
      projectId: string,
      input: { historyId: string; to?: 'before' | 'after' },
    ) {
      authorize(ctx, 'products.revert');
      await projects.require(ctx, projectId);
      const entry = await repo.historyEntry(db, projectId, input.historyId);
      if (entry === undefined) throw notFound('History entry');
      const key = { store: entry.store as Store, productId: entry.product_id, locale: entry.locale };
      const text = input.to === 'after' ? entry.new_value : entry.old_value;
      await write(ctx, projectId, [{ ...key, fields: { [entry.field]: text } }], 'revert', (_i, name) =>
        name === entry.field ? 'historyId' : name,
      );
      const product = await requireProduct(projectId, key.store, key.productId);
      return localeView(product, key.locale, await repo.texts(db, projectId, key));
    },

    /** Copies a product's texts into its counterpart in the other store, all or nothing. */
    async copy(ctx: RequestContext, projectId: string, input: CopyInput) {
      authorize(ctx, 'products.copy');
      await projects.require(ctx, projectId);
      const to = otherStore(input.from.store);
      const [source, texts] = await Promise.all([
        repo.product(db, projectId, input.from.store, input.from.productId),
        repo.texts(db, projectId, { store: input.from.store, productId: input.from.productId }),
      ]);
      // The counterpart: the one named, else the one linked, else the same product id.
      const targetId = input.to?.productId ?? source?.linked_product_id ?? input.from.productId;
      const target = await repo.product(db, projectId, to, targetId);
      const { edits, copied } = planCopy(input, source, target, texts);
      await write(ctx, projectId, edits, 'copy', (i, name) => `texts.${edits[i]!.locale}.${name}`);
      return { store: to, productId: targetId, copied };
    },

    /**
     * Links a product to its counterpart in the other store when their ids differ (or unlinks it,
     * `null`): copy then finds it without being told. Kept on both products; sync leaves it alone.
     */
    async link(
      ctx: RequestContext,
      projectId: string,
      key: { store: Store; productId: string },
      linkedProductId: string | null,
    ) {
      authorize(ctx, 'products.link');
      await projects.require(ctx, projectId);
      const product = await requireProduct(projectId, key.store, key.productId);
      const other = otherStore(key.store);
      const counterpart =
        linkedProductId === null ? undefined : await repo.product(db, projectId, other, linkedProductId);
      if (linkedProductId !== null) {
        if (counterpart === undefined)
          throw notFound(`${other === 'appstore' ? 'App Store' : 'Google Play'} product ${linkedProductId}`);
        if (counterpartKind(key.store, product.kind) !== counterpart.kind) {
          throw invalidField(
            'productId',
            `a ${product.kind} is linked to a ${counterpartKind(key.store, product.kind) ?? 'nothing'}, not a ${counterpart.kind}`,
          );
        }
      }
      await db.transaction().execute(async (trx) => {
        // Whatever either was linked to before is unlinked: a link is one to one.
        for (const [store, id] of [
          [other, product.linked_product_id],
          [key.store, counterpart?.linked_product_id ?? null],
        ] as const) {
          if (id !== null) await repo.setLink(trx, projectId, store, id, null);
        }
        await repo.setLink(trx, projectId, key.store, key.productId, linkedProductId);
        if (linkedProductId !== null)
          await repo.setLink(trx, projectId, other, linkedProductId, key.productId);
        await deps.audit.record(
          trx,
          ctx,
          'products.link',
          { type: 'product', id: key.productId, projectId },
          { store: key.store, linkedProductId },
        );
      });
      return { store: key.store, productId: key.productId, linkedProductId };
    },

    /** A custom product page of the project and why the store refuses changes to it now (for media). */
    async pageLock(projectId: string, pageId: string): Promise<{ locked: string | null } | undefined> {
      const page = await repo.product(db, projectId, 'appstore', pageId);
      return page?.kind === 'customProductPage' ? { locked: page.locked } : undefined;
    },

    /** Sync: what a store has, merged three-way into the project's products (caller's transaction). */
    merge(trx: Executor, ctx: RequestContext, projectId: string, store: Store, products: StoreProduct[]) {
      return mergeProducts(
        trx,
        { projectId, actor: actorOf(ctx) },
        store,
        products,
        limits,
        clock.now().toISOString(),
      );
    },

    /** Push: what a push to `store` writes of the changeset's products, decided before any store call. */
    async pushPlan(
      projectId: string,
      changeset: Changeset,
      store: Store,
      locales: string[] | undefined,
      /** A custom product page's media slots to write with it, by page id. */
      media?: ReadonlyMap<string, MediaSlotChange[]>,
    ): Promise<ProductPushPlan> {
      return productPushPlan(
        changeset.products,
        store,
        locales,
        await repo.products(db, projectId, store),
        limits,
        media,
      );
    },

    /** Push: base = value for every product locale the store took. */
    async recordPush(projectId: string, store: Store, plan: ProductPushPlan, report: ProductsReport) {
      const taken = report.results.flatMap((result) => {
        const change = plan.changes.find((c) => c.productId === result.productId);
        return result.written.map((locale) => ({
          productId: result.productId,
          locale,
          fields: change?.locales[locale] ?? {},
        }));
      });
      if (taken.length === 0) return;
      const at = clock.now().toISOString();
      await db.transaction().execute((trx) => recordProductPush(trx, projectId, store, taken, at));
    },
  };
}

export type ProductsService = ReturnType<typeof createProductsService>;
