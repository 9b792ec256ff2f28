import { invalidField } from '../../errors.js';
import type { FieldChange, ListingDiff } from '../listings/listing.js';
import { isLinked, STORE_IDENTIFIER, type Project } from '../projects/project.js';
import { isStoreLocale, STORES, type Store } from '../stores/locales.js';

export type StoreSelection = Store | 'both';

export interface OutcomeError {
  /** STORE_NOT_LINKED, STORE_NOT_CONFIGURED, or a store-side failure code. */
  code: string;
  message: string;
}

export interface SyncOutcome {
  synced: boolean;
  locales: number;
  /** Fields changed both here and in the store since the last sync. */
  conflicts?: number;
  error?: OutcomeError;
}

/** Something a store refused or could not do; locale and field when the store said which. */
export interface Failure {
  store: Store;
  locale: string | null;
  field: string | null;
  error: OutcomeError;
}

export interface OperationRecord {
  id: string;
  kind: 'sync' | 'push';
  status: 'running' | 'succeeded' | 'partial' | 'failed';
  actor: { memberId: string | null };
  stores: Store[];
  locales: string[] | null;
  outcome: Record<string, unknown> | null;
  startedAt: string;
  finishedAt: string | null;
}

export interface PushOutcome {
  pushed: boolean;
  locales: number;
  error?: OutcomeError;
}

export interface SyncResult {
  syncedLocales: string[];
  appStore: SyncOutcome;
  playStore: SyncOutcome;
  conflicts: {
    store: Store;
    locale: string;
    field: string;
    localValue: string | null;
    storeValue: string | null;
  }[];
  failures: Failure[];
}

export interface PushResult {
  pushedLocales: string[];
  appStore: PushOutcome;
  playStore: PushOutcome;
  failures: Failure[];
}

/** A dry run of a push: the changes it would write, per store and locale. */
export interface PushPreview {
  dryRun: true;
  stores: Store[];
  changeCount: number;
  changes: Partial<Record<Store, Record<string, Record<string, FieldChange>>>>;
  approval: ListingDiff['approval'];
}

export const STORE_LABEL: Record<Store, string> = { appstore: 'App Store', playstore: 'Google Play' };
/**
 * The stores an operation runs on. Naming a store the project has no identifier for is 400
 * (design.md §9); `both` runs on the linked ones and is 400 only when none is linked.
 */
export function selectStores(project: Project, selection: StoreSelection): Store[] {
  if (selection !== 'both') {
    if (!isLinked(project, selection)) {
      throw invalidField(
        'store',
        `the project has no ${STORE_IDENTIFIER[selection]}; set it with PATCH /projects/:projectId`,
      );
    }
    return [selection];
  }
  const linked = STORES.filter((store) => isLinked(project, store));
  if (linked.length === 0) {
    throw invalidField(
      'store',
      'the project is linked to no store; set appStoreAppId or playStorePackageName first',
    );
  }
  return linked;
}

/** The outcome for a store that was not part of the run. */
export const notLinked = (store: Store): OutcomeError => ({
  code: 'STORE_NOT_LINKED',
  message: `The project has no ${STORE_IDENTIFIER[store]}`,
});

/** Checks a push's locale filter: each code must be valid in at least one of the selected stores. */
export function normalizeLocaleFilter(locales: string[] | undefined, stores: Store[]): string[] | undefined {
  if (locales === undefined) return undefined;
  locales.forEach((locale, index) => {
    if (!stores.some((store) => isStoreLocale(store, locale))) {
      throw invalidField(
        `locales[${index}]`,
        `"${locale}" is not a locale code of ${stores.map((s) => STORE_LABEL[s]).join(' or ')}`,
      );
    }
  });
  return [...new Set(locales)];
}
