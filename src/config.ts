/**
 * Configuration is read from the environment once, at start-up, validated as a whole and frozen
 * (design.md §2). Every bad variable is reported at once, in one line per variable.
 */
import path from 'node:path';
import { DEFAULT_PRODUCT_LIMITS, withLimitOverrides, type ProductLimits } from './shared/product-fields.js';

/** Where media files are kept (BLOB_STORE_URL, S3_ENDPOINT, AWS_REGION). */
export type BlobStoreConfig =
  | { kind: 'file'; path: string }
  | { kind: 's3'; bucket: string; prefix: string; endpoint: string | null; region: string };

export type DatabaseConfig =
  | { kind: 'sqlite'; path: string }
  /** redisUrl: REDIS_URL, where the identity version lives (db/identity-version.ts); null keeps none. */
  | { kind: 'postgres'; url: string; redisUrl: string | null };

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly database: DatabaseConfig;
  readonly redisUrl: string | null;
  /** 32 raw bytes, or null when unset (then generated into ./data/secret.key in SQLite mode). */
  readonly secretKey: Buffer | null;
  /** Earlier keys, still accepted for decryption until `appmeta secrets rotate` re-encrypts. */
  readonly previousSecretKeys: Buffer[];
  readonly appstoreApiUrl: string;
  readonly playApiUrl: string;
  readonly googleTokenUrl: string;
  /** DeepL's base URL; null lets deepl-node choose by the key (`:fx` keys go to the free API). */
  readonly deeplApiUrl: string | null;
  /** A DeepL key for organizations that set none of their own (DEEPL_API_KEY); a secret. */
  readonly deeplApiKey: string | null;
  readonly logLevel: LogLevel;
  /**
   * Browser origins allowed to call the API (CORS), e.g. a dashboard on another host; `*` for
   * any. Empty: no CORS headers, browsers reach only pages served by this instance.
   */
  readonly corsOrigins: readonly string[];
  /** Seconds between a webhook delivery's attempts (WEBHOOK_RETRY_SCHEDULE). */
  readonly webhookRetrySchedule: readonly number[];
  /** Whether webhooks may reach private, loopback and link-local addresses (WEBHOOK_ALLOW_PRIVATE). */
  readonly webhookAllowPrivate: boolean;
  readonly blobStore: BlobStoreConfig;
  /** Limits of purchase and subscription texts, with APPMETA_PRODUCT_LIMITS applied (design.md §17). */
  readonly productLimits: ProductLimits;
  /** The Bearer token of GET /metrics (METRICS_TOKEN); null: no metrics are kept, /metrics is 404. */
  readonly metricsToken: string | null;
}

/**
 * The default retry schedule (design.md §11): 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h
 * until three days have passed since the first attempt.
 */
