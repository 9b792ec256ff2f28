/** Starts both store emulators on a free port, seeded with one app per store and real key material. */
import { createEmulators, type EmulatorSeed, type Emulators } from '../../src/emulators/server.js';
import { appStoreCredentials, serviceAccount } from './store-keys.js';

export interface RunningEmulators extends Emulators {
  url: string;
  env: Record<string, string>;
  credentials: {
    appstore: { issuerId: string; keyId: string; privateKey: string };
    playstore: { serviceAccount: Record<string, unknown> };
  };
  close(): Promise<void>;
}

export const APP_ID = '1234567890';
export const PACKAGE = 'com.example.weather';

export async function startEmulators(extra: EmulatorSeed = {}): Promise<RunningEmulators> {
  const apple = appStoreCredentials();
  const google = serviceAccount();
  const seed: EmulatorSeed = {
    appstore: {
      keys: [{ issuerId: apple.issuerId, keyId: apple.keyId, publicKey: apple.publicKey }],
      apps: [
        {
          id: APP_ID,
          bundleId: PACKAGE,
          name: 'Weather Pro',
          appInfos: [
            {
              id: 'info-live',
              state: 'READY_FOR_DISTRIBUTION',
              localizations: { 'en-US': { name: 'Weather Pro', subtitle: 'Live subtitle' } },
            },
            {
              id: 'info-edit',
              state: 'PREPARE_FOR_SUBMISSION',
              localizations: {
                'en-US': {
                  name: 'Weather Pro',
                  subtitle: 'Forecasts that matter',
                  privacyPolicyUrl: 'https://example.com/privacy',
                },
              },
            },
          ],
          versions: [
            {
              id: 'ver-1',
              versionString: '1.0',
              appVersionState: 'READY_FOR_DISTRIBUTION',
              localizations: { 'en-US': { description: 'Old' } },
            },
            {
              id: 'ver-2',
              versionString: '1.1',
              appVersionState: 'PREPARE_FOR_SUBMISSION',
              localizations: {
                'en-US': {
                  description: 'Hourly forecasts.',
                  keywords: 'rain,radar',
                  supportUrl: 'https://example.com/support',
                  whatsNew: 'Fixes',
                },
              },
            },
          ],
        },
      ],
      ...extra.appstore,
    },
    playstore: {
      serviceAccounts: [{ clientEmail: google.account.client_email, publicKey: google.publicKey }],
      apps: [
        {
          packageName: PACKAGE,
          listings: {
            'en-US': {
              title: 'Weather Pro',
              shortDescription: 'Forecasts that matter',
              fullDescription: 'Hourly forecasts.',
            },
            'de-DE': { title: 'Wetter Pro', shortDescription: 'Vorhersagen', fullDescription: 'Stündlich.' },
          },
        },
      ],
      ...extra.playstore,
    },
  };
  const emulators = createEmulators(seed);
  const url = await emulators.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    ...emulators,
    url,
    env: { APPSTORE_API_URL: url, PLAY_API_URL: url, GOOGLE_TOKEN_URL: `${url}/token` },
    credentials: {
      appstore: { issuerId: apple.issuerId, keyId: apple.keyId, privateKey: apple.privateKey },
      playstore: { serviceAccount: google.account },
    },
    close: () => emulators.app.close(),
  };
}
