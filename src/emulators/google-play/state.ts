/** The Google Play emulator's data: apps and their listings, service accounts, tokens, edits. */
import type { KeyObject } from 'node:crypto';
import { createPublicKey } from 'node:crypto';

export interface Listing {
  language: string;
  title?: string;
  shortDescription?: string;
  fullDescription?: string;
  video?: string;
}

/** A release of a track, as Google's `TrackRelease` (B2.1). */
export interface TrackRelease {
  name?: string;
  versionCodes?: string[];
  status?: string;
  userFraction?: number;
  inAppUpdatePriority?: number;
  releaseNotes?: { language: string; text: string }[];
  countryTargeting?: { countries?: string[]; includeRestOfWorld?: boolean };
}

/** track name → active releases. */
export type Tracks = Map<string, TrackRelease[]>;

export const copyTracks = (tracks: Tracks): Tracks =>
  new Map([...tracks].map(([name, releases]) => [name, structuredClone(releases)]));

/** A one-time product (`inappproducts`, §A6): the fields the emulator keeps, as Google's `InAppProduct`. */
export interface InAppProduct {
  packageName: string;
  sku: string;
  status: 'active' | 'inactive' | 'statusUnspecified';
  purchaseType: 'managedUser';
  defaultLanguage: string;
  listings: Record<string, { title?: string; description?: string; benefits?: string[] }>;
  defaultPrice?: { priceMicros: string; currency: string };
}

/** A subscription (`monetization.subscriptions`, §A7), as Google's `Subscription`. */
export interface Subscription {
  packageName: string;
  productId: string;
  listings: { languageCode: string; title: string; description?: string; benefits?: string[] }[];
  basePlans?: { basePlanId: string; state: string }[];
}

/** Product limits the emulator enforces; the unconfirmed ones are settings (stores-more.md §F). */
export interface ProductRules {
  inAppTitle: number;
  inAppDescription: number;
  subscriptionTitle: number;
  subscriptionDescription: number;
  benefits: number;
  benefitLength: number;
  /** What `inappproducts.list` returns per page (Google chooses; callers cannot). */
  inAppPageSize: number;
}

export const DEFAULT_PRODUCT_RULES: ProductRules = {
  inAppTitle: 55,
  inAppDescription: 200,
  subscriptionTitle: 55,
  subscriptionDescription: 80,
  benefits: 4,
  benefitLength: 40,
  inAppPageSize: 100,
};

export interface PlaySeed {
  serviceAccounts?: { clientEmail: string; publicKey: string }[];
  apps?: {
    packageName: string;
    defaultLanguage?: string;
    /** Contact details (stores-more.md §C5). */
    contact?: { contactEmail?: string; contactPhone?: string; contactWebsite?: string };
    listings?: Record<string, Omit<Listing, 'language'>>;
    /** Service accounts allowed on this app (default: all registered ones). */
    grants?: string[];
    /** The app needs changes sent for review from the Console (commit needs changesNotSentForReview=true). */
    manualReview?: boolean;
    /** The app's artifact library: version code → version name (B2.6). */
    artifacts?: Record<string, string>;
    /** Tracks and their active releases. */
    tracks?: Record<string, TrackRelease[]>;
    /** One-time products (live, outside edits). */
    inAppProducts?: Omit<InAppProduct, 'packageName' | 'purchaseType' | 'defaultLanguage'>[];
    /** Subscriptions (live, outside edits). */
    subscriptions?: Omit<Subscription, 'packageName'>[];
  }[];
  /** Product limits (stores-more.md §F); the default is the best-known value of each. */
  productRules?: Partial<ProductRules>;
  /** Reading an empty track is 404 `trackEmpty` (an older behaviour) instead of 200 with no releases. */
  emptyTrackNotFound?: boolean;
  /** Seconds an edit lives (default 3600). */
  editTtlSeconds?: number;
  /** Seconds an access token lives (default 3599). */
  tokenTtlSeconds?: number;
  /** Image dimension rules checked at commit instead of upload (stores-media.md C). */
  deferImageChecks?: boolean;
  /** Fewer screenshots than this across a language's types is refused at commit (0: off). */
  minScreenshots?: number;
}

export interface PlayImage {
  id: string;
  width: number;
  height: number;
  sha1: string;
  sha256: string;
  bytes: Buffer;
  contentType: string;
}

/** language → image type → images in upload order. */
export type ImagesByLanguage = Map<string, Map<string, PlayImage[]>>;

export const copyImages = (images: ImagesByLanguage): ImagesByLanguage =>
  new Map(
    [...images].map(([language, byType]) => [language, new Map([...byType].map(([t, l]) => [t, [...l]]))]),
  );

/** Google's `AppDetails` (stores-more.md §C5): the app's default language and contact details. */
export interface AppDetails {
  defaultLanguage: string;
  contactEmail?: string;
  contactPhone?: string;
  contactWebsite?: string;
}

export interface Edit {
  id: string;
  packageName: string;
  owner: string;
  listings: Map<string, Listing>;
  details: AppDetails;
  /** The edit wrote the details (a commit then checks them). */
  detailsChanged: boolean;
  images: ImagesByLanguage;
  tracks: Tracks;
  expiresAt: number;
  status: 'open' | 'committed' | 'deleted';
}

