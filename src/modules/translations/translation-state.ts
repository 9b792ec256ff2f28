/**
 * What a translation's state is (design.md §14), from three facts: the target's text, the source
 * text it was translated from, and the source's text now. Pure; the matrix, XLIFF states and the
 * dashboard all read it from here.
 */
import { createHash } from 'node:crypto';
import { ruleOf, STORE_FIELDS } from '../listings/index.js';
import type { Store } from '../../shared/stores.js';
import { parseProductField } from '../products/index.js';

export const TRANSLATION_STATES = ['missing', 'outdated', 'draft', 'current'] as const;
export type TranslationState = (typeof TRANSLATION_STATES)[number];

/** What is remembered of one target field (a translation_states row). */
export interface TranslationRecord {
  sourceValue: string | null;
  sourceHash: string | null;
  draft: Draft | null;
}

export interface Draft {
  text: string;
  /** The source text the draft was made from. */
  sourceValue: string | null;
  provider: string;
  /** E.g. the keywords left out to stay within the limit. */
  note: string | null;
  createdAt: string;
}

/** SHA-256 of a text, or null for no text: what decides whether a source changed. */
export const hashText = (value: string | null): string | null =>
  value === null ? null : createHash('sha256').update(value).digest('hex');

/** Texts people translate: every text and keyword field, every product text; URLs are not translations. */
export const isTranslatable = (store: Store, field: string): boolean => {
  if (parseProductField(field) !== null) return true;
  const rule = ruleOf(store, field);
  return rule !== undefined && rule.kind !== 'url';
};

export const translatableFields = (store: Store): string[] =>
  Object.keys(STORE_FIELDS[store]).filter((field) => isTranslatable(store, field));

/**
 * - a draft waits for a member: `draft`;
 * - no text: `missing`;
 * - a text whose source is unknown (written before tracking, or synced) counts as current until
 *   its source changes — the change pins it to the text it was written against;
 * - otherwise current while the source is what it was translated from, else outdated.
 */
export function stateOf(
  target: string | null,
  record: TranslationRecord | undefined,
  source: string | null,
): TranslationState {
  if (record?.draft) return 'draft';
  if (target === null) return 'missing';
  if (record === undefined) return 'current';
  return record.sourceHash === hashText(source) ? 'current' : 'outdated';
}
