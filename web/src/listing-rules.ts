/**
 * The listing rules of the server, imported as they are (one rule table for server and browser):
 * fields, limits, code-point counting, validation and warnings.
 */
export {
  APPSTORE_FIELDS,
  checkFieldValue,
  codePoints,
  listingWarnings,
  PLAYSTORE_FIELDS,
  STORE_FIELDS,
  utf8Bytes,
  type FieldRule,
} from '../../src/shared/listing-fields';

export type Store = 'appstore' | 'playstore';
export const STORES: readonly Store[] = ['appstore', 'playstore'];
export const STORE_NAMES: Record<Store, string> = { appstore: 'App Store', playstore: 'Google Play' };
