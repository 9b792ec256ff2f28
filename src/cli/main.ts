/**
 * The operator CLI (design.md §3). Every command accepts --json and then prints exactly one JSON
 * object on stdout; logs go to stderr. Exit status: 0 success, 1 failure, 2 bad configuration.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createDb, DatabaseOpenError, type Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { demoSetup, DEMO_APP_ID, DEMO_PACKAGE } from '../emulators/demo.js';
import { createEmulators, type EmulatorSeed } from '../emulators/server.js';
import { AppError, invalidField } from '../errors.js';
import { createLogger } from '../logger.js';
import { operatorContext, type OperationId, type RequestContext } from '../modules/access/index.js';
import { IMPORT_LIMITS } from '../modules/listings/index.js';
import { startServer, StartupError, stopOnSignals } from '../server.js';
import { createServices, type Services } from '../services.js';
import { systemClock } from '../shared/clock.js';
import { resolveKeyRing } from '../shared/key-ring.js';

/**
 * Every command and the operation (src/modules/access) it performs: operator operations, or the
 * same operation as a REST route (done with the operator's admin rights in the project's
 * organization). test/operations.test.ts checks this table against the commands.
 */
export const COMMAND_OPERATIONS = {
  serve: 'server.serve',
  migrate: 'database.migrate',
  'org create': 'organization.create',
  'org set-plan': 'organization.setPlan',
  'key create': 'apiKeys.issue',
  emulate: 'emulators.run',
  'secrets rotate': 'credentials.rotateKeys',
  'listings export': 'listings.export',
  'listings import': 'listings.import',
} as const satisfies Record<string, OperationId>;

interface Output {
  json: boolean;
}

function emit(output: Output, json: object, human: string[]): void {
  process.stdout.write(output.json ? `${JSON.stringify(json)}\n` : `${human.join('\n')}\n`);
}