export const DEFAULT_WEBHOOK_RETRY_SCHEDULE: readonly number[] = (() => {
  const schedule = [5, 300, 1800, 7200, 18000];
  let total = schedule.reduce((a, b) => a + b, 0);
  while (total < 3 * 24 * 3600) {
    schedule.push(36000);
    total += 36000;
  }
  return Object.freeze(schedule);
})();

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === '' ? undefined : value;
  };

  const port = parsePort(read('PORT') ?? '3000');
  if (port === null) problems.push(`PORT must be an integer between 0 and 65535 (got "${read('PORT')}")`);

  const host = read('HOST') ?? '127.0.0.1';

  // The CLI in a reader's terminal has the server's address as APPMETA_URL (the first start prints
  // it): links it prints (login-link) then point where the server runs, whatever its port.
  const publicUrlRaw = read('PUBLIC_URL') ?? read('APPMETA_URL') ?? `http://localhost:${port ?? 3000}`;
  const publicUrl = parseHttpUrl(publicUrlRaw);
  if (publicUrl === null) problems.push(`PUBLIC_URL must be an http(s) URL (got "${publicUrlRaw}")`);

  const database = parseDatabaseUrl(read('DATABASE_URL') ?? 'file:./data/appmeta.db');
  if (typeof database === 'string') problems.push(database);

  const redisUrl = read('REDIS_URL') ?? null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) {
    problems.push('REDIS_URL must be a redis:// or rediss:// URL');
  }

  let secretKey: Buffer | null = null;
  const secretRaw = read('APPMETA_SECRET_KEY');
  if (secretRaw !== undefined) {
    secretKey = Buffer.from(secretRaw, 'base64');
    if (secretKey.length !== 32 || !/^[A-Za-z0-9+/]+={0,2}$/.test(secretRaw)) {
      problems.push('APPMETA_SECRET_KEY must be the base64 encoding of exactly 32 bytes');
      secretKey = null;
    }
  } else if (typeof database !== 'string' && database.kind === 'postgres') {
    problems.push('APPMETA_SECRET_KEY is required when DATABASE_URL is a PostgreSQL URL');
  }

  const previousSecretKeys: Buffer[] = [];
  for (const [index, raw] of (read('APPMETA_SECRET_KEY_PREVIOUS') ?? '')
    .split(',')
    .filter(Boolean)
    .entries()) {
    const key = Buffer.from(raw.trim(), 'base64');
    if (key.length !== 32)
      problems.push(`APPMETA_SECRET_KEY_PREVIOUS entry ${index + 1} must be base64 of 32 bytes`);
    else previousSecretKeys.push(key);
  }

  const urls = {
    appstoreApiUrl: ['APPSTORE_API_URL', 'https://api.appstoreconnect.apple.com'],
    playApiUrl: ['PLAY_API_URL', 'https://androidpublisher.googleapis.com'],
    googleTokenUrl: ['GOOGLE_TOKEN_URL', 'https://oauth2.googleapis.com/token'],
  } as const;
  const resolvedUrls = {} as Record<keyof typeof urls, string>;
  for (const [key, [name, fallback]] of Object.entries(urls) as [
    keyof typeof urls,
    readonly [string, string],
  ][]) {
    const parsed = parseHttpUrl(read(name) ?? fallback);
    if (parsed === null) problems.push(`${name} must be an http(s) URL`);
    resolvedUrls[key] = parsed ?? fallback;
  }

  const deeplUrlRaw = read('DEEPL_API_URL');
  const deeplApiUrl = deeplUrlRaw === undefined ? null : parseHttpUrl(deeplUrlRaw);
  if (deeplUrlRaw !== undefined && deeplApiUrl === null)
    problems.push('DEEPL_API_URL must be an http(s) URL');
  const deeplApiKey = read('DEEPL_API_KEY') ?? null;
  if (deeplApiKey !== null && !/^[\x21-\x7e]{1,200}$/.test(deeplApiKey)) {
    problems.push('DEEPL_API_KEY must be a DeepL authentication key (printable, no spaces)');
  }

  const logLevel = (read('LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const corsOrigins = parseOrigins(read('CORS_ORIGINS') ?? '');
  if (typeof corsOrigins === 'string') problems.push(corsOrigins);

  let webhookRetrySchedule = DEFAULT_WEBHOOK_RETRY_SCHEDULE;
  const scheduleRaw = read('WEBHOOK_RETRY_SCHEDULE');
  if (scheduleRaw !== undefined) {
    const parts = scheduleRaw.split(',').map((part) => part.trim());
    if (
      parts.some((part) => !/^\d{1,7}(\.\d{1,3})?$/.test(part) || Number(part) <= 0) ||
      parts.length > 100
    ) {
      problems.push(
        'WEBHOOK_RETRY_SCHEDULE must be up to 100 comma-separated positive numbers of seconds, e.g. 5,300,1800',
      );
    } else {
      webhookRetrySchedule = Object.freeze(parts.map(Number));
    }
  }

  const allowPrivateRaw = read('WEBHOOK_ALLOW_PRIVATE') ?? 'false';
  if (allowPrivateRaw !== 'true' && allowPrivateRaw !== 'false') {
    problems.push('WEBHOOK_ALLOW_PRIVATE must be true or false');
  }

  const blobStore = parseBlobStoreUrl(read('BLOB_STORE_URL') ?? 'file:./data/blobs', {
    endpoint: read('S3_ENDPOINT') ?? null,
    region: read('AWS_REGION') ?? read('AWS_DEFAULT_REGION') ?? 'us-east-1',
  });
  if (typeof blobStore === 'string') problems.push(blobStore);

  const productLimits = parseProductLimits(read('APPMETA_PRODUCT_LIMITS'));
  if (typeof productLimits === 'string') problems.push(productLimits);

  const metricsToken = read('METRICS_TOKEN') ?? null;
  if (metricsToken !== null && !/^[\x21-\x7e]{16,200}$/.test(metricsToken)) {
    problems.push('METRICS_TOKEN must be 16 to 200 printable characters without spaces');
  }

  if (problems.length > 0) throw new ConfigError(problems);

  return Object.freeze({
    port: port!,
    host,
    publicUrl: publicUrl!,
    database: withRedis(database as DatabaseConfig, redisUrl),
    redisUrl,
    secretKey,
    previousSecretKeys,
    ...resolvedUrls,
    deeplApiUrl,
    deeplApiKey,
    logLevel,
    corsOrigins: Object.freeze(corsOrigins as string[]),
    webhookRetrySchedule,
    webhookAllowPrivate: allowPrivateRaw === 'true',
    blobStore: Object.freeze(blobStore as BlobStoreConfig),
    productLimits: productLimits as ProductLimits,
    metricsToken,
  });
}

/**
 * APPMETA_PRODUCT_LIMITS: a JSON object of unconfirmed store limits to change, e.g.
 * `{"appstore.inAppPurchase.name.max": 30}` when Apple turns out to take 30.
 */
function parseProductLimits(raw: string | undefined): ProductLimits | string {
  if (raw === undefined) return DEFAULT_PRODUCT_LIMITS;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return 'APPMETA_PRODUCT_LIMITS must be a JSON object like {"appstore.inAppPurchase.name.max": 30}';
  }
  const result = withLimitOverrides(DEFAULT_PRODUCT_LIMITS, parsed as Record<string, unknown>);
  return 'problems' in result ? `APPMETA_PRODUCT_LIMITS: ${result.problems.join('; ')}` : result.limits;
}

