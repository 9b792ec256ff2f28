/**
 * Translations of a project (design.md §14): the state matrix, one locale's texts side by side,
 * XLIFF out to translators and back, and accepting machine drafts. Every write goes through the
 * listing writer, so a translation is validated, recorded in the history and tracked like an edit.
 */
import type { Executor } from '../../db/database.js';
import { invalid, invalidField, notFound, type ErrorDetail } from '../../errors.js';
import type { Clock } from '../../shared/clock.js';
import { packArchive } from '../../shared/archive.js';
import { STORES, type Store } from '../../shared/stores.js';
import { authorize, requireLocalesInScope, type RequestContext } from '../access/index.js';
import type { AuditLog } from '../audit/index.js';
import type { ListingEdits, ListingWriter } from '../listings/index.js';
import type { ProductEdit, ProductWriter } from '../products/index.js';
import type { ProjectsService } from '../projects/index.js';
import type { ProductLimits } from '../../shared/product-fields.js';
import { createEntryRules } from './entry-rules.js';
import { entriesOf, readMatrix, storeLocaleOf, type Matrix, type MatrixEntry } from './translation-matrix.js';
import { TRANSLATION_STATES, type TranslationState } from './translation-state.js';
import { pinTranslation } from './translation-tracker.js';
import { addProductEdit, planImport, xliffFor, type Confirmation } from './xliff-transfer.js';
import { parseXliff, writeXliff, XliffError, xliffText, type XliffVersion } from './xliff.js';

export interface StatusItem {
  locale: string;
  store: Store;
  field: string;
  state: TranslationState;
  /** A draft's fit: over the limit it cannot be accepted. */
  draft?: { length: number; limit: number | null; overLimit: boolean; note: string | null };
}

export interface TranslationsStatus {
  sourceLocale: string;
  stores: Store[];
  items: StatusItem[];
  counts: Record<TranslationState, number>;
}

export interface AcceptRequest {
  store?: Store;
  fields?: string[];
}

