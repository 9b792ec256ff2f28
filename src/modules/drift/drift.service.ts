/**
 * Drift detection (design.md §11): a scheduled read of each linked store that changes nothing,
 * here or in the store. Fields whose store value differs from the base (what the store had at the
 * last sync or push) were edited in the store's own console: they are recorded on the project
 * (GET .../diff shows them) and reported once as `drift.detected`. Checks are spread over the
 * organization's interval by a fixed phase per project, and a sync clears what it merged.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { StoreError, type StoreDetails, type StoreProduct } from '../../connectors/store-connector.js';
import type { Executor } from '../../db/database.js';
import type { JobQueue } from '../../jobs/index.js';
import type { Clock } from '../../shared/clock.js';
import { detailRule, isSecretDetail } from '../../shared/detail-fields.js';
import { STORES, type Store } from '../../shared/stores.js';
import type { CredentialsService } from '../credentials/index.js';
import type { Outbox } from '../events/index.js';
import { parseSettings } from '../organizations/index.js';
import { productField } from '../products/index.js';
import {
  claimDriftCheck,
  clearStoreDrift,
  detailBases,
  linkedProjects,
  listingBases,
  productBases,
  projectToCheck,
  recordedDrift,
  replaceDrift,
} from './drift.repository.js';

export interface DriftedField {
  store: Store;
  locale: string;
  /** The field, or `*` for a locale that exists in the store but not here. */
  field: string;
  base: string | null;
  storeValue: string | null;
}

/** Where in each interval a project's check falls: fixed per project, spread evenly. */
const phaseOf = (projectId: string, periodMs: number) =>
  createHash('sha256').update(projectId).digest().readUInt32BE(0) % periodMs;

const linkedStores = (row: { app_store_app_id: string | null; play_store_package_name: string | null }) =>
  STORES.filter(
    (store) => (store === 'appstore' ? row.app_store_app_id : row.play_store_package_name) !== null,
  );

