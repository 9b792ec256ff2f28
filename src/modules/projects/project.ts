import { AppError, invalid, type ErrorDetail } from '../../errors.js';
import { normalizeName } from '../organizations/index.js';
import { isCommonLocale, type Store } from '../../shared/stores.js';

export interface Project {
  id: string;
  name: string;
  appStoreAppId: string | null;
  playStorePackageName: string | null;
  /** The locale translations are made from (design.md §14); null follows the organization's defaultLocale. */
  sourceLocale: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The project field that links it to each store. */
export const STORE_IDENTIFIER = {
  appstore: 'appStoreAppId',
  playstore: 'playStorePackageName',
} as const satisfies Record<Store, keyof Project>;

export const isLinked = (project: Project, store: Store): boolean =>
  project[STORE_IDENTIFIER[store]] !== null;

export interface ProjectMetadata {
  /** Sorted union of the locales that have a listing in either store. */
  locales: string[];
  /** Last sync that reached at least one store. */
  lastSyncedAt: string | null;
}

export interface ProjectWithMetadata extends Project {
  metadata: ProjectMetadata;
}

/** Apple's numeric app id (the "Apple ID" of App Store Connect). */
export const APP_STORE_APP_ID_PATTERN = /^[0-9]{1,20}$/;
/** A Java package name, as Google Play requires for an application id (design.md §7). */
export const PACKAGE_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_]*(\.[a-zA-Z][a-zA-Z0-9_]*)+$/;
export const PACKAGE_NAME_MAX = 150;

export interface ProjectInput {
  name?: string;
  appStoreAppId?: string | null;
  playStorePackageName?: string | null;
  sourceLocale?: string | null;
}

/**
 * Checks and normalizes the fields present in a create or update (design.md §7); every bad field
 * is reported at once.
 */
export function normalizeProjectInput(input: ProjectInput): ProjectInput {
  const out: ProjectInput = {};
  const details: ErrorDetail[] = [];
  const check = (field: string, work: () => void) => {
    try {
      work();
    } catch (error) {
      if (!(error instanceof AppError) || error.details === undefined) throw error;
      details.push(...error.details);
    }
  };
  if (input.name !== undefined) check('name', () => (out.name = normalizeName('name', input.name!)));
  if (input.appStoreAppId !== undefined) {
    const id = input.appStoreAppId;
    if (id !== null && !APP_STORE_APP_ID_PATTERN.test(id)) {
      details.push({ field: 'appStoreAppId', message: 'must be the numeric App Store app id (digits only)' });
    } else out.appStoreAppId = id;
  }
  if (input.playStorePackageName !== undefined) {
    const pkg = input.playStorePackageName;
    if (pkg !== null && (pkg.length > PACKAGE_NAME_MAX || !PACKAGE_NAME_PATTERN.test(pkg))) {
      details.push({
        field: 'playStorePackageName',
        message: 'must be a package name such as com.example.app',
      });
    } else out.playStorePackageName = pkg;
  }
  if (input.sourceLocale !== undefined) {
    const locale = input.sourceLocale;
    if (locale !== null && !isCommonLocale(locale)) {
      details.push({
        field: 'sourceLocale',
        message:
          'must be a locale code that both stores accept, e.g. en-US, de-DE, fr-FR (or null for the organization default)',
      });
    } else out.sourceLocale = locale;
  }
  if (details.length > 0) {
    throw invalid(`Invalid project: ${details.map((d) => `${d.field} ${d.message}`).join('; ')}`, details);
  }
  return out;
}
