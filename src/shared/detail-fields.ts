/**
 * App details and App Review information (design.md §19, stores-more.md §C): every field of each
 * store, what it holds, how it is checked, and where fastlane keeps it. Values are strings as the
 * API takes them (`demoAccountRequired` "true"/"false"); the demo account password is a secret:
 * stored encrypted, never shown. Free of Node APIs: the dashboard reads these rules too.
 */
import { codePoints } from './listing-fields.js';
import { isStoreLocale, type Store } from './stores.js';

export type DetailKind = 'text' | 'email' | 'phone' | 'url' | 'category' | 'language' | 'boolean' | 'secret';

export interface DetailRule {
  label: string;
  kind: DetailKind;
  max?: number;
  min?: number;
  /**
   * The file under fastlane's metadata folder (deliver) or GPP's play folder that holds it; none
   * for demoAccountRequired, which deliver derives (true when both demo name and password are set).
   */
  file?: string;
}

export const DETAIL_FIELDS: Readonly<Record<Store, Readonly<Record<string, DetailRule>>>> = {
  appstore: {
    copyright: { label: 'Copyright', kind: 'text', max: 200, file: 'copyright.txt' },
    primaryCategory: { label: 'Primary category', kind: 'category', file: 'primary_category.txt' },
    secondaryCategory: { label: 'Secondary category', kind: 'category', file: 'secondary_category.txt' },
    'review.contactFirstName': {
      label: 'Contact first name',
      kind: 'text',
      max: 100,
      file: 'review_information/first_name.txt',
    },
    'review.contactLastName': {
      label: 'Contact last name',
      kind: 'text',
      max: 100,
      file: 'review_information/last_name.txt',
    },
    'review.contactPhone': {
      label: 'Contact phone',
      kind: 'phone',
      file: 'review_information/phone_number.txt',
    },
    'review.contactEmail': {
      label: 'Contact e-mail',
      kind: 'email',
      file: 'review_information/email_address.txt',
    },
    'review.demoAccountName': {
      label: 'Demo account name',
      kind: 'text',
      max: 200,
      file: 'review_information/demo_user.txt',
    },
    'review.demoAccountPassword': {
      label: 'Demo account password',
      kind: 'secret',
      max: 200,
      file: 'review_information/demo_password.txt',
    },
    'review.demoAccountRequired': { label: 'Demo account required', kind: 'boolean' },
    'review.notes': { label: 'Notes', kind: 'text', min: 2, max: 4000, file: 'review_information/notes.txt' },
  },
  playstore: {
    contactEmail: { label: 'Contact e-mail', kind: 'email', file: 'contact-email.txt' },
    contactPhone: { label: 'Contact phone', kind: 'text', max: 50, file: 'contact-phone.txt' },
    contactWebsite: { label: 'Contact website', kind: 'url', file: 'contact-website.txt' },
    defaultLanguage: { label: 'Default language', kind: 'language', file: 'default-language.txt' },
  },
};

/**
 * Apple's category ids (stores-more.md §C2): the top-level ones; GAMES and STICKERS also have
 * subcategories, which appmeta does not set.
 */
export const APP_CATEGORIES: readonly string[] = [
  'BOOKS',
  'BUSINESS',
  'DEVELOPER_TOOLS',
  'EDUCATION',
  'ENTERTAINMENT',
  'FINANCE',
  'FOOD_AND_DRINK',
  'GAMES',
  'GRAPHICS_AND_DESIGN',
  'HEALTH_AND_FITNESS',
  'LIFESTYLE',
  'MAGAZINES_AND_NEWSPAPERS',
  'MEDICAL',
  'MUSIC',
  'NAVIGATION',
  'NEWS',
  'PHOTO_AND_VIDEO',
  'PRODUCTIVITY',
  'REFERENCE',
  'SHOPPING',
  'SOCIAL_NETWORKING',
  'SPORTS',
  'STICKERS',
  'TRAVEL',
  'UTILITIES',
  'WEATHER',
];

export const detailRule = (store: Store, field: string): DetailRule | undefined =>
  Object.hasOwn(DETAIL_FIELDS[store], field) ? DETAIL_FIELDS[store][field] : undefined;

export const isSecretDetail = (store: Store, field: string) => detailRule(store, field)?.kind === 'secret';

/** What is wrong with a value of a field (null clears it), or null when nothing is. */
export function checkDetail(store: Store, field: string, value: string | null): string | null {
  const rule = detailRule(store, field);
  if (rule === undefined)
    return `is not a detail of ${store} (${Object.keys(DETAIL_FIELDS[store]).join(', ')})`;
  if (value === null || value === '') {
    if (field === 'primaryCategory') return 'is required: an app has a primary category';
    if (field === 'defaultLanguage') return 'is required: a Google Play app has a default language';
    if (field === 'contactEmail' && store === 'playstore')
      return 'is required: Google Play needs a contact e-mail';
    return null;
  }
  const length = codePoints(value);
  if (rule.max !== undefined && length > rule.max)
    return `must be at most ${rule.max} characters (has ${length})`;
  if (rule.min !== undefined && length < rule.min)
    return `must be at least ${rule.min} characters (has ${length})`;
  switch (rule.kind) {
    case 'email':
      return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value) ? null : 'must be an e-mail address';
    case 'phone':
      return /^\+\d[\d\s-]{5,}$/.test(value)
        ? null
        : 'must start with + and the country code (App Store Connect refuses other formats)';
    case 'url':
      return /^https?:\/\/\S+$/.test(value) ? null : 'must be an http(s) URL';
    case 'category':
      return APP_CATEGORIES.includes(value)
        ? null
        : `is not an App Store category; one of ${APP_CATEGORIES.join(', ')}`;
    case 'language':
      return isStoreLocale(store, value) ? null : `is not a ${store} language code`;
    case 'boolean':
      return value === 'true' || value === 'false' ? null : 'must be true or false';
    default:
      return null;
  }
}
