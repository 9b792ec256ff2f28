/**
 * The one interface behind which both stores sit. Services speak in listings (locale → field →
 * text, with our field names); connectors translate to Apple's or Google's API and back.
 */
import type { Readable } from 'node:stream';
import type { Store } from '../shared/stores.js';
import type { ReleaseControl, StoreReleaseControls } from './release-control.js';

export type {
  ReleaseControl,
  ReleaseControlAction,
  StorePhasedRelease,
  StoreReleaseControls,
} from './release-control.js';

/** App Store Connect API credentials: a team key (issuer, key id, the .p8). */
export interface AppStoreSecret {
  store: 'appstore';
  issuerId: string;
  keyId: string;
  privateKey: string;
}

/** The fields of a Google service-account key that we use; `token_uri` is never used (design.md §2). */
export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  project_id?: string;
}

export interface PlayStoreSecret {
  store: 'playstore';
  serviceAccount: ServiceAccount;
}

export type StoreSecret = AppStoreSecret | PlayStoreSecret;

/** Makes the connector for a store secret. */
export type ConnectorFactory = (secret: StoreSecret) => StoreConnector;

export type FieldValues = Record<string, string | null>;

/** What a store holds for one app: locale → field → text. */
export type StoreSnapshot = Map<string, FieldValues>;

/**
 * One file in a store's media slot, as the store names it. Slot types are ours: App Store display
 * types (`APP_IPHONE_67`), preview types as `PREVIEW_<previewType>`, Google Play image types.
 */
export interface StoreMediaFile {
  /**
   * The store's identity of the file: App Store `sourceFileChecksum` (MD5 of the file as
   * uploaded; null while processing has not shown it), Google Play `sha256`.
   */
  checksum: string | null;
  /** Where the bytes can be downloaded; App Store serves a re-encoded copy (never compare its bytes). */
  url: string | null;
  fileName: string | null;
}

/** locale → slot type → files in store order (settled files only). */
export type StoreMedia = Map<string, Map<string, StoreMediaFile[]>>;

/** A file a push may upload: what the store needs to know, and its bytes on demand. */
export interface MediaFile {
  sha256: string;
  md5: string;
  bytes: number;
  contentType: string;
  fileName: string;
  /** The bytes (or a range, inclusive), streamed from the blob store. */
  open(range?: { start: number; end: number }): Promise<Readable>;
}

/** A slot a push brings to exactly `files`, in order. */
export interface MediaSlotChange {
  locale: string;
  slotType: string;
  files: MediaFile[];
}

export interface MediaItemFailure {
  locale: string;
  slotType: string;
  /** The file the store refused, when one was. */
  sha256: string | null;
  error: { code: string; message: string };
}

/** What a push left in a slot. */
export interface MediaSlotResult {
  locale: string;
  slotType: string;
  /** SHA-256 of the files the slot holds after the push, in store order; null when not known. */
  stored: string[] | null;
  uploaded: number;
  deleted: number;
  reordered: boolean;
  failures: MediaItemFailure[];
}

/** Progress of a media push, one settled (or failed) file at a time. */
export interface MediaProgress {
  locale: string;
  slotType: string;
  sha256: string;
  state: 'uploaded' | 'failed';
}

/** An App Store version as appmeta shows it (stores-media.md B1). */
export interface StoreVersion {
  id: string;
  platform: string;
  versionString: string;
  state: string;
  /** Its localizations may be written (stores.md §2.1). */
  editable: boolean;
  createdDate: string | null;
}

/** A Google Play track release (stores-media.md B2). */
export interface StoreTrackRelease {
  name: string | null;
  versionCodes: string[];
  status: string;
  userFraction: number | null;
  /** language → text. */
  releaseNotes: Record<string, string>;
}

export interface StoreTrack {
  track: string;
  releases: StoreTrackRelease[];
}

/** An app's versions (App Store) or tracks (Google Play); the other list is empty. */
export interface StoreReleases {
  versions: StoreVersion[];
  tracks: StoreTrack[];
}

/** Google Play: the notes of the release of `track` that contains `versionCode`; null removes a language. */
export interface ReleaseNotesChange {
  track: string;
  versionCode: string;
  notes: Record<string, string | null>;
}

