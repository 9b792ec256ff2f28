/**
 * Both store emulators and DeepL's on one port (`appmeta emulate`), plus an admin API for tests and demos:
 * seed state, inspect it, inject faults. Never used by the service itself.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import {
  createAppStoreState,
  registerAppStoreEmulator,
  type AppStoreState,
  type AscSeed,
} from './app-store-connect/index.js';
import { createDeepLState, registerDeepLEmulator, type DeepLSeed, type DeepLState } from './deepl/index.js';
import { createFaults, type Fault, type Faults } from './faults.js';
import {
  createPlayState,
  registerGooglePlayEmulator,
  type PlaySeed,
  type PlayState,
} from './google-play/index.js';

export interface EmulatorSeed {
  appstore?: AscSeed;
  playstore?: PlaySeed;
  deepl?: DeepLSeed;
}

export interface Emulators {
  app: FastifyInstance;
  appStore: AppStoreState;
  play: PlayState;
  deepl: DeepLState;
  faults: Faults;
  /** Back to the seed the emulators started with: state, counters, faults and the call log. */
  restore(): void;
  /** The latest calls, as "METHOD /path", oldest first. */
  calls: string[];
}

export function createEmulators(seed: EmulatorSeed = {}, options: { now?: () => number } = {}): Emulators {
  const now = options.now ?? Date.now;
  const appStore = createAppStoreState(seed.appstore, now);
  const play = createPlayState(seed.playstore, now);
  const deepl = createDeepLState(seed.deepl);
  const faults = createFaults();
  const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024 });

  // Every call, as "METHOD /path", for tests that count the calls a client makes (the latest 5,000).
  const calls: string[] = [];
  app.addHook('onRequest', async (request) => {
    calls.push(`${request.method} ${request.url.split('?')[0]}`);
    if (calls.length > 5_000) calls.shift();
  });

  const restore = () => {
    calls.length = 0;
    appStore.reset();
    play.reset();
    deepl.reset();
    faults.clear();
    appStore.load(seed.appstore ?? {});
    play.load(seed.playstore ?? {});
    deepl.load(seed.deepl ?? {});
  };

  registerAppStoreEmulator(app, appStore, faults);
  registerGooglePlayEmulator(app, play, faults);
  registerDeepLEmulator(app, deepl, faults);

  app.register(async (admin) => {
    admin.post('/__admin/seed', async (request) => {
      const body = (request.body ?? {}) as EmulatorSeed;
      if (body.appstore) appStore.load(body.appstore);
      if (body.playstore) play.load(body.playstore);
      if (body.deepl) deepl.load(body.deepl);
      return { seeded: true };
    });
    admin.post('/__admin/restore', async () => {
      restore();
      return { restored: true };
    });
    admin.post('/__admin/reset', async () => {
      appStore.reset();
      play.reset();
      deepl.reset();
      faults.clear();
      return { reset: true };
    });
    admin.put('/__admin/faults', async (request) => {
      faults.set((request.body ?? []) as Fault[]);
      return { faults: faults.list() };
    });
    admin.delete('/__admin/faults', async () => {
      faults.clear();
      return { faults: [] };
    });
    admin.get('/__admin/faults', async () => ({ faults: faults.list() }));
    admin.get('/__admin/state', async () => ({
      appstore: Object.fromEntries([...appStore.apps.keys()].map((id) => [id, appStore.snapshot(id)])),
      playstore: Object.fromEntries([...play.apps.keys()].map((pkg) => [pkg, play.snapshot(pkg)])),
      openEdits: play.openEdits().map((e) => ({ id: e.id, packageName: e.packageName })),
      deepl: {
        usage: Object.fromEntries([...deepl.keys].map(([key, a]) => [key.slice(0, 4) + '…', a.count])),
        glossaries: deepl.glossaries.size,
      },
    }));
  });
  return { app, appStore, play, deepl, faults, restore, calls };
}