export function createPlayState(seed: PlaySeed = {}, now: () => number = Date.now) {
  const accounts = new Map<string, KeyObject>();
  const apps = new Map<
    string,
    {
      packageName: string;
      defaultLanguage: string;
      contact: { contactEmail?: string; contactPhone?: string; contactWebsite?: string };
      listings: Map<string, Listing>;
      grants: string[] | null;
      manualReview: boolean;
      images: ImagesByLanguage;
      artifacts: Map<string, string>;
      tracks: Tracks;
      inAppProducts: Map<string, InAppProduct>;
      subscriptions: Map<string, Subscription>;
    }
  >();
  const productRules: ProductRules = { ...DEFAULT_PRODUCT_RULES, ...seed.productRules };
  /** Every product request as "METHOD path" (after the package name), oldest first: what tests compare. */
  const productCalls: string[] = [];
  /** Every write of app details ("PATCH details", "PUT details"), oldest first. */
  const detailsCalls: string[] = [];
  /** Every image uploaded, by id: what the preview URLs serve. */
  const imageFiles = new Map<string, PlayImage>();
  const tokens = new Map<string, { email: string; expiresAt: number }>();
  const edits = new Map<string, Edit>();
  let editTtl = seed.editTtlSeconds ?? 3600;
  let tokenTtl = seed.tokenTtlSeconds ?? 3599;
  const imageRules = {
    deferChecks: seed.deferImageChecks ?? false,
    minScreenshots: seed.minScreenshots ?? 0,
  };
  const trackRules = { emptyTrackNotFound: seed.emptyTrackNotFound ?? false };
  const counters = {
    tokenRequests: 0,
    requests: 0,
    editsInserted: 0,
    editsCommitted: 0,
    editsDeleted: 0,
    listingWrites: 0,
    imageUploads: 0,
  };

  function load(next: PlaySeed) {
    for (const account of next.serviceAccounts ?? [])
      accounts.set(account.clientEmail, createPublicKey(account.publicKey));
    if (next.editTtlSeconds !== undefined) editTtl = next.editTtlSeconds;
    if (next.tokenTtlSeconds !== undefined) tokenTtl = next.tokenTtlSeconds;
    if (next.deferImageChecks !== undefined) imageRules.deferChecks = next.deferImageChecks;
    if (next.minScreenshots !== undefined) imageRules.minScreenshots = next.minScreenshots;
    if (next.emptyTrackNotFound !== undefined) trackRules.emptyTrackNotFound = next.emptyTrackNotFound;
    if (next.productRules !== undefined) Object.assign(productRules, next.productRules);
    for (const app of next.apps ?? []) {
      const defaultLanguage = app.defaultLanguage ?? 'en-US';
      apps.set(app.packageName, {
        packageName: app.packageName,
        defaultLanguage,
        contact: { ...app.contact },
        inAppProducts: new Map(
          (app.inAppProducts ?? []).map((p) => [
            p.sku,
            structuredClone({
              ...p,
              packageName: app.packageName,
              purchaseType: 'managedUser' as const,
              defaultLanguage,
            }),
          ]),
        ),
        subscriptions: new Map(
          (app.subscriptions ?? []).map((s) => [
            s.productId,
            structuredClone({ ...s, packageName: app.packageName }),
          ]),
        ),
        listings: new Map(
          Object.entries(app.listings ?? {}).map(([language, l]) => [language, { language, ...l }]),
        ),
        grants: app.grants ?? null,
        manualReview: app.manualReview ?? false,
        images: new Map(),
        artifacts: new Map(Object.entries(app.artifacts ?? {})),
        tracks: new Map(
          Object.entries(app.tracks ?? {}).map(([name, releases]) => [name, structuredClone(releases)]),
        ),
      });
    }
  }
  load(seed);

  return {
    accounts,
    apps,
    tokens,
    edits,
    imageFiles,
    imageRules,
    trackRules,
    productRules,
    productCalls,
    detailsCalls,
    counters,
    load,
    get editTtl() {
      return editTtl;
    },
    get tokenTtl() {
      return tokenTtl;
    },
    /** Forgets everything: data, settings and counters. */
    reset() {
      for (const map of [accounts, apps, tokens, edits, imageFiles]) map.clear();
      editTtl = 3600;
      imageRules.deferChecks = false;
      imageRules.minScreenshots = 0;
      trackRules.emptyTrackNotFound = false;
      Object.assign(productRules, DEFAULT_PRODUCT_RULES);
      productCalls.length = 0;
      detailsCalls.length = 0;
      tokenTtl = 3599;
      for (const key of Object.keys(counters) as (keyof typeof counters)[]) counters[key] = 0;
    },
    /** Edits still open (neither committed nor deleted nor expired). */
    openEdits: () => [...edits.values()].filter((e) => e.status === 'open' && e.expiresAt > now()),
    snapshot: (packageName: string) => Object.fromEntries(apps.get(packageName)?.listings ?? []),
    now,
  };
}

export type PlayState = ReturnType<typeof createPlayState>;
