/**
 * The listing fields of each store and their limits (design.md §9, stores.md §3). Lengths are
 * counted in Unicode code points, the safe reading of "characters" for both stores. The dashboard
 * imports this file as it is, so the browser counts and checks with the same rules: keep it free
 * of Node APIs.
 */
import { textProblem } from './text.js';
import type { Store } from './stores.js';

export type FieldKind = 'text' | 'keywords' | 'url';

export interface FieldRule {
  kind: FieldKind;
  min?: number;
  max?: number;
  label: string;
  /** One line: tabs and line breaks are refused. */
  singleLine?: boolean;
}

export const APPSTORE_FIELDS = {
  name: { kind: 'text', min: 2, max: 30, label: 'App name', singleLine: true },
  subtitle: { kind: 'text', max: 30, label: 'Subtitle', singleLine: true },
  description: { kind: 'text', max: 4000, label: 'Description' },
  keywords: { kind: 'keywords', max: 100, label: 'Keywords', singleLine: true },
  promotionalText: { kind: 'text', max: 170, label: 'Promotional text' },
  whatsNew: { kind: 'text', max: 4000, label: "What's new" },
  marketingUrl: { kind: 'url', label: 'Marketing URL' },
  supportUrl: { kind: 'url', label: 'Support URL' },
  privacyPolicyUrl: { kind: 'url', label: 'Privacy policy URL' },
} as const satisfies Record<string, FieldRule>;

export const PLAYSTORE_FIELDS = {
  title: { kind: 'text', max: 30, label: 'Title', singleLine: true },
  shortDescription: { kind: 'text', max: 80, label: 'Short description' },
  fullDescription: { kind: 'text', max: 4000, label: 'Full description' },
  video: { kind: 'url', label: 'Promo video URL' },
} as const satisfies Record<string, FieldRule>;

export type AppStoreField = keyof typeof APPSTORE_FIELDS;
export type PlayStoreField = keyof typeof PLAYSTORE_FIELDS;
export type ListingField = AppStoreField | PlayStoreField;

export const STORE_FIELDS: Record<Store, Readonly<Record<string, FieldRule>>> = {
  appstore: APPSTORE_FIELDS,
  playstore: PLAYSTORE_FIELDS,
};

export const fieldNames = (store: Store): string[] => Object.keys(STORE_FIELDS[store]);

export const isStoreField = (store: Store, field: string): boolean =>
  Object.hasOwn(STORE_FIELDS[store], field);

/**
 * The rule of a store field, or undefined. Own properties only: a field named "constructor" or
 * "__proto__" must not find Object.prototype's members.
 */
export const ruleOf = (store: Store, field: string): FieldRule | undefined =>
  isStoreField(store, field) ? STORE_FIELDS[store][field] : undefined;

/** Unicode code points: an emoji with a skin tone counts 2, "é" written as e + U+0301 counts 2. */
/** Whether a field holds one line (names, keywords, URLs): surrounding whitespace is no part of it. */
export const isSingleLine = (store: Store, field: string): boolean => {
  const rule = ruleOf(store, field);
  return rule !== undefined && (rule.singleLine === true || rule.kind === 'url');
};

export const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

const KEYWORDS_BYTE_BUDGET = 100;

/** UTF-8 length, the unit of Apple's keyword guidance (TextEncoder: the dashboard runs this file too). */
export const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;

/** What is wrong with a value: the message, and for a length rule its limit and the value's length. */
export interface FieldProblem {
  message: string;
  limit?: number;
  length?: number;
}

const URL_MAX = 2048;

