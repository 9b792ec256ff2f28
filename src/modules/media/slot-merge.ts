/**
 * The three-way rule of a media slot at sync (design.md §9, as for texts): a slot not edited here
 * follows the store; an edited slot keeps its files, and is in sync when the store has the same;
 * changed on both sides to different files, it is a conflict. Files are named by their sha256.
 */

/** What a slot becomes: its files follow the store's or stay, with its new base and conflict. */
export interface SlotMerge {
  follow: boolean;
  base: string[] | null;
  conflict: string[] | null;
}

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((value, index) => value === b[index]);

/**
 * `working` and `base` are the slot here (null base: never synced), `incoming` the store's files;
 * null when nothing changes.
 */
export function mergeSlot(
  here: { working: string[]; base: string[] | null; inConflict: boolean } | undefined,
  incoming: string[],
): SlotMerge | null {
  const working = here?.working ?? [];
  const base = here?.base ?? null;
  const edited = here !== undefined && (!same(working, base ?? []) || here.inConflict);
  if (!edited) {
    if (!same(working, incoming)) return { follow: true, base: incoming, conflict: null };
    if (base === null || !same(base, incoming)) return { follow: false, base: incoming, conflict: null };
    return null;
  }
  if (same(incoming, working)) return { follow: false, base: incoming, conflict: null };
  // The store is where it was: the local edit stays pending (a conflict it undid is none).
  if (base !== null && same(incoming, base)) {
    return here.inConflict ? { follow: false, base, conflict: null } : null;
  }
  return { follow: false, base, conflict: incoming };
}
