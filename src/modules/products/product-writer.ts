/**
 * Writing product texts, all or nothing: every text is checked first against the last sync's
 * products and the limit table — all problems in one 400, each with its limit and length — then
 * all are written in one transaction with their history, an audit entry and an event.
 */
import { AppError, invalid, invalidField, notFound, type ErrorDetail } from '../../errors.js';
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { checkProductValue, productFieldNames, type ProductLimits } from '../../shared/product-fields.js';
import { isStoreLocale, STORE_LABEL, suggestLocales, type Store } from '../../shared/stores.js';
import type { OperationId } from '../access/index.js';
import { requireLocalesInScope, type RequestContext } from '../access/index.js';
import { actorOf, type AuditLog } from '../audit/index.js';
import type { Outbox } from '../events/index.js';
import type { TextChange, TextsChanged } from '../listings/index.js';
import { isLinked, lockProject, STORE_IDENTIFIER, type ProjectsService } from '../projects/index.js';
import { historyRow, productField } from './product-merge.js';
import {
  productsRepository as repo,
  type ProductRow,
  type TextHistoryRow,
  type TextRow,
} from './products.repository.js';

export interface ProductWriterDeps {
  db: Executor;
  clock: Clock;
  projects: Pick<ProjectsService, 'require'>;
  audit: Pick<AuditLog, 'record'>;
  outbox: Pick<Outbox, 'emit'>;
  limits: ProductLimits;
  /** The translation bookkeeping, told of every product text changed, in the change's transaction. */
  textsChanged?: TextsChanged;
}

export interface ProductEdit {
  store: Store;
  productId: string;
  locale: string;
  /** field → text; null clears an optional text. */
  fields: Record<string, string | null>;
  /** field → the source text it is a translation of (an XLIFF unit's source, a draft's). */
  translatedFrom?: Record<string, string | null>;
}

/** `translation` and `import` are audited by the translations module, as one entry with the listings. */
export type ProductEditSource = 'edit' | 'revert' | 'copy' | 'translation' | 'import';

const ACTION: Record<ProductEditSource, OperationId | null> = {
  edit: 'products.update',
  revert: 'products.revert',
  copy: 'products.copy',
  translation: null,
  import: null,
};