export function createDriftDetection(deps: {
  db: Executor;
  clock: Clock;
  queue: JobQueue;
  outbox: Outbox;
  credentials: Pick<CredentialsService, 'connectorFor'>;
}) {
  const { db, clock, queue, outbox, credentials } = deps;

  /** The fields of a store whose value differs from the base. */
  async function differences(
    projectId: string,
    store: Store,
    snapshot: Map<string, Record<string, string | null>>,
  ) {
    const rows = await listingBases(db, projectId, store);
    const bases = new Map<string, Map<string, string | null>>();
    for (const row of rows) {
      const fields = bases.get(row.locale) ?? new Map<string, string | null>();
      fields.set(row.field, row.base);
      bases.set(row.locale, fields);
    }
    const found: DriftedField[] = [];
    for (const [locale, fields] of snapshot) {
      const known = bases.get(locale);
      if (known === undefined) {
        found.push({ store, locale, field: '*', base: null, storeValue: null });
        continue;
      }
      for (const [field, value] of Object.entries(fields)) {
        const base = known.get(field) ?? null;
        if ((value ?? null) !== base) found.push({ store, locale, field, base, storeValue: value ?? null });
      }
    }
    return found;
  }

  /**
   * Product texts that differ from their base (`products.<productId>.<field>`), and products the
   * store has that are not here (`products.<productId>.*`, once per locale).
   */
  async function productDifferences(projectId: string, store: Store, products: StoreProduct[]) {
    const { texts, products: known } = await productBases(db, projectId, store);
    const bases = new Map(texts.map((t) => [`${t.product_id}\u0000${t.locale}\u0000${t.field}`, t.base]));
    const found: DriftedField[] = [];
    for (const product of products) {
      for (const [locale, fields] of product.texts) {
        if (!known.includes(product.productId)) {
          found.push({
            store,
            locale,
            field: productField(product.productId, '*'),
            base: null,
            storeValue: null,
          });
          continue;
        }
        for (const [field, value] of Object.entries(fields)) {
          const base = bases.get(`${product.productId}\u0000${locale}\u0000${field}`) ?? null;
          if ((value || null) !== base) {
            found.push({
              store,
              locale,
              field: productField(product.productId, field),
              base,
              storeValue: value ?? null,
            });
          }
        }
      }
    }
    return found;
  }

  /**
   * App details that differ from their base (`details.<field>`, no locale). The demo account
   * password is left out: its base is sealed, and a drift record would keep the store's in the clear.
   */
  async function detailDifferences(projectId: string, store: Store, details: StoreDetails) {
    const bases = new Map((await detailBases(db, projectId, store)).map((row) => [row.field, row.base]));
    const found: DriftedField[] = [];
    for (const [field, raw] of Object.entries(details)) {
      if (isSecretDetail(store, field) || detailRule(store, field) === undefined) continue;
      const value = typeof raw === 'boolean' ? String(raw) : raw || null;
      const base = bases.get(field) ?? null;
      if (value !== base)
        found.push({ store, locale: '', field: `details.${field}`, base, storeValue: value });
    }
    return found;
  }

  const keyOf = (d: Pick<DriftedField, 'locale' | 'field' | 'storeValue'>) =>
    `${d.locale}\u0000${d.field}\u0000${d.storeValue ?? '\u0001'}`;

  return {
    /**
     * The `drift.check` job: reads each linked store of the project, writes nothing there; answers
     * what it found (a schedule checks its fields against it before it pushes).
     */
    async check(projectId: string, log: Logger): Promise<DriftedField[]> {
      const project = await projectToCheck(db, projectId);
      if (project === undefined) return [];
      const all: DriftedField[] = [];
      for (const store of linkedStores(project)) {
        const client = await credentials.connectorFor(project.organization_id, store);
        if (client === null) continue;
        const appRef = (store === 'appstore' ? project.app_store_app_id : project.play_store_package_name)!;
        let snapshot;
        try {
          // Drift is about texts: no media or release reads spend the store's call budget.
          snapshot = (await client.read(appRef, { media: false, releases: false })).snapshot;
        } catch (error) {
          if (!(error instanceof StoreError)) throw error;
          log.warn({ projectId, store, code: error.code }, 'drift check: the store could not be read');
          continue;
        }
        const found = await differences(projectId, store, snapshot);
        // Products too, when the store lets them be read; a refusal there leaves the texts' drift.
        try {
          const { products } = await client.readProducts(appRef);
          found.push(...(await productDifferences(projectId, store, products)));
        } catch (error) {
          if (!(error instanceof StoreError)) throw error;
          log.warn({ projectId, store, code: error.code }, 'drift check: the products could not be read');
        }
        try {
          const { details } = await client.readDetails(appRef);
          found.push(...(await detailDifferences(projectId, store, details)));
        } catch (error) {
          if (!(error instanceof StoreError)) throw error;
          log.warn({ projectId, store, code: error.code }, 'drift check: the details could not be read');
        }
        const at = clock.now().toISOString();
        await db.transaction().execute(async (trx) => {
          const before = await recordedDrift(trx, projectId, store);
          const known = new Set(
            before.map((r) => keyOf({ locale: r.locale, field: r.field, storeValue: r.store_value })),
          );
          const fresh = found.filter((d) => !known.has(keyOf(d)));
          await replaceDrift(
            trx,
            projectId,
            store,
            found.map((d) => ({
              locale: d.locale,
              field: d.field,
              base_value: d.base,
              store_value: d.storeValue,
              detected_at: at,
            })),
          );
          // Reported once per difference: the same drift found again an hour later says nothing new.
          if (fresh.length > 0) {
            await outbox.emit(trx, project.organization_id, 'drift.detected', {
              projectId,
              store,
              fields: found.map(({ locale, field, base, storeValue }) => ({
                locale,
                field,
                base,
                storeValue,
              })),
            });
          }
        });
        if (found.length > 0) log.info({ projectId, store, fields: found.length }, 'drift found');
        all.push(...found);
      }
      return all;
    },

    /**
     * Queues the checks that are due (run every minute by each worker): a project's check is due
     * once its phase in the current interval has passed since its last check. Claimed with a
     * compare-and-set on the project, so two instances never queue the same check.
     */
    async schedule(): Promise<number> {
      const now = clock.now().getTime();
      const rows = await linkedProjects(db).execute();
      let queued = 0;
      for (const row of rows) {
        const minutes = parseSettings(row.settings).driftCheckMinutes;
        if (minutes === 0) continue;
        const period = minutes * 60_000;
        const phase = phaseOf(row.id, period);
        const slot = Math.floor((now - phase) / period) * period + phase;
        const last = row.drift_checked_at === null ? null : Date.parse(row.drift_checked_at);
        if (last !== null && last >= slot) continue;
        await db.transaction().execute(async (trx) => {
          const claimed = await claimDriftCheck(
            trx,
            row.id,
            row.drift_checked_at,
            new Date(now).toISOString(),
          );
          // A project seen for the first time starts at its phase, not now: checks stay spread.
          if (claimed && last !== null) {
            await queue.enqueue(trx, 'drift.check', { projectId: row.id });
            queued += 1;
          }
        });
      }
      if (queued > 0) queue.wake('drift.check');
      return queued;
    },
  };
}

export type DriftDetection = ReturnType<typeof createDriftDetection>;

/** Forgets the drift of a project's store: a sync made what the store holds the base. */
export const forgetDrift = clearStoreDrift;
