/**
 * The products part of a store's push (design.md §17): plan from the changeset (conflicts and texts
 * over a limit left out before any store call), one connector call that isolates each product,
 * record what the store took, and fold the outcome into the store's.
 */
import { StoreError, type ProductsReport, type StoreConnector } from '../../connectors/store-connector.js';
import { STORE_LABEL, type Store } from '../../shared/stores.js';
import type { RequestContext } from '../access/index.js';
import type { Changeset } from '../listings/index.js';
import { productField, type ProductsService } from '../products/index.js';
import type { Project } from '../projects/index.js';
import type { OperationControl } from './operation-runner.js';
import { appRef, type Failure, type LocaleWritten, type StorePushResult } from './sync.js';

export type ProductsPushDeps = { products: Pick<ProductsService, 'pushPlan' | 'recordPush'> };

export function createProductsPush({ products }: ProductsPushDeps) {
  return async function pushProducts(
    ctx: RequestContext,
    project: Project,
    store: Store,
    changeset: Changeset,
    locales: string[] | undefined,
    connectorFor: () => Promise<StoreConnector | null>,
    control: OperationControl,
    listings: StorePushResult,
  ): Promise<StorePushResult> {
    const plan = await products.pushPlan(project.id, changeset, store, locales);
    if (plan.changes.length === 0 && plan.leftOut.length === 0) return listings;
    const failures: Failure[] = plan.leftOut.map((o) => ({
      store,
      locale: o.locale,
      field: o.field,
      error: o.error,
    }));
    let report: ProductsReport = { results: [], calls: 0 };
    if (plan.changes.length > 0) {
      control.expectProducts(store, plan.changes.length);
      const client = await connectorFor();
      try {
        if (client === null)
          throw new StoreError(
            store,
            'CREDENTIALS_MISSING',
            `No ${STORE_LABEL[store]} credentials`,
            null,
            false,
          );
        report = await client.writeProducts(appRef(project, store), plan.changes, {
          beforeWrite: control.beforeWrite(store),
          onProduct: (_productId, state) => control.productItem(store, state),
        });
      } catch (error) {
        if (!(error instanceof StoreError)) throw error;
        const refusal = { code: error.code, message: error.message };
        report = {
          calls: 0,
          results: plan.changes.map((c) => ({
            productId: c.productId,
            written: [],
            failures: Object.keys(c.locales).map((locale) => ({ locale, field: null, error: refusal })),
          })),
        };
      }
    }
    await products.recordPush(project.id, store, plan, report);
    for (const result of report.results) {
      for (const f of result.failures) {
        failures.push({
          store,
          locale: f.locale,
          field: f.field === null ? `products.${result.productId}` : productField(result.productId, f.field),
          error: f.error,
        });
      }
    }
    ctx.log.info(
      { store, calls: report.calls, products: plan.changes.length, failed: failures.length },
      'store products written',
    );
    return merged(store, listings, plan.changes, report, failures);
  };
}

/** The store's outcome with its products' added: counts, failures, and per locale what was taken. */
function merged(
  store: Store,
  listings: StorePushResult,
  changes: { productId: string; locales: Record<string, Record<string, unknown>> }[],
  report: ProductsReport,
  failures: Failure[],
): StorePushResult {
  const rows = new Map<string, LocaleWritten>(listings.written.map((w) => [w.locale, { ...w }]));
  const row = (locale: string) => {
    let found = rows.get(locale);
    if (found === undefined) {
      found = {
        store,
        locale,
        fields: 0,
        mediaSlots: 0,
        mediaItems: 0,
        releaseNotes: 0,
        products: 0,
        failures: 0,
      };
      rows.set(locale, found);
    }
    return found;
  };
  for (const result of report.results) {
    const change = changes.find((c) => c.productId === result.productId);
    for (const locale of result.written)
      row(locale).products += Object.keys(change?.locales[locale] ?? {}).length;
  }
  for (const failure of failures) if (failure.locale !== null) row(failure.locale).failures += 1;
  const allFailures = [...listings.failures, ...failures];
  const productsWritten = report.results.filter(
    (r) => r.failures.length === 0 && r.written.length > 0,
  ).length;
  const outcome = {
    ...listings.outcome,
    pushed: listings.outcome.pushed && failures.length === 0,
    products: productsWritten,
  };
  if (allFailures.length > 0 && (outcome.error === undefined || outcome.error.code === 'PARTIAL_FAILURE')) {
    outcome.error = {
      code: 'PARTIAL_FAILURE',
      message: `${allFailures.length} change(s) were not accepted by ${STORE_LABEL[store]}; see data.failures`,
    };
  }
  const locales = [...new Set([...listings.locales, ...report.results.flatMap((r) => r.written)])].sort();
  return {
    outcome,
    locales,
    failures: allFailures,
    written: [...rows.values()].sort((a, b) => (a.locale < b.locale ? -1 : a.locale > b.locale ? 1 : 0)),
  };
}
