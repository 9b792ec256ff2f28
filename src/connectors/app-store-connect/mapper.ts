/** Where each of our App Store fields lives in App Store Connect (stores.md §2.1). */
export const APP_INFO_FIELDS = ['name', 'subtitle', 'privacyPolicyUrl'] as const;
export const VERSION_FIELDS = [
  'description',
  'keywords',
  'marketingUrl',
  'promotionalText',
  'supportUrl',
  'whatsNew',
] as const;

/** appInfo states in which its localizations may be edited, and the live ones (fastlane's sets). */
export const EDITABLE_INFO_STATES = [
  'PREPARE_FOR_SUBMISSION',
  'DEVELOPER_REJECTED',
  'REJECTED',
  'WAITING_FOR_REVIEW',
];
export const LIVE_INFO_STATES = ['READY_FOR_DISTRIBUTION', 'PENDING_RELEASE', 'IN_REVIEW'];
export const EDITABLE_VERSION_STATES = [
  'PREPARE_FOR_SUBMISSION',
  'DEVELOPER_REJECTED',
  'REJECTED',
  'METADATA_REJECTED',
  'WAITING_FOR_REVIEW',
  'INVALID_BINARY',
];
export const LIVE_VERSION_STATES = ['READY_FOR_DISTRIBUTION', 'PROCESSING_FOR_DISTRIBUTION'];

/** Apple allows promotionalText to change on the live version too (stores.md §2.1). */
export const ALWAYS_EDITABLE = new Set(['promotionalText']);

/** Splits one locale's fields by the resource they belong to. */
export function splitFields(fields: Record<string, string | null>) {
  const info: Record<string, string | null> = {};
  const version: Record<string, string | null> = {};
  for (const [field, value] of Object.entries(fields)) {
    if ((APP_INFO_FIELDS as readonly string[]).includes(field)) info[field] = value;
    else if ((VERSION_FIELDS as readonly string[]).includes(field)) version[field] = value;
  }
  return { info, version };
}

/** Compares "1.10.2" and "1.9" numerically, part by part. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const diff = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

export interface JsonApiResource {
  type: string;
  id: string;
  attributes?: Record<string, unknown>;
}

/** Our fields from a localization resource; attributes Apple leaves out are null. */
export function fieldsOf(resource: JsonApiResource, names: readonly string[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const name of names) {
    const value = resource.attributes?.[name];
    out[name] = typeof value === 'string' ? value : null;
  }
  return out;
}
