/**
 * What every command shares: one JSON object or human lines on stdout, the database and services
 * of the composition root opened and closed around a command, errors in the command line's words,
 * and the operator's identity in an organization or project.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createDb, type Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { operatorContext, type RequestContext } from '../modules/access/index.js';
import { createServices, type Services } from '../services.js';
import { systemClock } from '../shared/clock.js';
import { resolveKeyRing } from '../shared/key-ring.js';

export interface Output {
  json: boolean;
}

export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

export function emit(output: Output, json: object, human: string[]): void {
  process.stdout.write(output.json ? `${JSON.stringify(json)}\n` : `${human.join('\n')}\n`);
}

/** Opens the database, applies pending migrations (unless told not to), runs the command, closes it. */
export async function withDatabase<T>(
  config: Config,
  run: (db: Db) => Promise<T>,
  options = { migrate: true },
): Promise<T> {
  const db = createDb(config.database);
  try {
    if (options.migrate) await migrateToLatest(db);
    return await run(db);
  } finally {
    await db.destroy();
  }
}

/**
 * The domain's names for what the user gave (fields such as `adminEmail`, or the kind of a thing
 * not found, such as `Organization`) mapped to the command's own flags, so that an error names
 * the flag the user typed.
 */
export type Flags = Record<string, string>;

/** The services of the composition root, on the configured database (migrated first). */
export async function withServices<T>(
  run: (services: Services, config: Config) => Promise<T>,
  flags: Flags = {},
): Promise<T> {
  const config = loadConfig();
  requireExistingDatabase(config);
  try {
    return await withDatabase(config, async (db) => {
      const services = createServices({
        db,
        clock: systemClock,
        config,
        keyRing: resolveKeyRing(config, createLogger(config)),
      });
      try {
        return await run(services, config);
      } finally {
        // A command may have queued jobs (webhook deliveries of its events); the queue's own
        // connections close here, the jobs wait in the database for a worker.
        await services.queue.close();
        await services.blobs.close();
      }
    });
  } catch (error) {
    throw error instanceof AppError ? inFlagTerms(error, flags) : error;
  }
}

/**
 * A command on the service's data needs the service's database: one run from another folder would
 * otherwise make a new, empty SQLite file there (DATABASE_URL's default is relative to the folder)
 * and a secret key beside it, then say only that nothing is found. `migrate` and `serve` create it.
 */
function requireExistingDatabase(config: Config): void {
  const { database } = config;
  if (database.kind !== 'sqlite' || database.path === ':memory:' || existsSync(database.path)) return;
  const file = path.resolve(database.path);
  throw new ConfigError([
    `DATABASE_URL: no appmeta database at ${file}` +
      (process.env.DATABASE_URL === undefined
        ? ' (the default, file:./data/appmeta.db, is relative to the folder you run appmeta in)'
        : '') +
      '; run appmeta from the folder the service runs in, set DATABASE_URL to its database, or create one with `appmeta migrate`',
  ]);
}

/**
 * The error in the words of the command line: a field that leads the message or stands in
 * parentheses becomes the flag (`--admin-email: must be an e-mail address`, `(--path)`), and a
 * thing not found says which flag named it.
 */
function inFlagTerms(error: AppError, flags: Flags): AppError {
  let message = error.message;
  for (const [name, flag] of Object.entries(flags)) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    message = message.replace(new RegExp(`^${escaped}:|\\(${escaped}(?=[;)])`, 'g'), (match) =>
      match.startsWith('(') ? `(${flag}` : `${flag}:`,
    );
    if (error.code === 'NOT_FOUND' && message.startsWith(`${name} not found`))
      message = `${message}: check ${flag}`;
  }
  const details = error.details?.map((detail) => ({ ...detail, field: flags[detail.field] ?? detail.field }));
  return new AppError(error.code, message, details);
}

/** The operator as the audit log records it: `cli:<os user>`. */
export function operatorName(): string {
  let user: string | undefined;
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): fall back to the environment.
    user = process.env.USER ?? process.env.LOGNAME;
  }
  return `cli:${user ?? 'unknown'}`;
}

/** Runs a command as the operator inside one organization (404 naming --org when there is none). */
export function withOrganization<T>(
  organizationId: string,
  run: (ctx: RequestContext, services: Services) => Promise<T>,
): Promise<T> {
  return withServices(
    async (services, config) => {
      await services.organizations.require(organizationId);
      return run(operatorContext(organizationId, createLogger(config), operatorName()), services);
    },
    { Organization: '--org' },
  );
}

/** Runs a command on one project as the operator, inside the project's organization. */
export function withProject<T>(
  projectId: string,
  run: (ctx: RequestContext, services: Services) => Promise<T>,
  flags: Flags = {},
): Promise<T> {
  return withServices(
    async (services, config) => {
      const organizationId = await services.projects.organizationOf(projectId);
      return run(operatorContext(organizationId, createLogger(config), operatorName()), services);
    },
    { Project: '--project', ...flags },
  );
}
