/**
 * The demo seed of `appmeta emulate`: one app in each store, fresh key material and a DeepL key,
 * whose credentials are written to files that a newcomer PUTs into appmeta as an admin.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { EmulatorSeed } from './server.js';

export interface DemoSetup {
  seed: EmulatorSeed;
  appstoreCredentials: { issuerId: string; keyId: string; privateKey: string };
  playstoreCredentials: { serviceAccount: Record<string, string> };
  /** The body of PUT /organization/credentials/deepl: a key the DeepL emulator accepts. */
  deeplCredentials: { apiKey: string };
}

export const DEMO_APP_ID = '1234567890';
export const DEMO_PACKAGE = 'com.example.weather';

export function demoSetup(tokenUrl: string): DemoSetup {
  const apple = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const google = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const issuerId = randomUUID();
  const keyId = 'DEMOKEY123';
  const clientEmail = 'appmeta-demo@demo-project.iam.gserviceaccount.com';
  const deeplKey = `demo-${randomUUID()}`;
  return {
    deeplCredentials: { apiKey: deeplKey },
    appstoreCredentials: {
      issuerId,
      keyId,
      privateKey: apple.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    },
    playstoreCredentials: {
      serviceAccount: {
        type: 'service_account',
        project_id: 'demo-project',
        private_key_id: randomUUID().replace(/-/g, ''),
        private_key: google.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        client_email: clientEmail,
        token_uri: tokenUrl,
      },
    },
    seed: {
      deepl: { keys: [{ key: deeplKey, characterLimit: 500_000 }] },
      appstore: {
        keys: [
          { issuerId, keyId, publicKey: apple.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
        ],
        apps: [
          {
            id: DEMO_APP_ID,
            bundleId: DEMO_PACKAGE,
            name: 'Weather Pro',
            appInfos: [
              {
                state: 'READY_FOR_DISTRIBUTION',
                localizations: { 'en-US': { name: 'Weather Pro', subtitle: 'Forecasts that matter' } },
              },
              {
                state: 'PREPARE_FOR_SUBMISSION',
                localizations: {
                  'en-US': {
                    name: 'Weather Pro',
                    subtitle: 'Forecasts that matter',
                    privacyPolicyUrl: 'https://example.com/privacy',
                  },
                  'de-DE': { name: 'Wetter Pro', subtitle: 'Vorhersagen, die zählen' },
                },
              },
            ],
            versions: [
              {
                versionString: '2.0',
                appVersionState: 'READY_FOR_DISTRIBUTION',
                localizations: { 'en-US': { description: 'Hourly forecasts.' } },
              },
              {
                versionString: '2.1',
                appVersionState: 'PREPARE_FOR_SUBMISSION',
                localizations: {
                  'en-US': {
                    description: 'Hourly forecasts and radar maps.',
                    keywords: 'rain,radar,storm',
                    supportUrl: 'https://example.com/support',
                    whatsNew: 'Faster radar.',
                  },
                  'de-DE': {
                    description: 'Stündliche Vorhersagen.',
                    keywords: 'regen,radar',
                    supportUrl: 'https://example.com/support',
                  },
                },
              },
            ],
            inAppPurchases: [
              {
                productId: 'com.example.weather.radar',
                name: 'Radar maps (one-time)',
                inAppPurchaseType: 'NON_CONSUMABLE',
                localizations: { 'en-US': { name: 'Radar Maps', description: 'Live radar for your street' } },
              },
            ],
            subscriptionGroups: [
              {
                referenceName: 'Weather Plus',
                localizations: { 'en-US': { name: 'Weather Plus' } },
                subscriptions: [
                  {
                    productId: 'com.example.weather.plus.monthly',
                    name: 'Plus monthly',
                    subscriptionPeriod: 'ONE_MONTH',
                    localizations: {
                      'en-US': { name: 'Plus Monthly', description: 'Every forecast, no ads' },
                    },
                  },
                ],
              },
            ],
            productPages: [
              {
                id: 'spring-storms',
                name: 'Spring storms',
                versions: [
                  {
                    state: 'PREPARE_FOR_SUBMISSION',
                    localizations: { 'en-US': 'Storm season: live radar, street by street' },
                  },
                ],
              },
            ],
            appEvents: [
              {
                id: 'storm-week',
                referenceName: 'Storm week',
                badge: 'SPECIAL_EVENT',
                localizations: {
                  'en-US': {
                    name: 'Storm week',
                    shortDescription: 'Track every storm live',
                    longDescription: 'A week of live storm tracking with minute-by-minute radar.',
                  },
                },
              },
            ],
          },
        ],
      },
      playstore: {
        serviceAccounts: [
          { clientEmail, publicKey: google.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
        ],
        apps: [
          {
            packageName: DEMO_PACKAGE,
            listings: {
              'en-US': {
                title: 'Weather Pro',
                shortDescription: 'Forecasts that matter',
                fullDescription: 'Hourly forecasts and radar maps.',
              },
              'de-DE': {
                title: 'Wetter Pro',
                shortDescription: 'Vorhersagen, die zählen',
                fullDescription: 'Stündliche Vorhersagen.',
              },
            },
            artifacts: { '20': '2.0', '21': '2.1' },
            tracks: {
              production: [
                {
                  name: '21 (2.1)',
                  versionCodes: ['21'],
                  status: 'inProgress',
                  userFraction: 0.1,
                  releaseNotes: [{ language: 'en-US', text: 'Faster radar.' }],
                },
                { name: '20 (2.0)', versionCodes: ['20'], status: 'completed' },
              ],
            },
            inAppProducts: [
              {
                sku: 'radar_maps',
                status: 'active',
                listings: { 'en-US': { title: 'Radar maps', description: 'Live radar for your street' } },
              },
            ],
            subscriptions: [
              {
                productId: 'plus',
                basePlans: [{ basePlanId: 'monthly', state: 'ACTIVE' }],
                listings: [
                  { languageCode: 'en-US', title: 'Weather Plus', benefits: ['Hourly alerts', 'No ads'] },
                ],
              },
            ],
          },
        ],
      },
    },
  };
}