/** `https://a.example, http://localhost:5173` or `*`; each entry an origin: scheme, host, port, no path. */
function parseOrigins(raw: string): string[] | string {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.includes('*')) {
    return entries.length === 1 ? ['*'] : 'CORS_ORIGINS is either * alone or a list of origins';
  }
  for (const entry of entries) {
    const origin = parseHttpUrl(entry) === null ? null : new URL(entry).origin;
    if (origin !== entry.replace(/\/+$/, '')) {
      return `CORS_ORIGINS entries must be origins like https://app.example.com, without a path (got "${entry}")`;
    }
  }
  return entries.map((entry) => entry.replace(/\/+$/, ''));
}

function parsePort(raw: string): number | null {
  if (!/^\d+$/.test(raw)) return null;
  const port = Number(raw);
  return port <= 65535 ? port : null;
}

/** Returns the URL without a trailing slash, or null when it is not http(s). */
function parseHttpUrl(raw: string): string | null {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return raw.replace(/\/+$/, '');
  } catch {
    return null;
  }
}

function parseBlobStoreUrl(
  raw: string,
  s3: { endpoint: string | null; region: string },
): BlobStoreConfig | string {
  if (raw.startsWith('file:')) {
    const directory = raw.slice('file:'.length);
    if (directory === '') return 'BLOB_STORE_URL file: needs a directory, e.g. file:./data/blobs';
    return { kind: 'file', path: path.resolve(directory) };
  }
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(raw);
  if (match === null) {
    return 'BLOB_STORE_URL must be file:<directory> or s3://<bucket>[/<prefix>] (got "' + raw + '")';
  }
  if (s3.endpoint !== null && parseHttpUrl(s3.endpoint) === null) return 'S3_ENDPOINT must be an http(s) URL';
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  return {
    kind: 's3',
    bucket: match[1]!,
    prefix: prefix === '' ? '' : `${prefix}/`,
    endpoint: s3.endpoint,
    region: s3.region,
  };
}

const withRedis = (database: DatabaseConfig, redisUrl: string | null): DatabaseConfig =>
  database.kind === 'postgres' ? { ...database, redisUrl } : database;

function parseDatabaseUrl(raw: string): DatabaseConfig | string {
  if (raw.startsWith('file:')) {
    const file = raw.slice('file:'.length);
    if (file === '') return 'DATABASE_URL file: needs a path, e.g. file:./data/appmeta.db';
    return { kind: 'sqlite', path: file === ':memory:' ? file : path.resolve(file) };
  }
  if (raw.startsWith('postgres://') || raw.startsWith('postgresql://')) {
    try {
      new URL(raw);
      return { kind: 'postgres', url: raw, redisUrl: null };
    } catch {
      return 'DATABASE_URL is not a valid postgres:// URL';
    }
  }
  return 'DATABASE_URL must start with file: (SQLite) or postgres:// (PostgreSQL)';
}
