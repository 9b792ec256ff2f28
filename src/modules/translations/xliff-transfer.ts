/**
 * The project's translations of one target locale as an XLIFF document, and a translator's
 * document back as listing edits (design.md §14). Pure: the service reads the matrix, calls these
 * and writes the plan in one transaction.
 */
import type { ErrorDetail } from '../../errors.js';
import { STORE_LABEL, STORES, type Store } from '../../shared/stores.js';
import type { ListingEdits } from '../listings/index.js';
import type { ProductEdit } from '../products/index.js';
import type { EntryRules } from './entry-rules.js';
import { entriesOf, storeLocaleOf, type Matrix, type MatrixEntry } from './translation-matrix.js';
import type { XliffDocument, XliffNote, XliffState, XliffUnit, XliffVersion } from './xliff.js';

/** What each field is for, told to the translator beside its text. */
const PURPOSE: Record<Store, Record<string, string>> = {
  appstore: {
    name: "The app's name on the App Store: under the icon, on the product page and in search.",
    subtitle: 'A short summary under the name on the product page and in search results.',
    description: 'The product page description. Plain text; line breaks are kept.',
    keywords:
      'Search keywords, never shown to people. Comma-separated, no spaces needed after commas; each keyword ' +
      'translated on its own; words of the name or subtitle are already searched, do not repeat them; no ' +
      "competitors' names or trademarks.",
    promotionalText: 'A line above the description, changed at any time without a new version.',
    whatsNew: "What's New in the version being prepared: the release notes.",
  },
  playstore: {
    title: "The app's name on Google Play.",
    shortDescription: 'The first text people read on the Google Play listing.',
    fullDescription: 'The Google Play listing description. Plain text; line breaks are kept.',
  },
};

/** Segment states in their order: a translator confirms a unit by raising its state. */
const STATE_RANK: Record<XliffState, number> = { initial: 0, translated: 1, reviewed: 2, final: 3 };

/** An entry's state for a translator: to do, machine-made, or done. */
const xliffStateOf = (entry: MatrixEntry): XliffState =>
  entry.state === 'draft' ? 'translated' : entry.state === 'current' ? 'reviewed' : 'initial';

/** The text a unit carries as its target: the draft waiting for review, else the current one. */
const exportedTarget = (entry: MatrixEntry): string | null => entry.draft?.text ?? entry.target;

/** What a product text is for, by its field. */
const PRODUCT_PURPOSE: Record<string, string> = {
  name: 'The name people see for this in-app purchase or subscription in the store and at purchase.',
  description: 'A short description of what the purchase gives, shown with its name.',
  customAppName:
    'Shown instead of the app name above the subscription group on the Manage Subscriptions screen.',
  title: 'The name people see for this product on Google Play and at purchase.',
  benefits: 'What the subscription gives, one benefit per line (at most four).',
};

function notesOf(entry: MatrixEntry, rules: EntryRules): XliffNote[] {
  const store = entry.store;
  const rule = rules.ruleOf(entry);
  const purpose =
    entry.product === undefined ? PURPOSE[store][entry.field] : PRODUCT_PURPOSE[entry.product.field];
  const notes: XliffNote[] = [
    { category: 'store', text: STORE_LABEL[store] },
    { category: 'field', text: `${rule.label}: ${purpose ?? ''}`.trim() },
  ];
  if (rule.max !== null) {
    notes.push({
      category: 'limit',
      text: `At most ${rule.max} characters${rule.list ? ' per line' : ''} (Unicode code points).`,
    });
  }
  if (entry.state === 'outdated') {
    notes.push({
      category: 'source-changed',
      text: `The source changed since this was translated. It was translated from: ${entry.translatedFrom ?? '(nothing)'}`,
    });
  }
  if (entry.draft !== null) {
    const fit = rules.fitOf(entry, entry.draft.text);
    notes.push({
      category: 'draft',
      text:
        `Machine translation (${entry.draft.provider}), not reviewed yet.` +
        (fit.overLimit
          ? ` It is ${fit.length} characters, over the limit of ${fit.limit}: shorten it.`
          : '') +
        (entry.draft.note === null ? '' : ` ${entry.draft.note}`),
    });
  }
  return notes;
}

export function xliffFor(
  matrix: Matrix,
  locale: string,
  version: XliffVersion,
  rules: EntryRules,
): XliffDocument {
  const entries = entriesOf(matrix, locale);
  const files = STORES.filter((store) => entries.some((e) => e.store === store)).map((store) => ({
    id: store,
    original: STORE_LABEL[store],
    units: entries
      .filter((entry) => entry.store === store && entry.source !== null)
      .map((entry): XliffUnit => ({
        id: entry.field,
        source: entry.source!,
        target: exportedTarget(entry),
        state: xliffStateOf(entry),
        // A list's limit is per line: the unit as a whole has none.
        ...(rules.ruleOf(entry).max !== null &&
          !rules.ruleOf(entry).list && { maxLength: rules.ruleOf(entry).max! }),
        notes: notesOf(entry, rules),
      })),
  }));
  return { version, sourceLanguage: matrix.sourceLocale, targetLanguage: locale, files };
}

