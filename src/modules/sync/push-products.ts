/**
 * The products part of a store's push (design.md §17, §18): plan from the changeset (conflicts and
 * texts over a limit left out before any store call) — a custom product page with its media slots
 * — one connector call that isolates each item, record what the store took, and fold the outcome
 * into the store's.
 */
import {
  StoreError,
  type MediaSlotChange,
  type ProductsReport,
  type StoreConnector,
} from '../../connectors/store-connector.js';
import { slotKey } from '../../shared/page-slots.js';
import { STORE_LABEL, type Store } from '../../shared/stores.js';
import type { RequestContext } from '../access/index.js';
import type { Changeset } from '../listings/index.js';
import { pagesWithMedia, type StoreMediaService } from '../media/index.js';
import { productField, type ProductsService } from '../products/index.js';
import type { Project } from '../projects/index.js';
import type { OperationControl } from './operation-runner.js';
import { appRef, type Failure, type LocaleWritten, type StorePushResult } from './sync.js';

export type ProductsPushDeps = {
  products: Pick<ProductsService, 'pushPlan' | 'recordPush'>;
  media: Pick<StoreMediaService, 'plan' | 'recordPush'>;
};

export function createProductsPush({ products, media }: ProductsPushDeps) {
  /** Each custom product page's slots a push writes, and those it leaves out (in conflict). */
  async function pageMedia(projectId: string, store: Store, changeset: Changeset, locales?: string[]) {
    const changes = changeset.media[store] ?? {};
    const slots = new Map<string, MediaSlotChange[]>();
    const conflicts: Failure[] = [];
    for (const pageId of store === 'appstore' ? pagesWithMedia(changes) : []) {
      const plan = await media.plan(projectId, changes, locales, pageId);
      if (plan.slots.length > 0) slots.set(pageId, plan.slots);
      for (const c of plan.conflicts) {
        conflicts.push({
          store,
          locale: c.locale,
          field: `media.${slotKey(c.slotType, pageId)}`,
          error: {
            code: 'CONFLICT',
            message: 'The store changed this slot too: edit it here to choose, then push',
          },
        });
      }
    }
    return { slots, conflicts };
  }

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
    const pages = await pageMedia(project.id, store, changeset, locales);
    const plan = await products.pushPlan(project.id, changeset, store, locales, pages.slots);
    if (plan.changes.length === 0 && plan.leftOut.length === 0 && pages.conflicts.length === 0)
      return listings;
    const failures: Failure[] = [
      ...plan.leftOut.map((o) => ({ store, locale: o.locale, field: o.field, error: o.error })),
      ...pages.conflicts,
    ];
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
            failures: [...new Set([...Object.keys(c.locales), ...(c.media ?? []).map((m) => m.locale)])].map(
              (locale) => ({ locale, field: null, error: refusal }),
            ),
          })),
        };
      }
    }
    await products.recordPush(project.id, store, plan, report);
    for (const result of report.results) {
      if (result.media !== undefined)
        await media.recordPush(project.id, store, result.media, result.productId);
      for (const slot of result.media ?? []) {
        for (const f of slot.failures) {
          failures.push({
            store,
            locale: f.locale,
            field: `media.${slotKey(f.slotType, result.productId)}`,
            ...(f.sha256 !== null && { sha256: f.sha256 }),
            error: f.error,
          });
        }
      }
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
    for (const slot of result.media ?? []) {
      if (slot.failures.length > 0) continue;
      row(slot.locale).mediaSlots += 1;
      row(slot.locale).mediaItems += slot.uploaded;
    }
  }
  for (const failure of failures) if (failure.locale !== null) row(failure.locale).failures += 1;
  const allFailures = [...listings.failures, ...failures];
  const productsWritten = report.results.filter(
    (r) =>
      r.failures.length === 0 &&
      (r.media ?? []).every((m) => m.failures.length === 0) &&
      (r.written.length > 0 || (r.media ?? []).length > 0),
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
  const locales = [
    ...new Set([
      ...listings.locales,
      ...report.results.flatMap((r) => [
        ...r.written,
        ...(r.media ?? []).filter((m) => m.failures.length === 0).map((m) => m.locale),
      ]),
    ]),
  ].sort();
  return {
    outcome,
    locales,
    failures: allFailures,
    written: [...rows.values()].sort((a, b) => (a.locale < b.locale ? -1 : a.locale > b.locale ? 1 : 0)),
  };
}
