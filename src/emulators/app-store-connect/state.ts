/** The App Store Connect emulator's data: apps, appInfos, versions, localizations, rate usage. */
import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import { DEFAULT_MEDIA_SETTINGS, type MediaAsset, type MediaSet } from './media-state.js';
import {
  createPurchasesState,
  type PurchaseRules,
  type PurchaseSeed,
  type SubscriptionGroupSeed,
} from './purchases-state.js';
import {
  createMarketingState,
  type AppEventSeed,
  type MarketingRules,
  type ProductPageSeed,
} from './marketing-state.js';
import { createDetailsState } from './details-state.js';

export interface AscSeed {
  keys?: { issuerId: string; keyId: string; publicKey: string }[];
  apps?: {
    id: string;
    bundleId: string;
    name: string;
    primaryLocale?: string;
    appInfos?: {
      id?: string;
      state: string;
      localizations?: Record<string, Record<string, string | null>>;
    }[];
    versions?: {
      id?: string;
      platform?: string;
      versionString: string;
      appVersionState: string;
      localizations?: Record<string, Record<string, string | null>>;
    }[];
    /** In-app purchases (stores-more.md §A). */
    inAppPurchases?: PurchaseSeed[];
    /** Subscription groups and their subscriptions. */
    subscriptionGroups?: SubscriptionGroupSeed[];
    /** Custom product pages (stores-more.md §B1). */
    productPages?: ProductPageSeed[];
    /** In-app events (stores-more.md §B2). */
    appEvents?: AppEventSeed[];
  }[];
  /** Page and event rules whose values Apple has not published (stores-more.md §B). */
  marketingRules?: Partial<MarketingRules>;
  /** In-app purchase rules whose values Apple has not published (stores-more.md §F). */
  purchaseRules?: Partial<PurchaseRules>;
  /** Requests per key per rolling hour (default 3600). */
  hourlyLimit?: number;
  /** Largest page the emulator returns whatever `limit` asks (Apple may return fewer); default 200. */
  pageSize?: number;
}

export interface Localization {
  id: string;
  parentId: string;
  locale: string;
  attributes: Record<string, string | null>;
}

export interface Version {
  id: string;
  appId: string;
  platform: string;
  versionString: string;
  appVersionState: string;
  createdDate: string;
  /** MANUAL, AFTER_APPROVAL (Apple's default) or SCHEDULED with earliestReleaseDate. */
  releaseType?: string;
  earliestReleaseDate?: string | null;
}

/** A version's phased release (the spec's appStoreVersionPhasedReleases). */
export interface PhasedRelease {
  id: string;
  versionId: string;
  state: 'INACTIVE' | 'ACTIVE' | 'PAUSED' | 'COMPLETE';
  startDate: string | null;
  pausedAt: number | null;
  pausedMs: number;
}

/** What a new version carries forward from the latest one (B1.2: unconfirmed, so knobs). */
export interface VersionSettings {
  copyTexts: boolean;
  copyMedia: boolean;
}

const DEFAULT_VERSION_SETTINGS: VersionSettings = { copyTexts: true, copyMedia: true };