export interface ReleaseNotesResult {
  track: string;
  versionCode: string;
  written: boolean;
  error?: { code: string; message: string };
}

/** One locale's changes for a push; `create` when the store does not have the locale yet. */
export interface LocaleChange {
  locale: string;
  fields: FieldValues;
  create: boolean;
}

export interface PushOptions {
  /**
   * Compare each locale with the store before writing it and write only what differs (a push
   * resumed after its instance died, whose earlier writes may have landed). App Store Connect's
   * connector always does; Google Play's reads the listings once for it.
   */
  readFirst?: boolean;
  /** Google Play: commit with changesNotSentForReview=true. */
  changesNotSentForReview?: boolean;
  /** Locales to delete from the store (push with prune). */
  removeLocales?: string[];
  /** Runs before every store write; throws a StoreError (code CANCELLED) to stop the push there. */
  beforeWrite?: () => Promise<void>;
  /** Told each locale whose changes the store took (progress of a background push). */
  onLocaleWritten?: (locale: string) => void;
  /** Media slots to bring to their files (changed slots only). */
  media?: MediaSlotChange[];
  /** Told each file the store settled or refused (progress of a background push). */
  onMediaItem?: (progress: MediaProgress) => void;
  /** Google Play release notes to write (in the edit that carries the texts). */
  releaseNotes?: ReleaseNotesChange[];
}

export interface LocaleFailure {
  locale: string;
  /** The field the store refused, when it said which. */
  field: string | null;
  error: { code: string; message: string };
}

export interface PushReport {
  /** Locales whose changes the store accepted. */
  written: string[];
  removed: string[];
  failures: LocaleFailure[];
  /** One result per media slot of the push. */
  media: MediaSlotResult[];
  /** Bytes of media sent to the store. */
  uploadedBytes: number;
  /** One result per release whose notes the push wrote (Google Play). */
  releaseNotes: ReleaseNotesResult[];
  /** Store calls made, for logs and benchmarks. */
  calls: number;
}

export interface ReadOptions {
  /** Read the screenshots, previews and images too (default true). */
  media?: boolean;
  /** Read the versions or tracks too (default true). */
  releases?: boolean;
}

export interface ReadReport {
  snapshot: StoreSnapshot;
  media: StoreMedia;
  releases: StoreReleases;
  calls: number;
}

/**
 * A store item with localized texts (design.md §17, §18): an in-app purchase, subscription or
 * subscription group; on the App Store also a custom product page or an in-app event.
 */
export interface StoreProduct {
  kind: string;
  /** The product id; for a page or an event, the store's id of it. */
  productId: string;
  referenceName: string | null;
  state: string | null;
  /** The store's own id of the product (App Store resource id; a page's newest version). */
  storeRef: string | null;
  /** locale → field → text; a list (Google Play benefits) holds one item per line. */
  texts: Map<string, FieldValues>;
  /** What else the store says of it, shown read-only (a page's URL and version, an event's badge and schedule). */
  details?: Record<string, unknown>;
  /** Why the store refuses changes to its texts now; absent or null when it takes them. */
  locked?: string | null;
  /** A custom product page's screenshots and previews: locale → slot type → files. */
  media?: StoreMedia;
}

/** A product's changed texts; a locale the store does not have yet is created. */
export interface ProductChange {
  kind: string;
  productId: string;
  storeRef: string | null;
  /** locale → field → text (null clears an optional text). */
  locales: Record<string, FieldValues>;
  /** A custom product page's slots to bring to their files (after its texts). */
  media?: MediaSlotChange[];
}

export interface ProductResult {
  productId: string;
  /** Locales whose texts the store took. */
  written: string[];
  failures: LocaleFailure[];
  /** What a page's media push left in each slot. */
  media?: MediaSlotResult[];
}

export interface ProductWriteOptions {
  /** Runs before every store write; throws a StoreError (code CANCELLED) to stop there. */
  beforeWrite?: () => Promise<void>;
  /** Told each product once tried: all of its locales taken, or some refused. */
  onProduct?: (productId: string, state: 'written' | 'failed') => void;
}

