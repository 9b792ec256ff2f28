/**
 * The stores' words as people read them: App Store Connect's `PREPARE_FOR_SUBMISSION` is
 * "Prepare for submission", Google Play's `inProgress` is "in progress" (design.md §10: every state
 * a person reads is in plain words).
 */
export function plainState(state: string): string {
  if (/^[A-Z0-9_]+$/.test(state)) {
    const words = state.toLowerCase().replaceAll('_', ' ');
    return words.charAt(0).toUpperCase() + words.slice(1);
  }
  return state.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** A state on its own, as in a table cell: "Succeeded", "In progress". */
export function plainStatus(state: string): string {
  const words = plainState(state);
  return words.charAt(0).toUpperCase() + words.slice(1);
}