/** Opens the database, applies pending migrations (unless told not to), runs the command, closes it. */
async function withDatabase<T>(
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

/** The services of the composition root, on the configured database (migrated first). */
function withServices<T>(run: (services: Services, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  return withDatabase(config, (db) =>
    run(
      createServices({
        db,
        clock: systemClock,
        config,
        keyRing: resolveKeyRing(config, createLogger(config)),
      }),
      config,
    ),
  );
}

export function buildCli(): Command {
  const program = new Command('appmeta')
    .description('appmeta: store-listing metadata for App Store and Google Play')
    .option('--json', 'print exactly one JSON object on stdout')
    .showHelpAfterError()
    .exitOverride();
  const output = (): Output => ({ json: program.opts<{ json?: boolean }>().json === true });

  program
    .command('serve')
    .description('apply migrations, then serve the API')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config);
      const server = await startServer(config, {
        logger,
        print: output().json ? () => undefined : undefined,
      });
      stopOnSignals(server, logger);
    });

  program
    .command('migrate')
    .description('apply pending migrations')
    .action(async () => {
      const config = loadConfig();
      const result = await withDatabase(config, (db) => migrateToLatest(db), { migrate: false });
      const applied = (result.results ?? []).map((r) => r.migrationName);
      emit(output(), { applied }, [
        applied.length === 0 ? 'No pending migrations.' : `Applied: ${applied.join(', ')}`,
      ]);
    });

  const org = program.command('org').description('organizations');
  org
    .command('create')
    .description('create an organization with its first admin and an API key for that admin')
    .requiredOption('--name <name>', 'organization name')
    .requiredOption('--admin-email <email>', "the first admin's e-mail")
    .option('--admin-name <name>', "the first admin's name")
    .option('--plan <plan>', 'free | pro | enterprise', 'free')
    .action(async (options: { name: string; adminEmail: string; adminName?: string; plan: string }) => {
      const created = await withServices((services) => services.organizations.create(options));
      emit(output(), { organization: created.organization, member: created.member, apiKey: created.apiKey }, [
        `Organization ${created.organization.id} "${created.organization.name}" (${created.organization.plan})`,
        `Admin ${created.member.id} <${created.member.email}>`,
        `API key (shown once): ${created.apiKey}`,
      ]);
    });

  org
    .command('set-plan')
    .description("change an organization's plan (effective on its next request)")
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--plan <plan>', 'free | pro | enterprise')
    .action(async (options: { org: string; plan: string }) => {
      const organization = await withServices((services) =>
        services.organizations.setPlan(options.org, options.plan),
      );
      emit(output(), { organization }, [
        `Organization ${organization.id} is now on the ${organization.plan} plan.`,
      ]);
    });

  program
    .command('key')
    .description('API keys')
    .command('create')
    .description('create an API key for a member')
    .requiredOption('--member <id>', 'member id')
    .option('--name <name>', 'key name')
    .action(async (options: { member: string; name?: string }) => {
      const issued = await withServices((services) =>
        services.apiKeys.issueByOperator({ memberId: options.member, name: options.name }),
      );
      emit(output(), { apiKey: issued.apiKey, key: issued.key }, [
        `Key ${issued.key.id} for member ${issued.key.memberId}`,
        `API key (shown once): ${issued.apiKey}`,
      ]);
    });

  program
    .command('emulate')
    .description('run the App Store Connect and Google Play emulators on one port (tests, demos)')
    .option('--port <port>', 'listen port', '4010')
    .option('--host <host>', 'listen address', '127.0.0.1')
    .option(
      '--seed <file>',
      'JSON seed ({appstore, playstore}); default: a demo app and fresh demo credentials',
    )
    .option('--credentials-dir <dir>', 'where the demo credentials are written', './data/emulator')
    .action(async (options: { port: string; host: string; seed?: string; credentialsDir: string }) => {
      const base = `http://${options.host === '0.0.0.0' ? 'localhost' : options.host}:${options.port}`;
      let seed: EmulatorSeed;
      const lines: string[] = [];
      let files: Record<string, string> = {};
      if (options.seed !== undefined) {
        seed = JSON.parse(await fs.readFile(options.seed, 'utf8')) as EmulatorSeed;
      } else {
        const demo = demoSetup(`${base}/token`);
        seed = demo.seed;
        await fs.mkdir(options.credentialsDir, { recursive: true, mode: 0o700 });
        files = {
          appstore: path.join(options.credentialsDir, 'appstore-credentials.json'),
          playstore: path.join(options.credentialsDir, 'playstore-credentials.json'),
        };
        await fs.writeFile(files.appstore!, JSON.stringify(demo.appstoreCredentials, null, 2), {
          mode: 0o600,
        });
        await fs.writeFile(files.playstore!, JSON.stringify(demo.playstoreCredentials, null, 2), {
          mode: 0o600,
        });
        lines.push(
          `Demo apps: App Store ${DEMO_APP_ID}, Google Play ${DEMO_PACKAGE}`,
          `Demo credentials: ${files.appstore}, ${files.playstore}`,
        );
      }
      const emulators = createEmulators(seed);
      const url = await emulators.app.listen({ port: Number(options.port), host: options.host });
      emit(output(), { url, credentials: files }, [
        `Store emulators listening on ${url}`,
        ...lines,
        `Point appmeta at them: APPSTORE_API_URL=${base} PLAY_API_URL=${base} GOOGLE_TOKEN_URL=${base}/token`,
      ]);
      const stop = () => void emulators.app.close().then(() => process.exit(0));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });

  program
    .command('secrets')
    .description('encryption keys of stored store credentials')
    .command('rotate')
    .description(
      're-encrypt stored credentials under APPMETA_SECRET_KEY (old keys in APPMETA_SECRET_KEY_PREVIOUS)',
    )
    .action(async () => {
      const result = await withServices((services) => services.credentials.rotateKeys());
      emit(output(), result, [
        `Re-encrypted ${result.rotated} of ${result.total} stored credentials under the current key.`,
      ]);
    });

  const listings = program.command('listings').description('store listings in the fastlane layout');
  listings
    .command('export')
    .description("write a project's listings as a fastlane tree (fastlane/metadata/...) into a directory")
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--dir <path>', 'target directory (created if missing)')
    .action(async (options: { project: string; dir: string }) => {
      const written = await withProject(options.project, async (ctx, services) => {
        const files = await services.fastlane.exportFiles(ctx, options.project);
        for (const [file, content] of files) {
          const target = path.join(options.dir, file);
          await fs.mkdir(path.dirname(target), { recursive: true });
          await fs.writeFile(target, content);
        }
        return [...files.keys()];
      });
      emit(output(), { files: written }, [`Wrote ${written.length} files under ${options.dir}`]);
    });
  listings
    .command('import')
    .description('import a fastlane tree from a directory (all or nothing)')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--dir <path>', 'directory holding fastlane/metadata or metadata')
    .action(async (options: { project: string; dir: string }) => {
      const { files, unread } = await readTree(options.dir);
      const result = await withProject(options.project, (ctx, services) =>
        services.fastlane.importFiles(ctx, options.project, files, unread),
      );
      emit(output(), result, [
        ...result.imported.map((i) => `Imported ${i.store}/${i.locale}: ${i.fields} fields`),
        ...result.warnings.map((w) => `Warning ${w.store}/${w.locale} ${w.field}: ${w.message}`),
        ...(result.skipped.length > 0
          ? [`Skipped ${result.skipped.length} files that are not listing texts`]
          : []),
      ]);
    });

  return program;
}