export interface ProductsReport {
  /** One per product asked for, in order: one product's failure never stops another. */
  results: ProductResult[];
  calls: number;
}

/**
 * App details and App Review information (design.md §19): one store's fields as it has them.
 * App Store: `copyright` (the version being prepared), `primaryCategory`, `secondaryCategory`,
 * `review.*` (the demo account password included: a secret the caller must keep as one);
 * Google Play: `contactEmail`, `contactPhone`, `contactWebsite`, `defaultLanguage`.
 */
export type StoreDetails = Record<string, string | boolean | null>;

export interface DetailsWriteOptions {
  beforeWrite?: () => Promise<void>;
  /** Google Play: commit with changesNotSentForReview=true. */
  changesNotSentForReview?: boolean;
}

export interface DetailsReport {
  /** Fields the store took. */
  written: string[];
  /** Fields it refused, each with its reason (one refusal may fail several fields). */
  failures: { field: string; error: { code: string; message: string } }[];
  calls: number;
}

export interface StoreConnector {
  readonly store: Store;
  /** Checks that the credentials are accepted by the store. Throws StoreError. */
  verify(): Promise<void>;
  /**
   * Reads every listing of the app, and unless told otherwise its media and releases (a drift
   * check needs only the texts). Throws StoreError when the app cannot be read at all.
   */
  read(appRef: string, options?: ReadOptions): Promise<ReadReport>;
  /**
   * Writes changed fields; one locale's failure does not stop the others. Throws StoreError only
   * when nothing could be written (auth, no editable version, edit could not be opened).
   */
  write(appRef: string, changes: LocaleChange[], options: PushOptions): Promise<PushReport>;
  /**
   * Streams the bytes of a store file (`StoreMediaFile.url`) into `into`, which may be called again
   * when an attempt fails midway. Throws StoreError.
   */
  download(url: string, into: (body: Readable) => Promise<void>): Promise<void>;
  /** The app's versions (App Store) or tracks (Google Play). Throws StoreError. */
  readReleases(appRef: string): Promise<StoreReleases>;
  /**
   * App Store: creates the next version (PREPARE_FOR_SUBMISSION). The store's refusal (an
   * unreleased version exists, a version string used before) is thrown as StoreError.
   */
  createVersion(appRef: string, versionString: string): Promise<StoreVersion>;
  /** The release controls of the app as the store has them (design.md §20). Throws StoreError. */
  readReleaseControls(appRef: string): Promise<StoreReleaseControls>;
  /**
   * Applies one release control and answers the controls after it; the store's refusal (a state
   * that does not allow it) is thrown as StoreError, a control of the other store as UNSUPPORTED.
   */
  applyReleaseControl(appRef: string, control: ReleaseControl): Promise<StoreReleaseControls>;
  /**
   * The app's in-app purchases and subscriptions with their texts; on the App Store also its
   * custom product pages (with their media) and in-app events. Google Play's custom store
   * listings and experiments have no public API. Throws StoreError.
   */
  readProducts(appRef: string): Promise<{ products: StoreProduct[]; calls: number }>;
  /** The app's details and App Review information (design.md §19). Throws StoreError. */
  readDetails(appRef: string): Promise<{ details: StoreDetails; calls: number }>;
  /**
   * Writes changed details (field → value; App Store review fields as `review.<name>`). A refusal
   * is reported per field; throws StoreError only when nothing could be tried (auth).
   */
  writeDetails(appRef: string, changes: StoreDetails, options: DetailsWriteOptions): Promise<DetailsReport>;
  /**
   * Writes products' changed texts (never creates or deletes a product). A product's failure is
   * reported in its result; throws StoreError only when nothing could be tried (auth).
   */
  writeProducts(
    appRef: string,
    changes: ProductChange[],
    options: ProductWriteOptions,
  ): Promise<ProductsReport>;
}

/** A store's refusal or failure, mapped from its own error body (stores.md §6). */
export class StoreError extends Error {
  constructor(
    readonly store: Store,
    readonly code: string,
    message: string,
    readonly status: number | null,
    readonly retryable: boolean,
    readonly field: string | null = null,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}
