/** Rules shared by sync and push: which stores a request runs on, which locales it may name. */
import { invalidField } from '../../errors.js';
import {
  isStoreLocale,
  STORE_LABEL,
  STORES,
  suggestLocales,
  type Store,
  type StoreSelection,
} from '../../shared/stores.js';
import { isLinked, STORE_IDENTIFIER, type Project } from '../projects/index.js';
import type { Failure, LocaleWritten, OutcomeError, PushOutcome } from './sync.schemas.js';

export type {
  Failure,
  LocaleWritten,
  MediaPreview,
  OperationRecord,
  OutcomeError,
  PushInput,
  PushOutcome,
  PushPreview,
  PushResult,
  SyncInput,
  SyncOutcome,
  SyncResult,
} from './sync.schemas.js';

/** What a push did on one store: the outcome reported, and per locale what was written of each kind. */
export interface StorePushResult {
  outcome: PushOutcome;
  locales: string[];
  failures: Failure[];
  written: LocaleWritten[];
}

/** What a sync or push takes part in: listings (texts, media, release notes) and products (design.md §17). */
export type IncludedPart = 'listings' | 'products' | 'details';

/** Whether a request takes `part` in: every part unless it names `include` without it. */
export const includes = (input: { include?: IncludedPart[] | undefined }, part: IncludedPart) =>
  input.include === undefined || input.include.includes(part);

/** The key of a store's outcome in sync and push results. */
export const storeKey = (store: Store) => (store === 'appstore' ? 'appStore' : 'playStore');

/** The project's identifier in a store: the App Store app id, the Google Play package name. */
export const appRef = (project: Project, store: Store) =>
  (store === 'appstore' ? project.appStoreAppId : project.playStorePackageName) as string;

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

/** The outcome for a store that was not part of the run: not linked, or linked but not asked for. */
export const skipped = (project: Project, store: Store): OutcomeError =>
  isLinked(project, store)
    ? { code: 'NOT_REQUESTED', message: `${STORE_LABEL[store]} was not part of this request` }
    : { code: 'STORE_NOT_LINKED', message: `The project has no ${STORE_IDENTIFIER[store]}` };

/** How an admin gives the organization a store's credentials. */
const HOW_TO_SET: Record<Store, string> = {
  appstore:
    'an admin sets them with PUT /api/v1/organization/credentials/appstore {"issuerId", "keyId", "privateKey"} ' +
    '(an App Store Connect API key: Users and Access → Integrations)',
  playstore:
    'an admin sets them with PUT /api/v1/organization/credentials/playstore {"serviceAccount"} ' +
    "(the JSON key of a Google Cloud service account invited in the Play Console's Users and permissions)",
};

/** A store the organization has no credentials for. */
export const credentialsMissing = (store: Store): OutcomeError => ({
  code: 'CREDENTIALS_MISSING',
  message: `No ${STORE_LABEL[store]} credentials are set for this organization: ${HOW_TO_SET[store]}`,
});

/** Checks a push's locale filter: each code must be valid in at least one of the selected stores. */
export function normalizeLocaleFilter(locales: string[] | undefined, stores: Store[]): string[] | undefined {
  if (locales === undefined) return undefined;
  locales.forEach((locale, index) => {
    if (!stores.some((store) => isStoreLocale(store, locale))) {
      const suggestions = [...new Set(stores.flatMap((store) => suggestLocales(store, locale)))].slice(0, 3);
      throw invalidField(
        `locales[${index}]`,
        `"${locale}" is not a locale code of ${stores.map((s) => STORE_LABEL[s]).join(' or ')}` +
          (suggestions.length > 0 ? `; did you mean ${suggestions.join(', ')}?` : ''),
      );
    }
  });
  return [...new Set(locales)];
}
