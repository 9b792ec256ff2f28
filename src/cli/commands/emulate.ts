/** The store emulators on one port, for tests and demos. */
import type { Command } from 'commander';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { EmulatorSeed } from '../../emulators/server.js';
import { emit, type Output } from '../command-kit.js';

export function emulateCommand(program: Command, output: () => Output): void {
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
        import('../../emulators/demo.js'),
        import('../../emulators/server.js'),
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
}
