/** The service's own processes: serve, worker, migrate, and the live event stream. */
import type { Command } from 'commander';
import { loadConfig, type Config } from '../../config.js';
import { migrateToLatest } from '../../db/migrate.js';
import { AppError } from '../../errors.js';
import { createLogger } from '../../logger.js';
import { startServer, startWorkerProcess, stopOnSignals } from '../../server.js';
import { liftYoungGenerationCap } from '../../shared/heap-sizing.js';
import { tailEvents } from '../events-tail.js';
import { emit, withDatabase, type Output } from '../command-kit.js';

/**
 * The young generation of a long-running process (bin/appmeta capped it before anything loaded):
 * kept small on SQLite, whose requests finish within a turn of the event loop; V8's own sizing on
 * PostgreSQL, whose requests wait for round trips.
 */
function youngGenerationFor(config: Config): void {
  if (config.database.kind === 'postgres') liftYoungGenerationCap();
}

export function processCommands(program: Command, output: () => Output): void {
  program
    .command('serve')
    .description('apply migrations, then serve the API')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config);
      youngGenerationFor(config);
      // As for the worker: a signal that arrives while the service starts stops it once started.
      const server = startServer(config, {
        logger,
        print: output().json ? () => undefined : undefined,
      });
      stopOnSignals(server, logger);
      await server;
    });

  program
    .command('worker')
    .description('apply migrations, then run the background workers only (no HTTP)')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config);
      youngGenerationFor(config);
      // Signals are handled from the start: one that arrives while the workers start stops them
      // once they have.
      const worker = startWorkerProcess(config, logger);
      stopOnSignals(worker, logger);
      await worker;
    });

  program
    .command('events')
    .description('the live stream of events')
    .command('tail')
    .description('print the organization’s events as they happen (key from APPMETA_KEY); Ctrl-C stops')
    .option('--url <url>', 'the service', process.env.APPMETA_URL ?? 'http://localhost:3000')
    .option('--last-event-id <id>', 'start after this event (resume)')
    .action(async (options: { url: string; lastEventId?: string }) => {
      const key = process.env.APPMETA_KEY;
      if (key === undefined || key === '') {
        throw new AppError('INVALID_REQUEST', 'Set APPMETA_KEY to an API key of the organization');
      }
      await tailEvents({
        url: options.url,
        key,
        lastEventId: options.lastEventId ?? null,
        print: (event) =>
          process.stdout.write(
            output().json
              ? `${JSON.stringify(event)}\n`
              : `${event.timestamp}  #${event.seq}  ${event.type}  ${JSON.stringify(event.data)}\n`,
          ),
      });
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
}