export function createTranslationsService(deps: {
  db: Executor;
  clock: Clock;
  audit: AuditLog;
  projects: Pick<ProjectsService, 'require'>;
  writer: ListingWriter;
  /** Product texts are written by their own writer, in the listings' transaction. */
  productWriter: Pick<ProductWriter, 'check' | 'apply'>;
  productLimits: ProductLimits;
}) {
  const { db, clock, audit, projects, writer, productWriter, productLimits } = deps;
  const rules = createEntryRules(productLimits);
  const withFit = (entry: MatrixEntry) =>
    entry.draft === null ? null : { ...entry.draft, ...rules.fitOf(entry, entry.draft.text) };

  /**
   * Writes listing and product translations in one transaction, with `alsoInTransaction` after
   * them; every check of both first. A product's problems are named `<store>/<field>` as a listing's.
   */
  async function writeAll(
    ctx: RequestContext,
    project: Awaited<ReturnType<ProjectsService['require']>>,
    batch: ListingEdits[],
    products: ProductEdit[],
    source: 'import' | 'translation',
    alsoInTransaction: (trx: Executor) => Promise<void>,
  ) {
    if (products.length > 0) {
      await productWriter.check(ctx, project.id, products, (i, name) => {
        const edit = products[i]!;
        return `${edit.store}/products.${edit.productId}.${name}`;
      });
    }
    await writer.applyAll(
      ctx,
      project,
      batch,
      source,
      (entry: ListingEdits, field?: string) => `${entry.store}/${field ?? 'locale'}`,
      async (trx) => {
        if (products.length > 0) await productWriter.apply(trx, ctx, project.id, products, source);
        await alsoInTransaction(trx);
      },
    );
  }

  async function matrixOf(
    ctx: RequestContext,
    projectId: string,
    operation: Parameters<typeof authorize>[1],
  ) {
    authorize(ctx, operation);
    const project = await projects.require(ctx, projectId);
    return { project, matrix: await readMatrix(db, ctx.organizationId, projectId, productLimits) };
  }

  /** A target locale's entries; a code of neither store, or the source itself, is a 400. */
  function localeEntries(matrix: Matrix, locale: string): MatrixEntry[] {
    if (!STORES.some((store) => storeLocaleOf(store, locale) !== null)) {
      throw invalid(`"${locale}" is not a locale of either store`, [
        { field: 'locale', message: 'unknown locale' },
      ]);
    }
    if (STORES.some((store) => storeLocaleOf(store, locale) === storeLocaleOf(store, matrix.sourceLocale))) {
      throw invalid(`${locale} is the project's source locale; translations are made from it`, [
        { field: 'locale', message: 'is the source locale' },
      ]);
    }
    const entries = entriesOf(matrix, locale);
    if (entries.length === 0) {
      throw notFound(
        `Texts to translate into ${locale} (the source locale ${matrix.sourceLocale} has no listing texts)`,
      );
    }
    return entries;
  }

  /** Targets whose text stays, now known to translate `from` (their drafts dropped). */
  async function confirm(trx: Executor, projectId: string, confirmations: Confirmation[]) {
    for (const c of confirmations) {
      await pinTranslation(trx, clock.now().toISOString(), { projectId, ...c }, c.from);
    }
  }

  /** The target locales of the matrix, one code per language (zh-Hans rather than also zh-CN). */
  function targetLocales(matrix: Matrix): string[] {
    const seen = new Set<string>();
    const out: string[] = [];
    for (const code of [...new Set(matrix.entries.map((e) => e.locale))]) {
      const signature = entriesOf(matrix, code)
        .map((e) => `${e.store}:${e.locale}`)
        .filter((v, i, all) => all.indexOf(v) === i)
        .join(',');
      if (seen.has(signature)) continue;
      seen.add(signature);
      out.push(code);
    }
    return out.sort();
  }

  return {
    async status(ctx: RequestContext, projectId: string): Promise<TranslationsStatus> {
      const { matrix } = await matrixOf(ctx, projectId, 'translations.status');
      const counts = Object.fromEntries(TRANSLATION_STATES.map((s) => [s, 0])) as Record<
        TranslationState,
        number
      >;
      const items = matrix.entries.map((entry): StatusItem => {
        counts[entry.state] += 1;
        const fit = withFit(entry);
        return {
          locale: entry.locale,
          store: entry.store,
          field: entry.field,
          state: entry.state,
          ...(fit !== null && {
            draft: { length: fit.length, limit: fit.limit, overLimit: fit.overLimit, note: fit.note },
          }),
        };
      });
      return { sourceLocale: matrix.sourceLocale, stores: matrix.stores, items, counts };
    },

    /** One target locale, source beside target: what the translation view shows. */
    async get(ctx: RequestContext, projectId: string, locale: string) {
      const { matrix } = await matrixOf(ctx, projectId, 'translations.get');
      return {
        sourceLocale: matrix.sourceLocale,
        locale,
        entries: localeEntries(matrix, locale).map((entry) => ({
          ...entry,
          draft: withFit(entry),
          // A product text's limit comes from the instance's table: the page counts against it.
          ...(entry.product !== undefined && { limit: rules.ruleOf(entry).max }),
        })),
      };
    },

    async exportXliff(ctx: RequestContext, projectId: string, locale: string, version: XliffVersion) {
      const { matrix } = await matrixOf(ctx, projectId, 'translations.export');
      localeEntries(matrix, locale);
      return writeXliff(xliffFor(matrix, locale, version, rules));
    },

    /** Every target locale's XLIFF in one zip, `<locale>.xlf` each. */
    async exportArchive(ctx: RequestContext, projectId: string, version: XliffVersion) {
      const { matrix } = await matrixOf(ctx, projectId, 'translations.export');
      const locales = targetLocales(matrix);
      if (locales.length === 0) {
        throw notFound(`Texts to translate (the project has no target locale beside ${matrix.sourceLocale})`);
      }
      const files = new Map(
        locales.map((locale) => [`${locale}.xlf`, writeXliff(xliffFor(matrix, locale, version, rules))]),
      );
      return packArchive(files, 'zip');
    },

    /**
     * A translator's XLIFF for one locale: every unit validated like an edit, every problem
     * reported with its unit (`<store>/<field>`), then all written in one transaction or nothing.
     */
    async importXliff(ctx: RequestContext, projectId: string, locale: string, xml: string | Uint8Array) {
      const { project, matrix } = await matrixOf(ctx, projectId, 'translations.import');
      requireLocalesInScope(ctx, [locale]);
      localeEntries(matrix, locale);
      let doc;
      try {
        doc = parseXliff(typeof xml === 'string' ? xml : xliffText(xml));
      } catch (error) {
        if (!(error instanceof XliffError)) throw error;
        const field = error.unit ?? 'body';
        throw invalid(
          `The XLIFF document ${error.unit === undefined ? '' : `unit ${error.unit} `}${error.message}`,
          [{ field, message: error.message }],
        );
      }
      const plan = planImport(matrix, locale, doc, rules);
      if (plan.problems.length > 0) {
        throw invalid(
          `Nothing imported: ${plan.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
          plan.problems,
        );
      }
      await writeAll(ctx, project, plan.batch, plan.productBatch, 'import', async (trx) => {
        await confirm(trx, projectId, plan.confirmations);
        await audit.record(
          trx,
          ctx,
          'translations.import',
          { type: 'project', id: projectId },
          { locale, version: doc.version, units: plan.written.map((w) => `${w.store}/${w.field}`) },
        );
      });
      return { locale, version: doc.version, imported: plan.written, ignored: plan.ignored };
    },

    /**
     * Accepts machine drafts: each becomes the target's text, translated from the source the
     * draft was made from. A draft over its field's limit cannot be accepted: named when asked
     * for, skipped (and said) otherwise.
     */
    async accept(ctx: RequestContext, projectId: string, locale: string, request: AcceptRequest) {
      const { project, matrix } = await matrixOf(ctx, projectId, 'translations.accept');
      requireLocalesInScope(ctx, [locale]);
      if (request.store !== undefined && !(STORES as readonly string[]).includes(request.store)) {
        throw invalidField('store', `must be appstore or playstore (got "${request.store}")`);
      }
      const entries = localeEntries(matrix, locale).filter(
        (e) => request.store === undefined || e.store === request.store,
      );
      const details: ErrorDetail[] = [];
      (request.fields ?? []).forEach((field, index) => {
        const matching = entries.filter((e) => e.field === field);
        if (matching.length === 0)
          details.push({ field: `fields[${index}]`, message: `"${field}" is not a field to translate here` });
        else if (matching.every((e) => e.draft === null)) {
          details.push({ field: `fields[${index}]`, message: `${field} has no draft in ${locale}` });
        }
      });
      const candidates = entries.filter(
        (e) => e.draft !== null && (request.fields === undefined || request.fields.includes(e.field)),
      );
      const skipped: { store: Store; field: string; reason: string }[] = [];
      const accepted = candidates.filter((entry) => {
        const fit = rules.fitOf(entry, entry.draft!.text);
        if (!fit.overLimit) return true;
        const reason = `the draft is ${fit.length} characters, over the limit of ${fit.limit}: shorten it (edit the field) first`;
        if (request.fields !== undefined)
          details.push({ field: `${entry.store}/${entry.field}`, message: reason });
        else skipped.push({ store: entry.store, field: entry.field, reason });
        return false;
      });
      if (details.length > 0) {
        throw invalid(
          `Nothing accepted: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`,
          details,
        );
      }
      if (accepted.length === 0) {
        throw notFound(
          `Drafts to accept in ${locale}${skipped.length > 0 ? ` (${skipped.length} over the limit)` : ''}`,
        );
      }
      const batch: ListingEdits[] = [];
      const products: ProductEdit[] = [];
      const unchanged: Confirmation[] = [];
      for (const entry of accepted) {
        const draft = entry.draft!;
        if (draft.text === entry.target) {
          unchanged.push({
            store: entry.store,
            locale: entry.locale,
            field: entry.field,
            from: draft.sourceValue,
          });
          continue;
        }
        if (entry.product !== undefined) {
          addProductEdit(products, entry.store, entry, draft.text, draft.sourceValue);
          continue;
        }
        let item = batch.find((b) => b.store === entry.store);
        if (item === undefined) {
          item = { store: entry.store, locale: entry.locale, edits: {}, translatedFrom: {} };
          batch.push(item);
        }
        item.edits[entry.field] = draft.text;
        item.translatedFrom![entry.field] = draft.sourceValue;
      }
      await writeAll(ctx, project, batch, products, 'translation', async (trx) => {
        await confirm(trx, projectId, unchanged);
        await audit.record(
          trx,
          ctx,
          'translations.accept',
          { type: 'project', id: projectId },
          { locale, fields: accepted.map((e) => `${e.store}/${e.field}`) },
        );
      });
      return {
        locale,
        accepted: accepted.map((e) => ({ store: e.store, field: e.field })),
        skipped,
      };
    },
  };
}

export type TranslationsService = ReturnType<typeof createTranslationsService>;
