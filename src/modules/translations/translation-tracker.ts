/**
 * Keeps what every translation was made from (design.md §14), told by the listing writer and the
 * sync merge of each batch of text changes, in their transaction:
 * - a target written (edit, import, sync, an accepted draft) remembers the source text it was
 *   translated from — the one given (an XLIFF unit's source, a draft's) or the source as it is now —
 *   and loses any pending draft; a target cleared is forgotten (missing);
 * - a source changed first pins the targets that have a text but no record to the text they were
 *   written against (the old source, or none), so they turn outdated.
 * Source changes are handled before target changes: a batch carrying both leaves the targets
 * current against the new source.
 */
import type { Executor } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import type { TextChange, TextsChanged } from '../listings/index.js';
import { storeLocaleOf } from './translation-matrix.js';
import { hashText, isTranslatable } from './translation-state.js';
import { translationsRepository as repo } from './translations.repository.js';

const CLEARED_DRAFT = {
  draft_value: null,
  draft_source_value: null,
  draft_source_hash: null,
  draft_provider: null,
  draft_note: null,
  draft_at: null,
} as const;

export interface TranslationKey {
  projectId: string;
  store: string;
  locale: string;
  field: string;
}

/**
 * Remembers that a target's text is a translation of `from`, and drops its draft: a target
 * written, or one whose text a translator or a member confirmed unchanged.
 */
export async function pinTranslation(trx: Executor, at: string, key: TranslationKey, from: string | null) {
  await repo.upsertState(trx, {
    project_id: key.projectId,
    store: key.store,
    locale: key.locale,
    field: key.field,
    source_value: from,
    source_hash: hashText(from),
    ...CLEARED_DRAFT,
    updated_at: at,
  });
}

export function createTranslationTracker({ clock }: { clock: Clock }): TextsChanged {
  async function sourceChanged(trx: Executor, projectId: string, sourceLocale: string, change: TextChange) {
    const at = clock.now().toISOString();
    const targets = await repo.targetValues(trx, projectId, change.store, change.field, sourceLocale);
    await repo.insertMissing(
      trx,
      targets.map((target) => ({
        project_id: projectId,
        store: change.store,
        locale: target.locale,
        field: change.field,
        source_value: change.before,
        source_hash: hashText(change.before),
        ...CLEARED_DRAFT,
        updated_at: at,
      })),
    );
  }

  async function targetChanged(trx: Executor, projectId: string, sourceLocale: string, change: TextChange) {
    const key = { projectId, store: change.store, locale: change.locale, field: change.field };
    if (change.after === null) {
      await repo.deleteState(trx, key);
      return;
    }
    const from =
      change.translatedFrom !== undefined
        ? change.translatedFrom
        : await repo.fieldValue(trx, projectId, change.store, sourceLocale, change.field);
    await pinTranslation(trx, clock.now().toISOString(), key, from);
  }

  return async (trx, projectId, changes) => {
    const relevant = changes.filter((c) => c.before !== c.after && isTranslatable(c.store, c.field));
    if (relevant.length === 0) return;
    const sourceLocale = await repo.sourceLocaleOf(trx, projectId);
    // The source in each store's own code (zh-Hans on the App Store is zh-CN on Google Play).
    const sourceIn = (change: TextChange) => storeLocaleOf(change.store, sourceLocale);
    for (const change of relevant) {
      const source = sourceIn(change);
      if (change.locale === source) await sourceChanged(trx, projectId, source, change);
    }
    for (const change of relevant) {
      const source = sourceIn(change);
      if (source !== null && change.locale !== source) await targetChanged(trx, projectId, source, change);
    }
  };
}
