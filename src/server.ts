/**
 * `appmeta serve`: configuration → database → migrations → first-start organization → HTTP.
 * SIGTERM/SIGINT stop accepting connections, let in-flight requests finish, then close the database.
 */
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { createDb, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import type { Api } from './http/api.js';
import type { Services } from './services.js';
import { createLogger } from './logger.js';
import { createServices } from './services.js';
import { resolveKeyRing } from './shared/key-ring.js';
import { systemClock } from './shared/clock.js';
import { startWorker } from './worker.js';

/** Longest a shutdown waits for in-flight requests before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  app: Api;
  services: Services;
  db: Db;
  url: string;
  stop(): Promise<void>;
}

/** What SIGTERM/SIGINT stop: a server, or a worker process. */
export interface Stoppable {
  stop(): Promise<void>;
}

export async function startServer(
  config: Config,
  options: { logger?: Logger; print?: (line: string) => void; worker?: boolean } = {},
): Promise<RunningServer> {
  const logger = options.logger ?? createLogger(config);
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const db = createDb(config.database);
  try {
    await migrateToLatest(db);
    const { app, services } = await buildApp({ config, db, logger });
    const created = await services.organizations.ensureDefaultOrganization();
    if (created !== null) {
      print('');
      print(
        `Created the organization "${created.organization.name}" (${created.organization.id}) with an admin.`,
      );
      print(`Admin API key (shown once, store it now): ${created.apiKey}`);
      print('Try it from another terminal:');
      print(`  export APPMETA_URL=${config.publicUrl}`);
      print(`  export APPMETA_KEY=${created.apiKey}`);
      print('  curl -s $APPMETA_URL/api/v1/projects -H "Authorization: Bearer $APPMETA_KEY"');
      const link = await services.sessions.createSignInLinkAsOperator(
        { email: created.member.email, organizationId: created.organization.id },
        'server:first-start',
      );
      print('Or sign in to the dashboard (this link works once, for 15 minutes; later: appmeta login-link):');
      print(`  ${link.url}`);
      print('');
    }
    // Workers first: once the service says it listens, it is whole (and a signal finds it so).
    const worker = options.worker === false ? null : await startWorker(services, logger);
    let url: string;
    try {
      url = await listen(app, config);
    } catch (error) {
      await worker?.stop();
      throw error;
    }
    logger.info({ url, database: config.database.kind }, 'appmeta is listening');
    let stopping: Promise<void> | null = null;
    const stop = () => {
      stopping ??= (async () => {
        logger.info('shutting down: finishing in-flight requests');
        // Connections still busy at close() go idle once their response is sent; keep-alive would
        // then hold the close open until its timeout, so idle ones are closed as they appear.
        const sweeper = setInterval(() => app.server.closeIdleConnections(), 50);
        try {
          await app.close();
        } finally {
          clearInterval(sweeper);
        }
        // Running jobs finish (or their leases lapse and another instance takes them over).
        await worker?.stop();
        await db.destroy();
        logger.info('stopped');
        logger.flush();
      })();
      return stopping;
    };
    return { app, services, db, url, stop };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/** `appmeta worker`: configuration → database → migrations → the workers, without HTTP. */
export async function startWorkerProcess(config: Config, logger: Logger): Promise<Stoppable> {
  const db = createDb(config.database);
  try {
    await migrateToLatest(db);
    const services = createServices({
      db,
      clock: systemClock,
      config,
      keyRing: resolveKeyRing(config, logger),
      log: logger,
    });
    const worker = await startWorker(services, logger);
    let stopping: Promise<void> | null = null;
    return {
      stop: () =>
        (stopping ??= (async () => {
          logger.info('shutting down: finishing running jobs');
          await worker.stop();
          await db.destroy();
          logger.info('stopped');
          logger.flush();
        })()),
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/** Listens where the configuration says; a port that cannot be had is said plainly, naming PORT. */
async function listen(app: Api, config: Config): Promise<string> {
  try {
    return await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE') {
      throw new StartupError(
        `Port ${config.port} on ${config.host} is already in use: stop what listens there, or set PORT to another port`,
      );
    }
    if (code === 'EACCES') {
      throw new StartupError(`Not allowed to listen on port ${config.port}: set PORT to a port above 1023`);
    }
    if (code === 'EADDRNOTAVAIL')
      throw new StartupError(`HOST ${config.host} is not an address of this machine`);
    throw error;
  }
}

/** The service cannot start for a reason the operator can fix; the message says which. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** Stops the server on SIGTERM/SIGINT; exits non-zero if in-flight work outlives the grace period. */
export function stopOnSignals(server: Stoppable | Promise<Stoppable>, logger: Logger): void {
  const onSignal = (signal: NodeJS.Signals) => {
    logger.info({ signal }, 'signal received');
    setTimeout(() => {
      logger.error('in-flight requests did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS).unref();
    Promise.resolve(server)
      .then((started) => started.stop())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
