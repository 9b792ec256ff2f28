/**
 * The one interface behind which both stores sit. Services speak in listings (locale → field →
 * text, with our field names); connectors translate to Apple's or Google's API and back.
 */
import type { Store } from '../shared/stores.js';

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

/** One locale's changes for a push; `create` when the store does not have the locale yet. */
export interface LocaleChange {
  locale: string;
  fields: FieldValues;
  create: boolean;
}

export interface PushOptions {
  /** Google Play: commit with changesNotSentForReview=true. */
  changesNotSentForReview?: boolean;
  /** Locales to delete from the store (push with prune). */
  removeLocales?: string[];
  /** Runs before every store write; throws a StoreError (code CANCELLED) to stop the push there. */
  beforeWrite?: () => Promise<void>;
  /** Told each locale whose changes the store took (progress of a background push). */
  onLocaleWritten?: (locale: string) => void;
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
  /** Store calls made, for logs and benchmarks. */
  calls: number;
}

export interface ReadReport {
  snapshot: StoreSnapshot;
  calls: number;
}

export interface StoreConnector {
  readonly store: Store;
  /** Checks that the credentials are accepted by the store. Throws StoreError. */
  verify(): Promise<void>;
  /** Reads every listing of the app. Throws StoreError when the app cannot be read at all. */
  read(appRef: string): Promise<ReadReport>;
  /**
   * Writes changed fields; one locale's failure does not stop the others. Throws StoreError only
   * when nothing could be written (auth, no editable version, edit could not be opened).
   */
  write(appRef: string, changes: LocaleChange[], options: PushOptions): Promise<PushReport>;
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
