/** What the composition root is given (services.ts): the database, the clock, the configuration and the keys, and what a caller may replace. */
import type { Config } from './config.js';
import type { ConnectorFactory } from './connectors/store-connector.js';
import type { TranslationProvider } from './connectors/translation-provider.js';
import type { Db } from './db/database.js';
import type { BlobStore } from './blobs/index.js';
import type { JobQueue } from './jobs/index.js';
import type { Metrics } from './metrics/index.js';
import type { Logger } from 'pino';
import type { Clock } from './shared/clock.js';
import type { KeyRing } from './shared/key-ring.js';

export interface ServiceDeps {
  db: Db;
  clock: Clock;
  config: Config;
  keyRing: KeyRing;
  /** How connectors are made; by default aimed at the configured store URLs. */
  connectors?: ConnectorFactory;
  /** How long a sync or push waits for another one of the same project. */
  lockWaitMs?: number;
  /** Where background parts log; silent by default (the CLI's short-lived services). */
  log?: Logger;
  /** The job queue; by default the database's own (pg-boss, or the SQLite table). */
  queue?: JobQueue;
  /** Where media files are kept; by default the store BLOB_STORE_URL names. */
  blobs?: BlobStore;
  /** The machine translation provider; by default DeepL at DEEPL_API_URL. */
  translationProvider?: TranslationProvider;
  /** Where store calls, jobs and webhook deliveries are counted (GET /metrics); by default nowhere. */
  metrics?: Metrics;
}