export function createAppStoreState(seed: AscSeed = {}, now: () => number = Date.now) {
  const keys = new Map<string, { issuerId: string; publicKey: KeyObject }>();
  const apps = new Map<string, { id: string; bundleId: string; name: string; primaryLocale: string }>();
  const appInfos = new Map<string, { id: string; appId: string; state: string }>();
  const versions = new Map<string, Version>();
  const infoLocs = new Map<string, Localization>();
  const versionLocs = new Map<string, Localization>();
  const usage = new Map<string, number[]>();
  const purchases = createPurchasesState();
  const marketing = createMarketingState();
  const details = createDetailsState();
  const phasedReleases = new Map<string, PhasedRelease>();
  let hourlyLimit = seed.hourlyLimit ?? 3600;
  let pageSize = seed.pageSize ?? 200;
  const counters = { requests: 0, writes: 0 };
  const media = {
    sets: new Map<string, MediaSet>(),
    assets: new Map<string, MediaAsset>(),
    settings: { ...DEFAULT_MEDIA_SETTINGS },
  };

  function load(next: AscSeed) {
    for (const key of next.keys ?? []) {
      keys.set(key.keyId, { issuerId: key.issuerId, publicKey: createPublicKey(key.publicKey) });
    }
    if (next.hourlyLimit !== undefined) hourlyLimit = next.hourlyLimit;
    if (next.pageSize !== undefined) pageSize = next.pageSize;
    if (next.purchaseRules !== undefined) Object.assign(purchases.rules, next.purchaseRules);
    if (next.marketingRules !== undefined) Object.assign(marketing.rules, next.marketingRules);
    for (const app of next.apps ?? []) {
      purchases.load(app.id, app.inAppPurchases, app.subscriptionGroups);
      marketing.load(app.id, app.productPages, app.appEvents);
      apps.set(app.id, {
        id: app.id,
        bundleId: app.bundleId,
        name: app.name,
        primaryLocale: app.primaryLocale ?? 'en-US',
      });
      for (const info of app.appInfos ?? []) {
        const id = info.id ?? randomUUID();
        appInfos.set(id, { id, appId: app.id, state: info.state });
        for (const [locale, attributes] of Object.entries(info.localizations ?? {})) {
          const locId = randomUUID();
          infoLocs.set(locId, { id: locId, parentId: id, locale, attributes: { ...attributes } });
        }
      }
      for (const version of app.versions ?? []) {
        const id = version.id ?? randomUUID();
        versions.set(id, {
          id,
          appId: app.id,
          platform: version.platform ?? 'IOS',
          versionString: version.versionString,
          appVersionState: version.appVersionState,
          createdDate: new Date(now()).toISOString(),
        });
        for (const [locale, attributes] of Object.entries(version.localizations ?? {})) {
          const locId = randomUUID();
          versionLocs.set(locId, { id: locId, parentId: id, locale, attributes: { ...attributes } });
        }
      }
    }
  }
  load(seed);

  return {
    counters,
    get pageSize() {
      return pageSize;
    },
    keys,
    apps,
    appInfos,
    versions,
    infoLocs,
    versionLocs,
    media,
    purchases,
    marketing,
    details,
    phasedReleases,
    versionSettings: { ...DEFAULT_VERSION_SETTINGS },
    load,
    /**
     * The version goes live (App Review approved it and it was released): READY_FOR_DISTRIBUTION,
     * the previous live one replaced, its phased release ACTIVE from now.
     */
    releaseVersion(versionId: string) {
      const version = versions.get(versionId);
      if (version === undefined) throw new Error(`no version ${versionId}`);
      for (const other of versions.values()) {
        if (
          other.appId === version.appId &&
          other.platform === version.platform &&
          other.appVersionState === 'READY_FOR_DISTRIBUTION'
        )
          other.appVersionState = 'REPLACED_WITH_NEW_VERSION';
      }
      version.appVersionState = 'READY_FOR_DISTRIBUTION';
      for (const p of phasedReleases.values()) {
        if (p.versionId === versionId && p.state === 'INACTIVE') {
          p.state = 'ACTIVE';
          p.startDate = new Date(now()).toISOString();
        }
      }
    },
    /** Forgets everything: data, settings and counters. */
    reset() {
      for (const map of [keys, apps, appInfos, versions, infoLocs, versionLocs, usage]) map.clear();
      details.clear();
      phasedReleases.clear();
      media.sets.clear();
      media.assets.clear();
      purchases.reset();
      marketing.reset();
      media.settings = { ...DEFAULT_MEDIA_SETTINGS };
      this.versionSettings = { ...DEFAULT_VERSION_SETTINGS };
      hourlyLimit = 3600;
      pageSize = 200;
      counters.requests = 0;
      counters.writes = 0;
    },
    /** Counts a request against the key's rolling hour; returns the remaining allowance. */
    count(keyId: string): { limit: number; remaining: number } {
      const hourAgo = now() - 3600_000;
      const recent = (usage.get(keyId) ?? []).filter((t) => t > hourAgo);
      recent.push(now());
      usage.set(keyId, recent);
      return { limit: hourlyLimit, remaining: hourlyLimit - recent.length };
    },
    /** The listing texts of an app as a test sees them: locale → attribute → value. */
    snapshot(appId: string) {
      const out: Record<
        string,
        {
          appInfos: Record<string, Record<string, string | null>>;
          versions: Record<string, Record<string, string | null>>;
        }
      > = {};
      for (const info of [...appInfos.values()].filter((i) => i.appId === appId)) {
        for (const loc of [...infoLocs.values()].filter((l) => l.parentId === info.id)) {
          (out[info.id] ??= { appInfos: {}, versions: {} }).appInfos[loc.locale] = { ...loc.attributes };
        }
      }
      for (const version of [...versions.values()].filter((v) => v.appId === appId)) {
        for (const loc of [...versionLocs.values()].filter((l) => l.parentId === version.id)) {
          (out[version.id] ??= { appInfos: {}, versions: {} }).versions[loc.locale] = { ...loc.attributes };
        }
      }
      return out;
    },
    now,
  };
}

export type AppStoreState = ReturnType<typeof createAppStoreState>;