export function createProductWriter(deps: ProductWriterDeps) {
  const { db, clock, projects, audit, outbox, limits, textsChanged } = deps;

  /** Every problem with the edits, each named by `fieldOf`; the products they are for. */
  async function check(
    projectId: string,
    edits: ProductEdit[],
    fieldOf: (i: number, name: string) => string,
  ) {
    const problems: ErrorDetail[] = [];
    const products: ProductRow[] = [];
    for (const [i, edit] of edits.entries()) {
      const product = await repo.product(db, projectId, edit.store, edit.productId);
      if (product === undefined) throw notFound(`${STORE_LABEL[edit.store]} product ${edit.productId}`);
      // The store refuses these texts in the item's state (a page in review, an event published).
      if (product.locked !== null) {
        throw new AppError('CONFLICT', product.locked, [
          { field: fieldOf(i, 'state'), message: `not editable (${product.state ?? 'unknown'})` },
        ]);
      }
      products.push(product);
      if (!isStoreLocale(edit.store, edit.locale)) {
        const suggestions = suggestLocales(edit.store, edit.locale);
        problems.push({
          field: fieldOf(i, 'locale'),
          message:
            `"${edit.locale}" is not a ${STORE_LABEL[edit.store]} locale code` +
            (suggestions.length > 0 ? `; did you mean ${suggestions.join(', ')}?` : ''),
        });
        continue;
      }
      const current = await repo.texts(db, projectId, {
        store: edit.store,
        productId: edit.productId,
        locale: edit.locale,
      });
      for (const [name, value] of Object.entries(edit.fields)) {
        const problem = checkProductValue(limits, edit.store, product.kind, name, value);
        if (problem !== null) problems.push({ field: fieldOf(i, name), ...problem });
      }
      // A locale the store does not have yet is created by the push: its required texts come with it.
      const inStore = current.some((row) => row.base !== null);
      if (!inStore) {
        for (const name of productFieldNames(limits, edit.store, product.kind)) {
          const rule = limits[edit.store][product.kind as never] as Record<string, { required: boolean }>;
          const after = Object.hasOwn(edit.fields, name)
            ? edit.fields[name]
            : (current.find((row) => row.field === name)?.value ?? null);
          if (rule[name]!.required && after === null && !problems.some((p) => p.field === fieldOf(i, name))) {
            problems.push({
              field: fieldOf(i, name),
              message: `is required: ${STORE_LABEL[edit.store]} has no ${edit.locale} text of this product yet, and creates one only with it`,
            });
          }
        }
      }
    }
    if (problems.length > 0)
      throw invalid(problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems);
    return products;
  }

  /** Every check of a batch of edits, before anything is written: linked stores, scope, limits. */
  async function checkAll(
    ctx: RequestContext,
    projectId: string,
    edits: ProductEdit[],
    fieldOf: (i: number, name: string) => string,
  ) {
    const project = await projects.require(ctx, projectId);
    for (const edit of edits) {
      if (!isLinked(project, edit.store)) {
        throw invalidField(
          'store',
          `the project has no ${STORE_IDENTIFIER[edit.store]}; set it with PATCH /projects/:projectId`,
        );
      }
    }
    requireLocalesInScope(
      ctx,
      edits.map((edit) => edit.locale),
    );
    if (edits.some((edit) => Object.keys(edit.fields).length === 0)) {
      throw invalid('Name at least one text to change', [{ field: 'body', message: 'no texts given' }]);
    }
    await check(projectId, edits, fieldOf);
  }

  /** Writes checked edits in the caller's transaction (the project locked) with history and events. */
  async function apply(
    trx: Executor,
    ctx: RequestContext,
    projectId: string,
    edits: ProductEdit[],
    source: ProductEditSource,
    /** The operation audited, when not the source's own (a page's or an event's edit). */
    action: OperationId | null = ACTION[source],
  ): Promise<TextRow[]> {
    const at = clock.now().toISOString();
    const actor = actorOf(ctx);
    {
      const written: TextRow[] = [];
      const changes: TextChange[] = [];
      const history: TextHistoryRow[] = [];
      for (const edit of edits) {
        const current = new Map(
          (
            await repo.texts(trx, projectId, {
              store: edit.store,
              productId: edit.productId,
              locale: edit.locale,
            })
          ).map((row) => [row.field, row]),
        );
        for (const [field, value] of Object.entries(edit.fields)) {
          const before = current.get(field);
          // Editing a text in conflict resolves it, as for listing fields: the store's text becomes the base.
          const row: TextRow = {
            project_id: projectId,
            store: edit.store,
            product_id: edit.productId,
            locale: edit.locale,
            field,
            value,
            base: before?.in_conflict === 1 ? before.conflict_value : (before?.base ?? null),
            in_conflict: 0,
            conflict_value: null,
            updated_at: at,
          };
          if (row.value === null && row.base === null) {
            if (before !== undefined) await repo.deleteText(trx, { projectId, ...edit, field });
          } else await repo.upsertText(trx, row);
          written.push(row);
          if ((before?.value ?? null) !== value) {
            history.push(historyRow(row, before?.value ?? null, source, actor, at));
            changes.push({
              store: edit.store,
              locale: edit.locale,
              field: productField(edit.productId, field),
              before: before?.value ?? null,
              after: value,
              ...(edit.translatedFrom !== undefined &&
                Object.hasOwn(edit.translatedFrom, field) && { translatedFrom: edit.translatedFrom[field] }),
            });
          }
        }
      }
      await repo.insertHistory(trx, history);
      if (history.length === 0) return written;
      await textsChanged?.(trx, projectId, changes);
      if (action !== null) {
        await audit.record(
          trx,
          ctx,
          action,
          { type: 'product', id: [...new Set(edits.map((e) => e.productId))].join(','), projectId },
          { texts: history.map((h) => `${h.store}/${h.product_id}/${h.locale}/${h.field}`) },
        );
      }
      for (const edit of edits) {
        const fields = history
          .filter(
            (h) => h.store === edit.store && h.product_id === edit.productId && h.locale === edit.locale,
          )
          .map((h) => productField(h.product_id, h.field));
        if (fields.length === 0) continue;
        await outbox.emit(trx, ctx.organizationId, 'listing.updated', {
          projectId,
          store: edit.store,
          locale: edit.locale,
          productId: edit.productId,
          fields,
          source,
          actor: actor.memberId ?? actor.operator,
        });
      }
      return written;
    }
  }

  return {
    check: checkAll,
    apply,
    /** Checks, then writes in a transaction of its own: edits and reverts. */
    async write(
      ctx: RequestContext,
      projectId: string,
      edits: ProductEdit[],
      source: ProductEditSource,
      fieldOf: (i: number, name: string) => string = (_i, name) => name,
      action: OperationId | null = ACTION[source],
    ): Promise<TextRow[]> {
      await checkAll(ctx, projectId, edits, fieldOf);
      return db.transaction().execute(async (trx) => {
        await lockProject(trx, projectId);
        return apply(trx, ctx, projectId, edits, source, action);
      });
    },
  };
}

export type ProductWriter = ReturnType<typeof createProductWriter>;
