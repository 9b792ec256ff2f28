/**
 * The operator CLI (design.md §3). Every command accepts --json and then prints exactly one JSON
 * object on stdout; logs go to stderr. Exit status: 0 success, 1 failure, 2 bad configuration.
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { createDb, DatabaseOpenError, type Db } from '../db/database.js';
import { migrateToLatest } from '../db/migrate.js';
import type { EmulatorSeed } from '../emulators/server.js';
import { AppError, invalidField } from '../errors.js';
import { createLogger } from '../logger.js';
import { operatorContext, type OperationId, type RequestContext } from '../modules/access/index.js';
import { IMPORT_LIMITS, type FileTree } from '../modules/listings/index.js';
import { startServer, startWorkerProcess, StartupError, stopOnSignals } from '../server.js';
import { liftYoungGenerationCap } from '../shared/heap-sizing.js';
import { tailEvents } from './events-tail.js';
import { createServices, type Services } from '../services.js';
import { systemClock } from '../shared/clock.js';
import { resolveKeyRing } from '../shared/key-ring.js';
import type { Store } from '../shared/stores.js';

/**
 * Every command and the operation (src/modules/access) it performs: operator operations, or the
 * same operation as a REST route (done with the operator's admin rights in the project's
 * organization). test/operations.test.ts checks this table against the commands.
 */
export const COMMAND_OPERATIONS = {
  serve: 'server.serve',
  worker: 'server.worker',
  'events tail': 'events.stream',
  migrate: 'database.migrate',
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
  'translations status': 'translations.status',
  'translations export': 'translations.export',
  'translations import': 'translations.import',
  'translations machine': 'translations.machine',
  'translations accept': 'translations.accept',
} as const satisfies Record<string, OperationId>;

