/**
 * The operator CLI (design.md §3). Every command accepts --json and then prints exactly one JSON
 * object on stdout; logs go to stderr. Exit status: 0 success, 1 failure, 2 bad configuration.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createDb, type Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import { AppError } from '../errors.js';
import { createLogger } from '../logger.js';
import { issueKeyByOperator } from '../modules/api-keys/api-keys.service.js';
import { createOrganizationsService } from '../modules/organizations/organizations.service.js';
import { startServer, stopOnSignals } from '../server.js';
import { systemClock } from '../shared/clock.js';

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
      const created = await withDatabase(loadConfig(), (db) =>
        createOrganizationsService({ db: db.kysely, clock: systemClock }).create(options),
      );
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
      const organization = await withDatabase(loadConfig(), (db) =>
        createOrganizationsService({ db: db.kysely, clock: systemClock }).setPlan(options.org, options.plan),
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
      const issued = await withDatabase(loadConfig(), (db) =>
        issueKeyByOperator(db.kysely, systemClock, { memberId: options.member, name: options.name }),
      );
      emit(output(), { apiKey: issued.apiKey, key: issued.key }, [
        `Key ${issued.key.id} for member ${issued.key.memberId}`,
        `API key (shown once): ${issued.apiKey}`,
      ]);
    });

  return program;
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
        : error instanceof AppError
          ? [error.code, error.message, 1]
          : ['INTERNAL_ERROR', (error as Error).message, 1];
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else process.stderr.write(`appmeta: ${message}\n`);
    process.exitCode = exitCode;
  }
}
