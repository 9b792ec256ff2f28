/**
 * The localized texts of in-app purchases and subscriptions, and every limit on them, in one table
 * (design.md §17, stores-more.md §F). Several numbers are best-known rather than published: they
 * are marked `confirmed: false` and can be changed per instance (APPMETA_PRODUCT_LIMITS) without
 * touching code. Lengths count Unicode code points. Free of Node APIs: the dashboard runs it too.
 */
import { codePoints } from './listing-fields.js';
import type { Store } from './stores.js';
import { textProblem } from './text.js';

export const APPSTORE_PRODUCT_KINDS = ['inAppPurchase', 'subscription', 'subscriptionGroup'] as const;
export const PLAYSTORE_PRODUCT_KINDS = ['inAppProduct', 'subscription'] as const;
/**
 * App Store custom product pages and in-app events (design.md §18): store items with localized
 * texts like products, kept by the same engine, listed apart from the purchases.
 */
export const MARKETING_KINDS = ['customProductPage', 'appEvent'] as const;
export type MarketingKind = (typeof MARKETING_KINDS)[number];
export type ProductKind =
  (typeof APPSTORE_PRODUCT_KINDS)[number] | (typeof PLAYSTORE_PRODUCT_KINDS)[number] | MarketingKind;

export const isMarketingKind = (kind: string): kind is MarketingKind =>
  (MARKETING_KINDS as readonly string[]).includes(kind);

export interface ProductFieldRule {
  label: string;
  max: number;
  min?: number;
  /** A store localization cannot exist without it: never cleared, needed to add a locale. */
  required: boolean;
  /** A list of single-line items (Google Play benefits), stored one per line. */
  list?: { maxItems: number };
  /** Apple's group display name: no control characters, markup, emoji or other special symbols. */
  plainCharacters?: boolean;
  /** Whether a trustworthy source gives the number (stores-more.md §F). */
  confirmed: boolean;
}

type KindRules = Readonly<Record<string, ProductFieldRule>>;
export type ProductLimits = Readonly<Record<Store, Readonly<Partial<Record<ProductKind, KindRules>>>>>;

/** The limits as best known on 2026-11 (stores-more.md §F). */
export const DEFAULT_PRODUCT_LIMITS: ProductLimits = {
  appstore: {
    inAppPurchase: {
      name: { label: 'Display name', max: 35, min: 2, required: true, confirmed: false },
      description: { label: 'Description', max: 55, required: false, confirmed: false },
    },
    subscription: {
      name: { label: 'Display name', max: 35, min: 2, required: true, confirmed: false },
      description: { label: 'Description', max: 55, required: false, confirmed: false },
    },
    subscriptionGroup: {
      name: { label: 'Group name', max: 75, required: true, plainCharacters: true, confirmed: false },
      customAppName: { label: 'Custom app name', max: 30, required: false, confirmed: false },
    },
    customProductPage: {
      promotionalText: { label: 'Promotional text', max: 170, required: false, confirmed: true },
    },
    appEvent: {
      name: { label: 'Event name', max: 30, required: false, confirmed: false },
      shortDescription: { label: 'Short description', max: 50, required: false, confirmed: false },
      longDescription: { label: 'Long description', max: 120, required: false, confirmed: false },
    },
  },
  playstore: {
    inAppProduct: {
      title: { label: 'Title', max: 55, required: true, confirmed: true },
      description: { label: 'Description', max: 200, required: false, confirmed: true },
    },
    subscription: {
      title: { label: 'Title', max: 55, required: true, confirmed: false },
      description: { label: 'Description', max: 80, required: false, confirmed: true },
      benefits: { label: 'Benefits', max: 40, required: false, list: { maxItems: 4 }, confirmed: false },
    },
  },
};

/** The fields of a kind, in the store's order; empty for a kind the store does not have. */
export const productFieldNames = (limits: ProductLimits, store: Store, kind: string): string[] =>
  Object.keys(rulesOf(limits, store, kind) ?? {});

