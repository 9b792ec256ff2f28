import { invalidField } from '../../errors.js';
import { textProblem } from '../../shared/text.js';
import { isCommonLocale } from '../../shared/stores.js';
import type { Plan } from './plans.js';

export interface OrganizationSettings {
  defaultLocale: string;
  requireApproval: boolean;
  allowedDomains: string[];
  /** Minutes between drift checks of each linked store (design.md §11); 0 = off. */
  driftCheckMinutes: number;
  /** Brand terms machine translation keeps as written: the app's name, trademarks (design.md §14). */
  doNotTranslate: string[];
}

export interface Organization {
  id: string;
  name: string;
  plan: Plan;
  memberCount: number;
  settings: OrganizationSettings;
  /** Media storage: bytes of the distinct files the organization holds, and the plan's limit. */
  usage: { mediaBytes: number; mediaBytesLimit: number | null };
  createdAt: string;
}

export const DEFAULT_SETTINGS: OrganizationSettings = Object.freeze({
  defaultLocale: 'en-US',
  requireApproval: false,
  allowedDomains: [],
  driftCheckMinutes: 60,
  doNotTranslate: [],
});

export const MAX_KEPT_TERMS = 200;
export const MAX_KEPT_TERM = 100;

/** The do-not-translate terms as given: trimmed, one line each, each once (design.md §14). */
function keptTerms(field: string, value: unknown): string[] {
  if (!Array.isArray(value) || !value.every((t) => typeof t === 'string')) {
    throw invalidField(field, 'must be a list of terms, e.g. ["Weather Pro"]');
  }
  const terms = [...new Set(value.map((t: string) => t.trim()))];
  if (terms.length > MAX_KEPT_TERMS) throw invalidField(field, `at most ${MAX_KEPT_TERMS} terms`);
  for (const term of terms) {
    if (term === '') throw invalidField(field, 'a term is empty');
    const problem = textProblem(term, { singleLine: true, visible: true });
    if (problem !== null) throw invalidField(field, `"${term}" ${problem}`);
    if ([...term].length > MAX_KEPT_TERM)
      throw invalidField(field, `"${term}" is longer than ${MAX_KEPT_TERM} characters`);
  }
  return terms;
}

const SETTING_KEYS = Object.keys(DEFAULT_SETTINGS) as (keyof OrganizationSettings)[];

// A DNS name of at least two labels: what may follow the @ of an address we accept.
const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export const isEmailDomain = (domain: string): boolean => DOMAIN_PATTERN.test(domain);

export const NAME_MAX = 200;

/**
 * Trims and checks a display name — organization, project, member (design.md §7: 1..200 after
 * trimming): one line of visible text.
 */
export function normalizeName(field: string, raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw invalidField(field, 'must not be empty');
  const problem = textProblem(name, { singleLine: true, visible: true });
  if (problem !== null) throw invalidField(field, problem);
  if ([...name].length > NAME_MAX) throw invalidField(field, `must be at most ${NAME_MAX} characters`);
  return name;
}

/**
 * Merges a settings patch into the current settings (design.md §7): only the keys given change,
 * unknown keys are 400, domains are lower-cased and de-duplicated.
 */
export function mergeSettings(
  current: OrganizationSettings,
  patch: Record<string, unknown>,
): OrganizationSettings {
  const next: OrganizationSettings = {
    ...current,
    allowedDomains: [...current.allowedDomains],
    doNotTranslate: [...current.doNotTranslate],
  };
  for (const [key, value] of Object.entries(patch)) {
    const field = `settings.${key}`;
    if (!SETTING_KEYS.includes(key as keyof OrganizationSettings))
      throw invalidField(field, 'unknown setting');
    if (key === 'defaultLocale') {
      if (typeof value !== 'string' || !isCommonLocale(value)) {
        throw invalidField(field, 'must be a locale code that both stores accept, e.g. en-US, de-DE, fr-FR');
      }
      next.defaultLocale = value;
    } else if (key === 'driftCheckMinutes') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 1440) {
        throw invalidField(
          field,
          'must be an integer from 1 to 1440 (minutes), or 0 to turn drift checks off',
        );
      }
      next.driftCheckMinutes = value;
    } else if (key === 'doNotTranslate') {
      next.doNotTranslate = keptTerms(field, value);
    } else if (key === 'requireApproval') {
      if (typeof value !== 'boolean') throw invalidField(field, 'must be a boolean');
      next.requireApproval = value;
    } else {
      if (!Array.isArray(value) || !value.every((d) => typeof d === 'string')) {
        throw invalidField(field, 'must be an array of e-mail domains');
      }
      const domains = [...new Set(value.map((d: string) => d.trim().toLowerCase()))];
      const bad = domains.find((d) => !isEmailDomain(d));
      if (bad !== undefined)
        throw invalidField(field, `"${bad}" is not an e-mail domain such as example.com`);
      next.allowedDomains = domains;
    }
  }
  return next;
}

/** Reads stored settings, filling keys added after the row was written. */
export function parseSettings(json: string): OrganizationSettings {
  return { ...DEFAULT_SETTINGS, ...(JSON.parse(json) as Partial<OrganizationSettings>) };
}