/** A target confirmed unchanged: its record is pinned to the unit's source, its draft dropped. */
export interface Confirmation {
  store: Store;
  locale: string;
  field: string;
  from: string | null;
}

export interface ImportPlan {
  batch: ListingEdits[];
  /** Product texts, written in the same transaction as the listings. */
  productBatch: ProductEdit[];
  confirmations: Confirmation[];
  written: { store: Store; field: string }[];
  ignored: number;
  problems: ErrorDetail[];
}

const sameCode = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/**
 * What a translator's document changes. A unit whose target differs from the exported one is
 * written; one whose text is unchanged but whose state was raised (initial → translated, say) is
 * a confirmation: an outdated translation still right for the new source, or a draft approved. The
 * rest is ignored. Every problem is reported, each named `<store>/<field>` (file id / unit id).
 */
export function planImport(
  matrix: Matrix,
  locale: string,
  doc: XliffDocument,
  rules: EntryRules,
): ImportPlan {
  const plan: ImportPlan = {
    batch: [],
    productBatch: [],
    confirmations: [],
    written: [],
    ignored: 0,
    problems: [],
  };
  const [srcAttr, trgAttr] =
    doc.version === '2.0' ? ['srcLang', 'trgLang'] : ['source-language', 'target-language'];
  if (!sameCode(doc.sourceLanguage, matrix.sourceLocale)) {
    plan.problems.push({
      field: srcAttr,
      message: `is "${doc.sourceLanguage}"; the project's source locale is ${matrix.sourceLocale}`,
    });
  }
  const trg = doc.targetLanguage;
  const sameTarget =
    sameCode(trg, locale) ||
    STORES.some(
      (store) =>
        storeLocaleOf(store, trg) !== null && storeLocaleOf(store, trg) === storeLocaleOf(store, locale),
    );
  if (!sameTarget) {
    plan.problems.push({ field: trgAttr, message: `is "${trg}"; this import is for ${locale}` });
  }
  if (plan.problems.length > 0) return plan;

  const entries = entriesOf(matrix, locale);
  const seen = new Set<string>();
  for (const file of doc.files) {
    const store = STORES.find((s) => s === file.id);
    if (store === undefined || !entries.some((e) => e.store === store)) {
      plan.problems.push({
        field: `file "${file.id}"`,
        message: `is not a store of this export (${STORES.filter((s) => entries.some((e) => e.store === s)).join(', ')})`,
      });
      continue;
    }
    const edits: Record<string, string> = {};
    const translatedFrom: Record<string, string> = {};
    for (const unit of file.units) {
      const where = `${store}/${unit.id}`;
      if (seen.has(where)) {
        plan.problems.push({ field: where, message: 'appears twice' });
        continue;
      }
      seen.add(where);
      const entry = entries.find((e) => e.store === store && e.field === unit.id && e.source !== null);
      if (entry === undefined) {
        plan.problems.push({ field: where, message: 'is not a field to translate in this export' });
        continue;
      }
      if (unit.target === null || unit.target === '') {
        plan.ignored += 1;
        continue;
      }
      const before = exportedTarget(entry);
      const raised = STATE_RANK[unit.state] > STATE_RANK[xliffStateOf(entry)];
      if (unit.target === before && !raised) {
        plan.ignored += 1;
        continue;
      }
      const problem = rules.problemOf(entry, unit.target);
      if (problem !== null) {
        plan.problems.push({ field: where, ...problem });
        continue;
      }
      if (unit.target === entry.target) {
        plan.confirmations.push({ store, locale: entry.locale, field: entry.field, from: unit.source });
      } else if (entry.product !== undefined) {
        addProductEdit(plan.productBatch, store, entry, unit.target, unit.source);
      } else {
        edits[entry.field] = unit.target;
        translatedFrom[entry.field] = unit.source;
      }
      plan.written.push({ store, field: entry.field });
    }
    const storeLocale = entries.find((e) => e.store === store)!.locale;
    if (Object.keys(edits).length > 0) plan.batch.push({ store, locale: storeLocale, edits, translatedFrom });
  }
  return plan;
}

/** Adds a product text to a batch: one edit per product and locale. */
export function addProductEdit(
  batch: ProductEdit[],
  store: Store,
  entry: MatrixEntry,
  text: string,
  from: string | null,
): void {
  const { productId, field } = entry.product!;
  let edit = batch.find((e) => e.store === store && e.productId === productId && e.locale === entry.locale);
  if (edit === undefined) {
    edit = { store, productId, locale: entry.locale, fields: {}, translatedFrom: {} };
    batch.push(edit);
  }
  edit.fields[field] = text;
  edit.translatedFrom![field] = from;
}
