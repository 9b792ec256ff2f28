/**
 * Custom product pages and in-app events of the App Store emulator (stores-more.md §B): pages with
 * their versions and localizations, events with theirs, and the rules Apple has not published
 * (limits, editable states, pages per app, schedule bounds) as settings.
 */
import { randomUUID } from 'node:crypto';

export interface ProductPage {
  id: string;
  appId: string;
  name: string;
  visible: boolean;
}

export interface PageVersion {
  id: string;
  pageId: string;
  /** Apple's version is a string ("1", "2"). */
  version: string;
  state: string;
  deepLink: string | null;
}

export interface PageLocalization {
  id: string;
  versionId: string;
  locale: string;
  promotionalText: string | null;
  /** Linked app keywords (their ids are the keywords). */
  keywords: string[];
}

export interface TerritorySchedule {
  territories?: string[];
  publishStart?: string;
  eventStart?: string;
  eventEnd?: string;
}

export interface AppEvent {
  id: string;
  appId: string;
  referenceName: string;
  badge: string | null;
  eventState: string;
  deepLink: string | null;
  purchaseRequirement: string | null;
  primaryLocale: string | null;
  priority: string | null;
  purpose: string | null;
  territorySchedules: TerritorySchedule[];
}

export interface EventLocalization {
  id: string;
  eventId: string;
  locale: string;
  texts: { name: string | null; shortDescription: string | null; longDescription: string | null };
}

export interface MarketingRules {
  /** Code points: promotional text 170 (as the default page); page name 64, event texts 30/50/120, reference name 64. */
  limits: {
    promotionalText: number;
    pageName: number;
    name: number;
    shortDescription: number;
    longDescription: number;
    referenceName: number;
  };
  /** Pages per app: 35 originally, 70 in newer guides (unconfirmed). */
  maxPages: number;
  /** Page version states whose texts may be written (documented: the draft; REJECTED unconfirmed). */
  editablePageVersionStates: string[];
  /** A second draft version of a page is refused (unconfirmed). */
  onePageDraft: boolean;
  /** Event states whose localizations may be written (unconfirmed beyond the draft). */
  editableEventStates: string[];
  /** Schedule bounds: event length 15 min–31 days, publish at most 14 days before the start. */
  schedule: { minMinutes: number; maxDays: number; publishLeadDays: number };
}

export const DEFAULT_MARKETING_RULES: MarketingRules = {
  limits: {
    promotionalText: 170,
    pageName: 64,
    name: 30,
    shortDescription: 50,
    longDescription: 120,
    referenceName: 64,
  },
  maxPages: 35,
  editablePageVersionStates: ['PREPARE_FOR_SUBMISSION'],
  onePageDraft: true,
  editableEventStates: ['DRAFT', 'READY_FOR_REVIEW', 'REJECTED'],
  schedule: { minMinutes: 15, maxDays: 31, publishLeadDays: 14 },
};

export interface ProductPageSeed {
  id?: string;
  name: string;
  visible?: boolean;
  /** Oldest first; each with its localizations (locale → promotional text). */
  versions?: {
    id?: string;
    state: string;
    deepLink?: string;
    localizations?: Record<string, string | null>;
  }[];
}

export interface AppEventSeed {
  id?: string;
  referenceName: string;
  badge?: string;
  eventState?: string;
  purpose?: string;
  priority?: string;
  primaryLocale?: string;
  territorySchedules?: TerritorySchedule[];
  localizations?: Record<string, Partial<EventLocalization['texts']>>;
}

export function createMarketingState() {
  const pages = new Map<string, ProductPage>();
  const pageVersions = new Map<string, PageVersion>();
  const pageLocalizations = new Map<string, PageLocalization>();
  const events = new Map<string, AppEvent>();
  const eventLocalizations = new Map<string, EventLocalization>();
  const rules: MarketingRules = structuredClone(DEFAULT_MARKETING_RULES);
  /** Every request to these resources as "METHOD path", oldest first: what tests compare. */
  const calls: string[] = [];

  function load(appId: string, pageSeeds: ProductPageSeed[] = [], eventSeeds: AppEventSeed[] = []) {
    for (const seed of pageSeeds) {
      const page: ProductPage = {
        id: seed.id ?? randomUUID(),
        appId,
        name: seed.name,
        visible: seed.visible ?? true,
      };
      pages.set(page.id, page);
      (seed.versions ?? []).forEach((v, index) => {
        const version: PageVersion = {
          id: v.id ?? randomUUID(),
          pageId: page.id,
          version: String(index + 1),
          state: v.state,
          deepLink: v.deepLink ?? null,
        };
        pageVersions.set(version.id, version);
        for (const [locale, promotionalText] of Object.entries(v.localizations ?? {})) {
          const id = randomUUID();
          pageLocalizations.set(id, { id, versionId: version.id, locale, promotionalText, keywords: [] });
        }
      });
    }
    for (const seed of eventSeeds) {
      const event: AppEvent = {
        id: seed.id ?? randomUUID(),
        appId,
        referenceName: seed.referenceName,
        badge: seed.badge ?? null,
        eventState: seed.eventState ?? 'DRAFT',
        deepLink: null,
        purchaseRequirement: null,
        primaryLocale: seed.primaryLocale ?? 'en-US',
        priority: seed.priority ?? 'NORMAL',
        purpose: seed.purpose ?? 'APPROPRIATE_FOR_ALL_USERS',
        territorySchedules: seed.territorySchedules ?? [],
      };
      events.set(event.id, event);
      for (const [locale, texts] of Object.entries(seed.localizations ?? {})) {
        const id = randomUUID();
        eventLocalizations.set(id, {
          id,
          eventId: event.id,
          locale,
          texts: {
            name: texts.name ?? null,
            shortDescription: texts.shortDescription ?? null,
            longDescription: texts.longDescription ?? null,
          },
        });
      }
    }
  }

  return {
    pages,
    pageVersions,
    pageLocalizations,
    events,
    eventLocalizations,
    rules,
    calls,
    load,
    pagesOf: (appId: string) => [...pages.values()].filter((p) => p.appId === appId),
    versionsOf: (pageId: string) =>
      [...pageVersions.values()]
        .filter((v) => v.pageId === pageId)
        .sort((a, b) => Number(a.version) - Number(b.version)),
    pageLocalizationsOf: (versionId: string) =>
      [...pageLocalizations.values()].filter((l) => l.versionId === versionId),
    eventsOf: (appId: string) => [...events.values()].filter((e) => e.appId === appId),
    eventLocalizationsOf: (eventId: string) =>
      [...eventLocalizations.values()].filter((l) => l.eventId === eventId),
    reset() {
      for (const map of [pages, pageVersions, pageLocalizations, events, eventLocalizations]) map.clear();
      Object.assign(rules, structuredClone(DEFAULT_MARKETING_RULES));
      calls.length = 0;
    },
  };
}

export type MarketingState = ReturnType<typeof createMarketingState>;