/** The problem with a value, or null when it is acceptable. `null` values always are. */
export function checkFieldValue(store: Store, field: string, value: string | null): FieldProblem | null {
  const rule = ruleOf(store, field);
  if (rule === undefined) {
    return { message: `is not a ${store} listing field (fields: ${fieldNames(store).join(', ')})` };
  }
  if (value === null) return null;
  const textRule = textProblem(value, {
    singleLine: isSingleLine(store, field),
    visible: true,
  });
  if (textRule !== null) return { message: textRule };
  if (rule.kind === 'url') {
    if (!isHttpUrl(value)) return { message: 'must be an http(s) URL' };
    if (value.length > URL_MAX) {
      return { message: `must be at most ${URL_MAX} characters`, limit: URL_MAX, length: value.length };
    }
    return null;
  }
  const length = codePoints(value);
  if (rule.max !== undefined && length > rule.max) {
    return { message: `must be at most ${rule.max} characters (has ${length})`, limit: rule.max, length };
  }
  if (rule.min !== undefined && length < rule.min) {
    return { message: `must be at least ${rule.min} characters (has ${length})`, limit: rule.min, length };
  }
  return null;
}

export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0 && !/\s/.test(value)
    );
  } catch {
    return false;
  }
}

export interface Warning {
  field: string;
  message: string;
}

const PLACEHOLDER = /lorem ipsum|dolor sit amet|placeholder text|\[insert [^\]]*\]/i;
const OTHER_PLATFORM: Record<Store, RegExp> = {
  appstore: /\b(android|google play|play store)\b/i,
  playstore: /\b(ios|iphone|ipad|app store|apple watch)\b/i,
};

/**
 * Advice that does not block a write (returned as data.warnings): keyword hygiene, the app name
 * repeated in keywords, the other platform named, placeholder text, keywords over 100 bytes.
 */
export function listingWarnings(store: Store, values: Readonly<Record<string, string | null>>): Warning[] {
  const warnings: Warning[] = [];
  for (const [field, value] of Object.entries(values)) {
    if (value === null) continue;
    const rule = ruleOf(store, field);
    if (rule === undefined || rule.kind === 'url') continue;
    if (PLACEHOLDER.test(value)) warnings.push({ field, message: 'looks like placeholder text' });
    const other = OTHER_PLATFORM[store].exec(value);
    if (other) {
      warnings.push({
        field,
        message: `mentions "${other[0]}": stores may reject listings that refer to the other platform`,
      });
    }
  }
  const keywords = values.keywords;
  if (store === 'appstore' && typeof keywords === 'string' && keywords.length > 0) {
    warnings.push(...keywordWarnings(keywords, values.name ?? null));
  }
  return warnings;
}

function keywordWarnings(keywords: string, appName: string | null): Warning[] {
  const warnings: Warning[] = [];
  const field = 'keywords';
  const bytes = utf8Bytes(keywords);
  if (bytes > KEYWORDS_BYTE_BUDGET) {
    // Apple's help says 100 bytes while its API counts characters (stores.md §3): warn, do not block.
    warnings.push({ field, message: `is ${bytes} UTF-8 bytes; Apple's guidance is 100 bytes` });
  }
  if (/,\s|\s,/.test(keywords)) {
    warnings.push({
      field,
      message: 'has spaces around commas, which count against the 100-character limit',
    });
  }
  const words = keywords
    .split(',')
    .map((k) => k.trim().toLowerCase())
    .filter(Boolean);
  const duplicates = [...new Set(words.filter((word, i) => words.indexOf(word) !== i))];
  if (duplicates.length > 0)
    warnings.push({ field, message: `repeats ${duplicates.map((d) => `"${d}"`).join(', ')}` });
  if (appName !== null) {
    const nameWords = new Set(
      appName
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((w) => w.length > 2),
    );
    const repeated = words.filter((word) => word.split(/\s+/).some((w) => nameWords.has(w)));
    if (repeated.length > 0) {
      warnings.push({
        field,
        message: `repeats words of the app name (${repeated.join(', ')}), which Apple indexes already`,
      });
    }
  }
  return warnings;
}

/**
 * How texts carry over between the stores for the copy helper: the same text under each store's
 * field name. Fields without a counterpart (keywords, URLs, what's new) are not copied across.
 */
export const CROSS_STORE_FIELDS: Readonly<Record<Store, Readonly<Record<string, string>>>> = {
  appstore: { name: 'title', subtitle: 'shortDescription', description: 'fullDescription' },
  playstore: { title: 'name', shortDescription: 'subtitle', fullDescription: 'description' },
};