function rulesOf(limits: ProductLimits, store: Store, kind: string): KindRules | undefined {
  const byKind = limits[store] as Record<string, KindRules>;
  return Object.hasOwn(byKind, kind) ? byKind[kind] : undefined;
}

export function productRuleOf(
  limits: ProductLimits,
  store: Store,
  kind: string,
  field: string,
): ProductFieldRule | undefined {
  const rules = rulesOf(limits, store, kind);
  return rules !== undefined && Object.hasOwn(rules, field) ? rules[field] : undefined;
}

export interface ProductProblem {
  message: string;
  limit?: number;
  length?: number;
}

/** Emoji, pictographs and other symbols Apple refuses in a group's display name. */
const SPECIAL = /[\p{Extended_Pictographic}\p{So}\p{Co}\u200B-\u200F\u2028-\u202E<>]/u;

/** What is wrong with a product text, or null; `null` (a clear) is judged by `required`. */
export function checkProductValue(
  limits: ProductLimits,
  store: Store,
  kind: string,
  field: string,
  value: string | null,
): ProductProblem | null {
  const rule = productRuleOf(limits, store, kind, field);
  if (rule === undefined) {
    const names = productFieldNames(limits, store, kind);
    return { message: `is not a text of a ${kind} (texts: ${names.join(', ')})` };
  }
  if (value === null) return rule.required ? { message: `is required and cannot be cleared` } : null;
  const items = rule.list === undefined ? [value] : value.split('\n');
  if (rule.list !== undefined && items.length > rule.list.maxItems) {
    return {
      message: `takes at most ${rule.list.maxItems} items (has ${items.length})`,
      limit: rule.list.maxItems,
      length: items.length,
    };
  }
  for (const [index, item] of items.entries()) {
    const where = rule.list === undefined ? '' : ` (item ${index + 1})`;
    const text = textProblem(item, { singleLine: true, visible: true });
    if (text !== null) return { message: `${text}${where}` };
    if (rule.plainCharacters === true && SPECIAL.test(item)) {
      return { message: 'must not contain emoji, markup or other special symbols' };
    }
    const length = codePoints(item);
    if (length > rule.max) {
      return {
        message: `must be at most ${rule.max} characters${where} (has ${length})`,
        limit: rule.max,
        length,
      };
    }
    if (rule.min !== undefined && length < rule.min) {
      return { message: `must be at least ${rule.min} characters (has ${length})`, limit: rule.min, length };
    }
  }
  return null;
}

/**
 * The table with overrides applied: keys `<store>.<kind>.<field>.<max|min|maxItems>` → number.
 * Returns the problems instead when a key names nothing or a value is not a positive integer.
 */
export function withLimitOverrides(
  base: ProductLimits,
  overrides: Record<string, unknown>,
): { limits: ProductLimits } | { problems: string[] } {
  const copy = JSON.parse(JSON.stringify(base)) as Record<
    Store,
    Record<string, Record<string, ProductFieldRule>>
  >;
  const problems: string[] = [];
  for (const [key, value] of Object.entries(overrides)) {
    const [store, kind, field, bound, ...rest] = key.split('.');
    const rule =
      rest.length === 0 &&
      (store === 'appstore' || store === 'playstore') &&
      kind !== undefined &&
      field !== undefined
        ? productRuleOf(copy, store, kind, field)
        : undefined;
    if (rule === undefined || (bound !== 'max' && bound !== 'min' && bound !== 'maxItems')) {
      problems.push(`${key} names no limit (use <store>.<kind>.<field>.max|min|maxItems)`);
      continue;
    }
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      problems.push(`${key} must be a positive integer`);
      continue;
    }
    if (bound === 'maxItems') {
      if (rule.list === undefined) problems.push(`${key}: ${field} is not a list`);
      else rule.list.maxItems = value;
    } else rule[bound] = value;
  }
  return problems.length > 0 ? { problems } : { limits: copy };
}