/** Runs a command on one project as the operator, inside the project's organization. */
function withProject<T>(
  projectId: string,
  run: (ctx: RequestContext, services: Services) => Promise<T>,
): Promise<T> {
  return withServices(async (services, config) => {
    const organizationId = await services.projects.organizationOf(projectId);
    return run(operatorContext(organizationId, createLogger(config)), services);
  });
}

/**
 * The text files under a directory (what a fastlane tree's listings are), keyed by their path
 * relative to it, and the other files' paths; hidden files and links are left out.
 */
async function readTree(root: string): Promise<{ files: Map<string, string>; unread: string[] }> {
  const files = new Map<string, string>();
  const unread: string[] = [];
  const entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const relative = path.relative(root, full).split(path.sep).join('/');
    if (relative.split('/').some((part) => part.startsWith('.'))) continue;
    if (!relative.endsWith('.txt')) {
      unread.push(relative);
      continue;
    }
    if ((await fs.stat(full)).size > IMPORT_LIMITS.maxEntryBytes) {
      throw invalidField(relative, `is larger than ${IMPORT_LIMITS.maxEntryBytes} bytes`);
    }
    files.set(relative, await fs.readFile(full, 'utf8'));
  }
  return { files, unread };
}

/** Entry point of bin/appmeta. */
export async function main(argv: string[]): Promise<void> {
  const program = buildCli();
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version exit 0; usage errors were already printed by commander.
      process.exitCode = error.exitCode;
      if (json && error.exitCode !== 0) {
        process.stdout.write(
          `${JSON.stringify({ error: { code: 'INVALID_REQUEST', message: error.message } })}\n`,
        );
      }
      return;
    }
    const [code, message, exitCode] =
      error instanceof ConfigError
        ? ['INVALID_CONFIGURATION', error.problems.join('; '), 2]
        : error instanceof DatabaseOpenError
          ? ['DATABASE_UNAVAILABLE', error.message, 2]
          : error instanceof StartupError
            ? ['STARTUP_FAILED', error.message, 2]
            : error instanceof AppError
              ? [error.code, error.message, 1]
              : ['INTERNAL_ERROR', (error as Error).message, 1];
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else process.stderr.write(`appmeta: ${message}\n`);
    process.exitCode = exitCode;
  }
}
