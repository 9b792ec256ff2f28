/**
 * The release-notes part of a project's pending changeset: every Google Play note whose working
 * copy differs from the store's (or is in conflict), so that diffs show it and approvals bind to it.
 */
import type { Executor } from '../../db/database.js';
import type { ReleaseNotesChanges } from '../listings/index.js';
import { releasesRepository as repo } from './releases.repository.js';

export async function releaseNotesChangesOf(
  db: Executor,
  projectId: string,
): Promise<{ changes: ReleaseNotesChanges; count: number }> {
  const changes: ReleaseNotesChanges = {};
  let count = 0;
  for (const row of await repo.notes(db, projectId)) {
    if (row.value === row.base && row.in_conflict === 0) continue;
    ((changes[row.track] ??= {})[row.version_code] ??= {})[row.locale] = {
      old: row.base,
      new: row.value,
      ...(row.in_conflict === 1 && { conflict: { storeValue: row.conflict_value } }),
    };
    count += 1;
  }
  return { changes, count };
}

/** The notes of some languages only (all when `locales` is undefined), and how many. */
export function notesInLocales(
  changes: ReleaseNotesChanges,
  locales: string[] | undefined,
): { changes: ReleaseNotesChanges; count: number } {
  const kept: ReleaseNotesChanges = {};
  let count = 0;
  for (const [track, byCode] of Object.entries(changes)) {
    for (const [code, byLocale] of Object.entries(byCode)) {
      for (const [locale, change] of Object.entries(byLocale)) {
        if (locales !== undefined && !locales.includes(locale)) continue;
        ((kept[track] ??= {})[code] ??= {})[locale] = change;
        count += 1;
      }
    }
  }
  return { changes: kept, count };
}