interface Output {
  json: boolean;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

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

/**
 * The domain's names for what the user gave (fields such as `adminEmail`, or the kind of a thing
 * not found, such as `Organization`) mapped to the command's own flags, so that an error names
 * the flag the user typed.
 */
type Flags = Record<string, string>;

/** The services of the composition root, on the configured database (migrated first). */
async function withServices<T>(
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

/**
 * The young generation of a long-running process (bin/appmeta capped it before anything loaded):
 * kept small on SQLite, whose requests finish within a turn of the event loop; V8's own sizing on
 * PostgreSQL, whose requests wait for round trips.
 */
function youngGenerationFor(config: Config): void {
  if (config.database.kind === 'postgres') liftYoungGenerationCap();
}

/** The operator as the audit log records it: `cli:<os user>`. */
function operatorName(): string {
  let user: string | undefined;
  try {
    user = os.userInfo().username;
  } catch {
    // No passwd entry for this uid (some containers): fall back to the environment.
    user = process.env.USER ?? process.env.LOGNAME;
  }
  return `cli:${user ?? 'unknown'}`;
}

/** `--member ID`, or `--org ID --email E`; anything else is a usage error naming the flags. */
function operatorKeyInput(options: { member?: string; org?: string; email?: string; name?: string }) {
  const name = options.name === undefined ? {} : { name: options.name };
  if (options.member !== undefined && options.org === undefined && options.email === undefined) {
    return { memberId: options.member, ...name };
  }
  if (options.member === undefined && options.org !== undefined && options.email !== undefined) {
    return { organizationId: options.org, email: options.email, ...name };
  }
  throw new AppError(
    'INVALID_REQUEST',
    'Name the member: --member MEMBER_ID, or --org ORG_ID with --email E',
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

  const org = program.command('org').description('organizations');
  org
    .command('create')
    .description('create an organization with its first admin and an API key for that admin')
    .requiredOption('--name <name>', 'organization name')
    .requiredOption('--admin-email <email>', "the first admin's e-mail")
    .option('--admin-name <name>', "the first admin's name")
    .option('--plan <plan>', 'free | pro | enterprise', 'free')
    .option('--allow-duplicate-name', 'create it even if an organization of that name exists')
    .action(
      async (options: {
        name: string;
        adminEmail: string;
        adminName?: string;
        plan: string;
        allowDuplicateName?: boolean;
      }) => {
        const created = await withServices(
          (services) => services.organizations.create(options, operatorName()),
          {
            name: '--name',
            adminEmail: '--admin-email',
            adminName: '--admin-name',
            plan: '--plan',
            allowDuplicateName: '--allow-duplicate-name',
          },
        );
        emit(
          output(),
          { organization: created.organization, member: created.member, apiKey: created.apiKey },
          [
            `Organization ${created.organization.id} "${created.organization.name}" (${created.organization.plan})`,
            `Admin ${created.member.id} <${created.member.email}>`,
            `API key (shown once): ${created.apiKey}`,
          ],
        );
      },
    );

  org
    .command('list')
    .description('every organization: id, name, plan, members')
    .action(async () => {
      const organizations = await withServices((services) => services.organizations.list());
      emit(
        output(),
        { organizations },
        organizations.length === 0
          ? ['No organizations.']
          : organizations.map(
              (o) =>
                `${o.id}  ${o.plan.padEnd(10)} ${plural(o.memberCount, 'member').padStart(11)}  ${o.name}`,
            ),
      );
    });

  org
    .command('set-plan')
    .description("change an organization's plan (effective on its next request)")
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--plan <plan>', 'free | pro | enterprise')
    .action(async (options: { org: string; plan: string }) => {
      const organization = await withServices(
        (services) => services.organizations.setPlan(options.org, options.plan, operatorName()),
        { plan: '--plan', Organization: '--org' },
      );
      emit(output(), { organization }, [
        `Organization ${organization.id} is now on the ${organization.plan} plan.`,
      ]);
    });

  program
    .command('member')
    .description('members of an organization')
    .command('list')
    .description("an organization's members: id, e-mail, role")
    .requiredOption('--org <id>', 'organization id')
    .action(async (options: { org: string }) => {
      const members = await withOrganization(options.org, (ctx, services) => services.members.list(ctx));
      emit(
        output(),
        { members },
        members.map((m) => `${m.id}  ${m.role.padEnd(6)}  ${m.email}  (${m.name})`),
      );
    });

  program
    .command('key')
    .description('API keys')
    .command('create')
    .description(
      "create an API key for a member: by id, or by organization and e-mail (a lost admin's way back)",
    )
    .option('--member <id>', 'member id')
    .option('--org <id>', 'organization id (with --email)')
    .option('--email <email>', "the member's e-mail (with --org)")
    .option('--name <name>', 'key name')
    .action(async (options: { member?: string; org?: string; email?: string; name?: string }) => {
      const input = operatorKeyInput(options);
      const issued = await withServices(
        (services) => services.apiKeys.issueByOperator(input, operatorName()),
        { name: '--name', email: '--email', Member: '--member' },
      );
      emit(output(), { apiKey: issued.apiKey, key: issued.key }, [
        `Key ${issued.key.id} for member ${issued.key.memberId}`,
        `API key (shown once): ${issued.apiKey}`,
      ]);
    });

  program
    .command('login-link')
    .description('a one-time dashboard sign-in link for a member (15 minutes, single use)')
    .requiredOption('--email <email>', "the member's e-mail")
    .option('--org <id>', 'organization id (needed when the address is a member of several)')
    .action(async (options: { email: string; org?: string }) => {
      const link = await withServices(
        (services) =>
          services.sessions.createSignInLinkAsOperator(
            { email: options.email, ...(options.org !== undefined && { organizationId: options.org }) },
            operatorName(),
          ),
        { email: '--email', organizationId: '--org' },
      );
      emit(output(), link, [
        `Sign-in link for member ${link.memberId} (valid until ${link.expiresAt}, single use):`,
        link.url,
      ]);
    });

  program
    .command('emulate')
    .description('run the App Store Connect, Google Play and DeepL emulators on one port (tests, demos)')
    .option('--port <port>', 'listen port', '4010')
    .option('--host <host>', 'listen address', '127.0.0.1')
    .option(
      '--seed <file>',
      'JSON seed ({appstore, playstore, deepl}); default: a demo app and fresh demo credentials',
    )
    .option('--credentials-dir <dir>', 'where the demo credentials are written', './data/emulator')
    .action(async (options: { port: string; host: string; seed?: string; credentialsDir: string }) => {
      // Loaded here: the emulators and their specs are not part of the service's memory.
      const [{ demoSetup, DEMO_APP_ID, DEMO_PACKAGE }, { createEmulators }] = await Promise.all([
        import('../emulators/demo.js'),
        import('../emulators/server.js'),
      ]);
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
        files.deepl = path.join(options.credentialsDir, 'deepl-credentials.json');
        await fs.writeFile(files.deepl, JSON.stringify(demo.deeplCredentials, null, 2), { mode: 0o600 });
        lines.push(
          `Demo apps: App Store ${DEMO_APP_ID}, Google Play ${DEMO_PACKAGE}`,
          `Demo credentials: ${files.appstore}, ${files.playstore}, ${files.deepl}`,
        );
      }
      const emulators = createEmulators(seed);
      const url = await emulators.app.listen({ port: Number(options.port), host: options.host });
      emit(output(), { url, credentials: files }, [
        `Store emulators listening on ${url}`,
        ...lines,
        `Point appmeta at them: APPSTORE_API_URL=${base} PLAY_API_URL=${base} GOOGLE_TOKEN_URL=${base}/token DEEPL_API_URL=${base}`,
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
      're-encrypt stored credentials and webhook secrets under APPMETA_SECRET_KEY (old keys in APPMETA_SECRET_KEY_PREVIOUS)',
    )
    .action(async () => {
      const result = await withServices(async (services) => ({
        ...(await services.credentials.rotateKeys()),
        webhooks: await services.webhooks.rotateKeys(),
      }));
      emit(output(), result, [
        `Re-encrypted ${result.rotated} of ${result.total} stored credentials under the current key.`,
        `Re-encrypted the secrets of ${result.webhooks.rotated} of ${result.webhooks.total} webhook endpoints.`,
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
    .description('import the fastlane tree of a directory (all or nothing)')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--dir <path>', 'the directory holding fastlane/ (a repository, or fastlane/ itself)')
    .option(
      '--path <folder>',
      'the folder to read as the metadata tree, relative to --dir (when there are several, or it is elsewhere)',
    )
    .action(async (options: { project: string; dir: string; path?: string }) => {
      const tree = await readTree(options.dir, options.path);
      const result = await withProject(
        options.project,
        (ctx, services) =>
          services.fastlane.importTree(ctx, options.project, tree, {
            ...(options.path !== undefined && { path: options.path }),
          }),
        { path: '--path' },
      );
      emit(output(), result, [
        `Read ${result.tree === '' ? options.dir : path.join(options.dir, result.tree)}`,
        ...result.imported.map((i) => `Imported ${i.store}/${i.locale}: ${plural(i.fields, 'field')}`),
        ...(result.releaseNotes > 0
          ? [`Imported ${plural(result.releaseNotes, 'Google Play release note')}`]
          : []),
        ...result.warnings.map((w) => `Warning ${w.store}/${w.locale} ${w.field}: ${w.message}`),
        ...result.skipped.map((s) => `Skipped ${s.path}: ${s.reason}`),
      ]);
    });

  const media = program.command('media').description('screenshots and app previews');
  media
    .command('list')
    .description("a project's media slots and their files, in order")
    .requiredOption('--project <id>', 'project id')
    .option('--store <store>', 'appstore or playstore')
    .option('--locale <code>', "the store's locale code")
    .action(async (options: { project: string; store?: Store; locale?: string }) => {
      const { slots } = await withProject(options.project, (ctx, services) =>
        services.media.list(ctx, options.project, {
          ...(options.store !== undefined && { store: options.store }),
          ...(options.locale !== undefined && { locale: options.locale }),
        }),
      );
      emit(
        output(),
        { slots },
        slots.length === 0
          ? ['No media']
          : slots.flatMap((slot) => [
              `${slot.store}/${slot.locale}/${slot.slotType}  ${slot.items.length}/${slot.maxItems}  ${slot.state}`,
              ...slot.items.map(
                (item) =>
                  `  ${item.position}. ${item.fileName}  ${item.width}×${item.height}  ${item.bytes} bytes  ${item.sha256.slice(0, 12)}  ${item.id}`,
              ),
            ]),
      );
    });
  media
    .command('upload')
    .description('upload files into a slot, in the order given (each checked against the slot’s rules)')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--store <store>', 'appstore or playstore')
    .requiredOption('--locale <code>', "the store's locale code")
    .requiredOption('--slot <type>', 'APP_IPHONE_67, PREVIEW_IPHONE_67, phoneScreenshots, icon, ...')
    .argument('<files...>', 'image or video files')
    .action(
      async (files: string[], options: { project: string; store: Store; locale: string; slot: string }) => {
        const uploaded = await withProject(options.project, async (ctx, services) => {
          const items = [];
          for (const file of files) {
            const result = await services.media.upload(
              ctx,
              options.project,
              { store: options.store, locale: options.locale, slotType: options.slot },
              { open: async () => ({ stream: createReadStream(file), fileName: path.basename(file) }) },
            );
            items.push({ file, ...result });
          }
          return items;
        });
        emit(
          output(),
          { uploaded },
          uploaded.map(
            (u) =>
              `Uploaded ${u.file} → ${options.store}/${options.locale}/${options.slot} #${u.item.position} (${u.item.width}×${u.item.height}, ${u.item.sha256.slice(0, 12)})` +
              (u.notVerified.length > 0 ? `; not verified: ${u.notVerified.join(', ')}` : ''),
          ),
        );
      },
    );
  media
    .command('export')
    .description("write a project's screenshots and previews as a fastlane tree into a directory")
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--dir <path>', 'target directory (created if missing)')
    .action(async (options: { project: string; dir: string }) => {
      const written = await withProject(options.project, async (ctx, services) => {
        const entries = await services.mediaTransfer.exportEntries(ctx, options.project);
        for (const entry of entries) {
          const target = path.join(options.dir, entry.path);
          await fs.mkdir(path.dirname(target), { recursive: true });
          await pipeline(await entry.open(), createWriteStream(target));
        }
        return entries.map((e) => e.path);
      });
      emit(output(), { files: written }, [`Wrote ${written.length} files under ${options.dir}`]);
    });
  media
    .command('import')
    .description('import the screenshots and previews of a fastlane tree in a directory (all or nothing)')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--dir <path>', 'the directory holding fastlane/ (a repository, or fastlane/ itself)')
    .action(async (options: { project: string; dir: string }) => {
      const result = await withProject(options.project, (ctx, services) =>
        services.mediaTransfer.importTree(ctx, options.project, (want, onFile) =>
          readMediaTree(options.dir, want, onFile),
        ),
      );
      emit(output(), result, [
        ...result.imported.map(
          (i) => `Imported ${i.store}/${i.locale}/${i.slotType}: ${plural(i.items, 'file')}`,
        ),
        ...(result.imported.length === 0 ? ['Nothing changed'] : []),
        ...result.skipped.map((s) => `Skipped ${s.path}: ${s.reason}`),
      ]);
    });

  const releases = program
    .command('releases')
    .description('App Store versions, Google Play tracks, release notes');
  releases
    .command('list')
    .description('versions and tracks with their releases, as the last sync read them')
    .requiredOption('--project <id>', 'project id')
    .action(async (options: { project: string }) => {
      const view = await withProject(options.project, (ctx, services) =>
        services.releases.list(ctx, options.project),
      );
      emit(output(), view, [
        ...(view.appStore === null
          ? ['App Store: not synced']
          : view.appStore.versions.map(
              (v) =>
                `App Store ${v.versionString}  ${v.state}${v.editable ? '  editable' : ''}${v.firstVersion ? '  first version' : ''}`,
            )),
        ...(view.playStore === null
          ? ['Google Play: not synced']
          : view.playStore.tracks.flatMap((t) =>
              t.releases.length === 0
                ? [`Google Play ${t.track}: no releases`]
                : t.releases.map(
                    (r) =>
                      `Google Play ${t.track}  ${r.name ?? r.versionCodes.join(',')}  ${r.status}` +
                      (r.userFraction === null ? '' : `  ${Math.round(r.userFraction * 100)}%`) +
                      `  notes: ${Object.keys(r.releaseNotes).length}`,
                  ),
            )),
      ]);
    });
  releases
    .command('create-version')
    .description("creates the next App Store version (the store's refusal is said as it gave it)")
    .requiredOption('--project <id>', 'project id')
    .argument('<versionString>', 'e.g. 2.4.0')
    .action(async (versionString: string, options: { project: string }) => {
      const created = await withProject(options.project, (ctx, services) =>
        services.releases.createVersion(ctx, options.project, versionString),
      );
      emit(output(), created, [
        `Created App Store version ${created.version.versionString} (${created.version.state})`,
      ]);
    });
  releases
    .command('notes')
    .description(
      "release notes per locale: App Store What's New of a version, or Google Play notes per release",
    )
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--store <store>', 'appstore or playstore')
    .option('--version <versionString>', 'App Store: the version (default: the one being prepared)')
    .option('--track <track>', 'Google Play: one track')
    .action(async (options: { project: string; store: Store; version?: string; track?: string }) => {
      const notes = await withProject(options.project, (ctx, services) =>
        services.releases.notes(ctx, options.project, {
          store: options.store,
          ...(options.version !== undefined && { version: options.version }),
          ...(options.track !== undefined && { track: options.track }),
        }),
      );
      const line = (n: { locale: string; value: string | null; state: string }) =>
        `  ${n.locale}  ${n.state}  ${JSON.stringify(n.value)}`;
      emit(
        output(),
        notes,
        notes.store === 'appstore'
          ? notes.version === null
            ? ['No App Store version is being prepared']
            : [`App Store ${notes.version.versionString} (${notes.version.state})`, ...notes.notes.map(line)]
          : notes.releases.flatMap((r) => [
              `Google Play ${r.track} ${r.name ?? r.versionCode} (${r.status})`,
              ...r.notes.map(line),
            ]),
      );
    });

  const translations = program
    .command('translations')
    .description('translation states, XLIFF for translators, machine-translated drafts');
  translations
    .command('status')
    .description('per target locale: how many fields are missing, outdated, drafted or current')
    .requiredOption('--project <id>', 'project id')
    .option('--locale <code>', 'one target locale, field by field')
    .action(async (options: { project: string; locale?: string }) => {
      const status = await withProject(options.project, (ctx, services) =>
        services.translations.status(ctx, options.project),
      );
      const items = status.items.filter((i) => options.locale === undefined || i.locale === options.locale);
      const rows = new Map<string, Record<string, number>>();
      for (const item of items) {
        const key = `${item.store === 'appstore' ? 'App Store' : 'Google Play'}  ${item.locale}`;
        const row = rows.get(key) ?? { missing: 0, outdated: 0, draft: 0, current: 0 };
        row[item.state]! += 1;
        rows.set(key, row);
      }
      emit(output(), { ...status, items }, [
        `Source locale: ${status.sourceLocale}`,
        ...(options.locale === undefined
          ? [...rows].map(
              ([key, c]) =>
                `${key}  missing ${c.missing}  outdated ${c.outdated}  draft ${c.draft}  current ${c.current}`,
            )
          : items.map(
              (i) =>
                `${i.store}/${i.field}  ${i.state}` +
                (i.draft === undefined
                  ? ''
                  : `  (draft ${i.draft.length}/${i.draft.limit ?? '-'}${i.draft.overLimit ? ', over the limit' : ''})`),
            )),
        ...(items.length === 0 ? ['Nothing to translate: no target locale has a text or a source'] : []),
      ]);
    });
  translations
    .command('export')
    .description('write the XLIFF of one target locale for translators')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--locale <code>', 'the target locale, e.g. de-DE')
    .option('--xliff-version <version>', 'XLIFF 2.0 (default) or 1.2', '2.0')
    .option('--out <file>', 'the file to write (default: <locale>.xlf)')
    .action(async (options: { project: string; locale: string; xliffVersion: string; out?: string }) => {
      if (options.xliffVersion !== '2.0' && options.xliffVersion !== '1.2') {
        throw invalidField('--xliff-version', 'must be 2.0 or 1.2');
      }
      const version = options.xliffVersion;
      const xml = await withProject(options.project, (ctx, services) =>
        services.translations.exportXliff(ctx, options.project, options.locale, version),
      );
      const file = options.out ?? `${options.locale}.xlf`;
      await fs.writeFile(file, xml);
      emit(output(), { file, bytes: Buffer.byteLength(xml) }, [`Wrote ${file} (XLIFF ${version})`]);
    });
  translations
    .command('import')
    .description("take a translator's XLIFF back (validated like edits, all or nothing)")
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--locale <code>', 'the target locale, e.g. de-DE')
    .requiredOption('--file <file>', 'the XLIFF file')
    .action(async (options: { project: string; locale: string; file: string }) => {
      const xml = await fs.readFile(options.file).catch((error: NodeJS.ErrnoException) => {
        throw invalidField('--file', `cannot be read (${error.code ?? String(error)})`);
      });
      const result = await withProject(options.project, (ctx, services) =>
        services.translations.importXliff(ctx, options.project, options.locale, xml),
      );
      emit(output(), result, [
        ...result.imported.map((i) => `Imported ${i.store}/${options.locale}/${i.field}`),
        result.imported.length === 0
          ? 'Nothing changed'
          : `${plural(result.imported.length, 'unit')} imported`,
        ...(result.ignored > 0 ? [`${plural(result.ignored, 'unit')} untouched`] : []),
      ]);
    });
  translations
    .command('machine')
    .description('machine-translate the missing and outdated fields into drafts (DeepL)')
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--locales <codes>', 'target locales, comma-separated')
    .option('--store <store>', 'appstore or playstore (default: both)')
    .option('--fields <names>', 'fields, comma-separated (default: every translatable field)')
    .option('--formality <more|less>', 'where the language has it')
    .action(
      async (options: {
        project: string;
        locales: string;
        store?: Store;
        fields?: string;
        formality?: string;
      }) => {
        if (options.formality !== undefined && options.formality !== 'more' && options.formality !== 'less') {
          throw invalidField('--formality', 'must be more or less');
        }
        const list = (value: string) =>
          value
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean);
        const formality = options.formality;
        const result = await withProject(options.project, (ctx, services) =>
          services.machineTranslation.translate(ctx, options.project, {
            targetLocales: list(options.locales),
            ...(options.store !== undefined && { stores: [options.store] }),
            ...(options.fields !== undefined && { fields: list(options.fields) }),
            ...(formality !== undefined && { formality }),
          }),
        );
        emit(output(), result, [
          ...result.drafts.map(
            (d) =>
              `Draft ${d.store}/${d.locale}/${d.field}  ${d.length}/${d.limit ?? '-'}${d.overLimit ? '  over the limit' : ''}`,
          ),
          ...result.errors.map((e) => `Failed ${e.store}/${e.locale}/${e.field}: ${e.message}`),
          `${plural(result.drafts.length, 'draft')}; ${result.usage.characters} characters (this month ${result.usage.month.characters})`,
        ]);
        if (result.errors.length > 0) process.exitCode = 1;
      },
    );
  translations
    .command('accept')
    .description("accept a locale's machine drafts: they become the texts")
    .requiredOption('--project <id>', 'project id')
    .requiredOption('--locale <code>', 'the target locale')
    .option('--store <store>', 'appstore or playstore')
    .option('--fields <names>', 'fields, comma-separated')
    .action(async (options: { project: string; locale: string; store?: Store; fields?: string }) => {
      const result = await withProject(options.project, (ctx, services) =>
        services.translations.accept(ctx, options.project, options.locale, {
          ...(options.store !== undefined && { store: options.store }),
          ...(options.fields !== undefined && { fields: options.fields.split(',').map((f) => f.trim()) }),
        }),
      );
      emit(output(), result, [
        ...result.accepted.map((a) => `Accepted ${a.store}/${options.locale}/${a.field}`),
        ...result.skipped.map((s) => `Skipped ${s.store}/${options.locale}/${s.field}: ${s.reason}`),
      ]);
    });

  return program;
}

/** Walks a directory for a media import, handing each wanted file to `onFile` as a stream. */
async function readMediaTree(
  root: string,
  want: (path: string) => boolean,
  onFile: (path: string, content: Readable) => Promise<void>,
): Promise<{ names: string[] }> {
  const names: string[] = [];
  async function walk(folder: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(root, folder), { withFileTypes: true });
    } catch (error) {
      throw invalidField(
        folder === '' ? '--dir' : folder,
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      );
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.name.startsWith('.') || NOT_WALKED.has(entry.name)) continue;
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) await walk(relative);
      else if (entry.isFile()) {
        names.push(relative);
        if (want(relative)) await onFile(relative, createReadStream(path.join(root, relative)));
      }
    }
  }
  await walk('');
  return { names };
}

/** Runs a command as the operator inside one organization (404 naming --org when there is none). */
function withOrganization<T>(
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
function withProject<T>(
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

/** Folders that never hold a project's own fastlane tree, and may hold a great many files. */
const NOT_WALKED = new Set(['node_modules', 'Pods', 'Carthage', 'DerivedData']);

/**
 * A directory as an import reads it: every file and folder (empty ones too), by path relative to
 * it, and the contents of the text files that can be listing texts (those under a `metadata`
 * folder or the named one). Hidden entries, links and dependency folders are left out.
 */
async function readTree(root: string, named?: string): Promise<FileTree> {
  const texts = new Map<string, string>();
  const files: string[] = [];
  const folders: string[] = [];
  const within = named === undefined ? null : `${named.replace(/^(\.\/)+|\/+$/g, '')}/`;
  const mayBeListing = (relative: string) =>
    relative.endsWith('.txt') &&
    (relative.startsWith('metadata/') ||
      relative.includes('/metadata/') ||
      (within !== null && relative.startsWith(within)));

  async function walk(folder: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(root, folder), { withFileTypes: true });
    } catch (error) {
      const field = folder === '' ? '--dir' : folder;
      throw invalidField(field, `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || NOT_WALKED.has(entry.name)) continue;
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      if (entry.isDirectory()) {
        folders.push(relative);
        await walk(relative);
      } else if (entry.isFile()) {
        files.push(relative);
        if (!mayBeListing(relative)) continue;
        const full = path.join(root, relative);
        if ((await fs.stat(full)).size > IMPORT_LIMITS.maxEntryBytes) {
          throw invalidField(relative, `is larger than ${IMPORT_LIMITS.maxEntryBytes} bytes`);
        }
        texts.set(relative, await fs.readFile(full, 'utf8'));
      }
    }
  }
  await walk('');
  return { texts, files, folders };
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
