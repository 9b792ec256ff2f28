import { STORE_FIELDS } from './listing-rules';

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

/** The labels people see for the API's field names (listing fields come from the rule table). */
const LABELS: Record<string, string> = {
  appStoreAppId: 'App Store app ID',
  playStorePackageName: 'Google Play package name',
  email: 'E-mail',
  role: 'Role',
  sourceLocale: 'Source locale',
  'settings.allowedDomains': 'Allowed e-mail domains',
  'settings.doNotTranslate': 'Do-not-translate terms',
  'settings.defaultLocale': 'Default locale',
  'settings.driftCheckMinutes': 'Minutes between drift checks',
  url: 'Endpoint URL',
  events: 'Events',
  description: 'Description',
  apiKey: 'API key',
  issuerId: 'Issuer ID',
  keyId: 'Key ID',
  privateKey: 'Private key',
  serviceAccount: 'Service account key',
  entries: 'Translated as',
  terms: 'Kept as written',
  source: 'From language',
  target: 'Into language',
  targetLocales: 'Target locales',
  note: 'Note',
  'access.projects': 'Projects',
  'access.locales': 'Languages',
  fileName: 'File name',
  versionString: 'Version',
};
for (const fields of Object.values(STORE_FIELDS))
  for (const [field, rule] of Object.entries(fields)) LABELS[field] ??= rule.label;

/**
 * A field as its label: `appStoreAppId` → "App Store app ID", `entries["forecast"]` →
 * "Translated as “forecast”", `targetLocales[1]` → "Target locales (number 2)". Unknown fields stay
 * as they are rather than be guessed at.
 */
export function fieldLabel(field: string): string {
  const found = /^([\w.]+?)(?:\[(?:"(.*)"|(\d+))\])?$/.exec(field);
  if (found === null) return field;
  const [, base = '', key, index] = found;
  const label = LABELS[base];
  if (label === undefined) return field;
  if (key !== undefined) return `${label} “${key}”`;
  if (index !== undefined) return `${label} (number ${Number(index) + 1})`;
  return label;
}

/** A server message with each named field written as its label. */
export function withLabels(message: string, fields: readonly string[]): string {
  let out = message;
  for (const field of [...new Set(fields)].sort((a, b) => b.length - a.length)) {
    const label = fieldLabel(field);
    if (label === field) continue;
    // Whole names only: "name" in "renamed" stays.
    const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    out = out.replace(new RegExp(`(?<![\\w.])${escaped}(?![\\w])`, 'g'), label);
  }
  return out;
}
