/**
 * The operator CLI (design.md §3). Every command accepts --json and then prints exactly one JSON
 * object on stdout; logs go to stderr. Exit status: 0 success, 1 failure, 2 bad configuration.
 */
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.js';
import { DatabaseOpenError } from '../db/database.js';
import { AppError } from '../errors.js';
import type { OperationId } from '../modules/access/index.js';
import { StartupError } from '../server.js';
import type { Output } from './command-kit.js';
import { BackupError } from '../backup/index.js';
import { backupCommands } from './commands/backup.js';
import { emulateCommand } from './commands/emulate.js';
import { listingsCommands } from './commands/listings.js';
import { mediaCommands } from './commands/media.js';
import { organizationCommands } from './commands/organizations.js';
import { processCommands } from './commands/process.js';
import { releasesCommands } from './commands/releases.js';
import { productsCommands } from './commands/products.js';
import { marketingCommands } from './commands/marketing.js';
import { detailsCommands } from './commands/details.js';
import { schedulesCommands } from './commands/schedules.js';
import { remoteCommands } from './commands/remote.js';
import { RemoteError } from './remote.js';
import { secretsCommands } from './commands/secrets.js';
import { translationsCommands } from './commands/translations.js';

/**
 * Every command and the operation (src/modules/access) it performs: operator operations, or the
 * same operation as a REST route (done with the operator's admin rights in the project's
 * organization). test/organizations/operations.test.ts checks this table against the commands.
 */
export const COMMAND_OPERATIONS = {
  serve: 'server.serve',
  worker: 'server.worker',
  'events tail': 'events.stream',
  migrate: 'database.migrate',
  backup: 'database.backup',
  restore: 'database.restore',
  'org create': 'organization.create',
  'org list': 'organization.list',
  'org set-plan': 'organization.setPlan',
  'member list': 'members.list',
  'key create': 'apiKeys.issue',
  'login-link': 'signInLinks.issue',
  emulate: 'emulators.run',
  'secrets rotate': 'credentials.rotateKeys',
  'listings export': 'listings.export',
  'listings import': 'listings.import',
  'media list': 'media.list',
  'media upload': 'media.upload',
  'media export': 'media.export',
  'media import': 'media.import',
  'releases list': 'releases.list',
  'releases create-version': 'releases.create',
  'releases notes': 'releaseNotes.list',
  'products list': 'products.list',
  'product-pages list': 'productPages.list',
  'app-events list': 'appEvents.list',
  'details get': 'details.get',
  // A user of a running server (design.md §21), over REST with an API key.
  'projects list': 'projects.list',
  pull: 'projects.sync',
  diff: 'listings.diff',
  push: 'projects.push',
  import: 'listings.import',
  export: 'listings.export',
  'schedules list': 'schedules.list',
  'schedules create': 'schedules.create',
  'schedules cancel': 'schedules.cancel',
  'translations status': 'translations.status',
  'translations export': 'translations.export',
  'translations import': 'translations.import',
  'translations machine': 'translations.machine',
  'translations accept': 'translations.accept',
} as const satisfies Record<string, OperationId>;

/**
 * The command groups, each in src/cli/commands beside the others, in the order `--help` lists them.
 * A new command goes into its group's file (or a new file listed here) and into COMMAND_OPERATIONS.
 */
const COMMAND_GROUPS: ((program: Command, output: () => Output) => void)[] = [
  processCommands,
  backupCommands,
  organizationCommands,
  emulateCommand,
  secretsCommands,
  listingsCommands,
  mediaCommands,
  releasesCommands,
  productsCommands,
  marketingCommands,
  detailsCommands,
  schedulesCommands,
  translationsCommands,
  remoteCommands,
];

export function buildCli(): Command {
  const program = new Command('appmeta')
    .description('appmeta: store-listing metadata for App Store and Google Play')
    .option('--json', 'print exactly one JSON object on stdout')
    .showHelpAfterError()
    .exitOverride();
  const output = (): Output => ({ json: program.opts<{ json?: boolean }>().json === true });
  for (const register of COMMAND_GROUPS) register(program, output);
  return program;
}

/** Entry point of bin/appmeta. */
export async function main(argv: string[]): Promise<void> {
  const program = buildCli();
  const json = argv.includes('--json');
  // Node exits with 0 when nothing is left to wait for, even while a command still awaits a
  // promise that can no longer settle: such a stop is a failure, never a success.
  let finished = false;
  process.once('beforeExit', () => {
    if (finished) return;
    process.stderr.write('appmeta: the command stopped before it finished (internal error)\n');
    process.exitCode = 1;
  });
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
      error instanceof RemoteError
        ? [error.code, error.message, error.exitCode]
        : error instanceof ConfigError
          ? ['INVALID_CONFIGURATION', error.problems.join('; '), 2]
          : error instanceof DatabaseOpenError
            ? ['DATABASE_UNAVAILABLE', error.message, 2]
            : error instanceof StartupError
              ? ['STARTUP_FAILED', error.message, 2]
              : error instanceof BackupError
                ? ['BACKUP_FAILED', error.message, 1]
                : error instanceof AppError
                  ? [error.code, error.message, 1]
                  : ['INTERNAL_ERROR', (error as Error).message, 1];
    if (json) process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    else process.stderr.write(`appmeta: ${message}\n`);
    process.exitCode = exitCode;
  } finally {
    finished = true;
  }
}
