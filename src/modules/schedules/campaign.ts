/**
 * Campaigns: a schedule with a revert time puts back, then, the listing texts it pushed. What it
 * replaced is kept when it pushes (the changeset's `old`, the store's value then); at the revert
 * time those fields go back in the working copy and exactly they are pushed.
 */
import { invalidField } from '../../errors.js';
import { STORES } from '../../shared/stores.js';
import { requireLocalesInScope, type RequestContext } from '../access/index.js';
import { changesetLocales, type Changeset } from '../listings/index.js';
import { isLinked, type Project } from '../projects/index.js';
import type { RevertEntry, ScheduleSummary } from './schedule.js';

/** How many listing texts a schedule's summary names. */
const SUMMARY_FIELDS = 20;

/** Every locale a changeset writes, in the project's linked stores, must be in the caller's scope (design.md §16). */
export function requireChangesetInScope(ctx: RequestContext, project: Project, changeset: Changeset): void {
  const stores = STORES.filter((store) => isLinked(project, store));
  requireLocalesInScope(ctx, changesetLocales(changeset, stores, undefined));
}

/** The parts of a changeset a campaign cannot put back, by name (empty when it can revert). */
export function unrevertableParts(changeset: Changeset): string[] {
  const parts: string[] = [];
  if (changeset.mediaChangeCount > 0) parts.push('screenshots and previews');
  if (changeset.releaseNoteChangeCount > 0) parts.push('Google Play release notes');
  if (changeset.productChangeCount > 0) parts.push('in-app purchase, page and event texts');
  if (changeset.detailChangeCount > 0) parts.push('app details');
  if (Object.values(changeset.removedLocales).some((l) => l.length > 0)) parts.push('removed locales');
  if (Object.values(changeset.newLocales).some((l) => l.length > 0)) parts.push('new locales');
  return parts;
}

/** Refuses a revert time for a changeset with parts a campaign cannot put back (422 naming them). */
export function checkRevertable(changeset: Changeset): void {
  const parts = unrevertableParts(changeset);
  if (parts.length > 0) {
    throw invalidField(
      'revertAt',
      `a campaign puts back listing texts only; these changes also include ${parts.join(', ')} — schedule those without revertAt`,
    );
  }
}

/** Each listing text a changeset pushes, with the store's value it replaces. */
export function revertPlanOf(changeset: Changeset): RevertEntry[] {
  const plan: RevertEntry[] = [];
  for (const [store, locales] of Object.entries(changeset.stores)) {
    for (const [locale, fields] of Object.entries(locales ?? {})) {
      for (const [field, change] of Object.entries(fields)) {
        plan.push({ store, locale, field, before: change.old, after: change.new });
      }
    }
  }
  return plan;
}

/** The changeset that puts a campaign's fields back: the store has `after`, the push writes `before`. */
export function revertChangeset(plan: RevertEntry[], hash: string): Changeset {
  const stores: Changeset['stores'] = {};
  for (const entry of plan) {
    ((stores[entry.store as 'appstore'] ??= {})[entry.locale] ??= {})[entry.field] = {
      old: entry.after,
      new: entry.before,
    };
  }
  return {
    stores,
    removedLocales: {},
    newLocales: {},
    changeCount: plan.length,
    media: {},
    mediaChangeCount: 0,
    releaseNotes: {},
    releaseNoteChangeCount: 0,
    products: {},
    productChangeCount: 0,
    details: {},
    detailChangeCount: 0,
    hash,
  };
}

/** What a schedule will push, as the calendar names it. */
export function summaryOf(changeset: Changeset): ScheduleSummary {
  return {
    changeCount: changeset.changeCount,
    mediaChangeCount: changeset.mediaChangeCount,
    releaseNoteChangeCount: changeset.releaseNoteChangeCount,
    productChangeCount: changeset.productChangeCount,
    detailChangeCount: changeset.detailChangeCount,
    fields: revertPlanOf(changeset)
      .slice(0, SUMMARY_FIELDS)
      .map(({ store, locale, field, after }) => ({ store, locale, field, new: after })),
  };
}
