/** Starts both store emulators on a free port, seeded with one app per store and real key material. */
import { signJwt } from '../../src/connectors/tokens.js';
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
    ...(extra.deepl !== undefined && { deepl: extra.deepl }),
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

/** A JWT for the App Store emulator, as a client of Apple's API signs it (20 minutes). */
export async function appleToken(emu: RunningEmulators): Promise<string> {
  const { issuerId, keyId, privateKey } = emu.credentials.appstore;
  const iat = Math.floor(Date.now() / 1000);
  return signJwt(
    { alg: 'ES256', kid: keyId, typ: 'JWT' },
    { iss: issuerId, iat, exp: iat + 1200, aud: 'appstoreconnect-v1' },
    privateKey,
  );
}

/** An access token of the Google Play emulator, by the JWT-bearer grant of the service account. */
export async function googleToken(emu: RunningEmulators): Promise<string> {
  const account = emu.credentials.playstore.serviceAccount as { client_email: string; private_key: string };
  const iat = Math.floor(Date.now() / 1000);
  const assertion = await signJwt(
    { alg: 'RS256', typ: 'JWT' },
    {
      iss: account.client_email,
      scope: 'https://www.googleapis.com/auth/androidpublisher',
      aud: `${emu.url}/token`,
      iat,
      exp: iat + 3600,
    },
    account.private_key,
  );
  const res = await fetch(`${emu.url}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}
