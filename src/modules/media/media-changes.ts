/**
 * The media part of a project's pending changeset: every slot whose working copy differs from
 * what the store had (added, removed, reordered), so that diffs show it and approvals bind to it.
 */
import type { Executor } from '../../db/database.js';
import type { Store } from '../../shared/stores.js';
import type { MediaChange, MediaChanges } from './media.js';
import { mediaRepository as repo } from './media.repository.js';
import { parseList } from './media-slots.js';

export async function mediaChangesOf(
  db: Executor,
  projectId: string,
): Promise<{ changes: MediaChanges; count: number }> {
  const rows = await repo.listSlots(db, projectId);
  const items = await repo.itemsWithBlobs(
    db,
    rows.flatMap((row) => parseList(row.items)),
  );
  const changes: MediaChanges = {};
  let count = 0;
  for (const row of rows) {
    const working = parseList(row.items).map((id) => items.get(id)!);
    const next = working.map((item) => item.sha256);
    const old = parseList(row.base);
    if (JSON.stringify(next) === JSON.stringify(old) && row.conflict === null) continue;
    const added = next.filter((sha) => !old.includes(sha));
    const kept = next.filter((sha) => old.includes(sha));
    const change: MediaChange = {
      old,
      new: next,
      added,
      removed: old.filter((sha) => !next.includes(sha)),
      reordered: JSON.stringify(kept) !== JSON.stringify(old.filter((sha) => next.includes(sha))),
      uploadBytes: working
        .filter((item) => added.includes(item.sha256))
        .reduce((sum, item) => sum + Number(item.bytes), 0),
      ...(row.conflict !== null && { conflict: parseList(row.conflict) }),
    };
    ((changes[row.store as Store] ??= {})[row.locale] ??= {})[row.slot_type] = change;
    count += 1;
  }
  return { changes, count };
}
