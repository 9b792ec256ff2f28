/**
 * The rules of a text to translate, whether a listing field or a product text (design.md §17):
 * its label, its limit, how a machine translates it (keywords one by one, list items one by one)
 * and what is wrong with a translation. Product limits come from the instance's table.
 */
import { checkFieldValue, codePoints, ruleOf } from '../listings/index.js';
import { checkProductValue, productRuleOf, type ProductLimits } from '../../shared/product-fields.js';
import type { Store } from '../../shared/stores.js';

/** The product a matrix entry's text belongs to (its field is `products.<productId>.<field>`). */
export interface ProductRef {
  productId: string;
  kind: string;
  field: string;
}

export interface TextRule {
  label: string;
  max: number | null;
  /** Keywords: translated one by one, joined by commas within the limit. */
  keywords: boolean;
  /** A list (Google Play benefits): items translated one by one, kept one per line. */
  list: boolean;
}

interface Target {
  store: Store;
  field: string;
  product?: ProductRef | undefined;
}

export function createEntryRules(limits: ProductLimits) {
  function ruleOfEntry(entry: Target): TextRule {
    if (entry.product !== undefined) {
      const rule = productRuleOf(limits, entry.store, entry.product.kind, entry.product.field);
      return {
        label: `${rule?.label ?? entry.product.field} of ${entry.product.productId}`,
        max: rule?.max ?? null,
        keywords: false,
        list: rule?.list !== undefined,
      };
    }
    const rule = ruleOf(entry.store, entry.field);
    return {
      label: rule?.label ?? entry.field,
      max: rule?.max ?? null,
      keywords: rule?.kind === 'keywords',
      list: false,
    };
  }

  /** What is wrong with a translation, or null. */
  function problemOf(entry: Target, value: string) {
    return entry.product === undefined
      ? checkFieldValue(entry.store, entry.field, value)
      : checkProductValue(limits, entry.store, entry.product.kind, entry.product.field, value);
  }

  /** A draft's length against its limit: over the limit it is marked and cannot be accepted. */
  function fitOf(entry: Target, text: string) {
    const rule = ruleOfEntry(entry);
    const length = rule.list ? Math.max(0, ...text.split('\n').map(codePoints)) : codePoints(text);
    const overLimit =
      entry.product === undefined ? rule.max !== null && length > rule.max : problemOf(entry, text) !== null;
    return { length, limit: rule.max, overLimit };
  }

  return { ruleOf: ruleOfEntry, problemOf, fitOf };
}

export type EntryRules = ReturnType<typeof createEntryRules>;
