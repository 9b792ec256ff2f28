import type { Config } from '../config.js';
import type { ConnectorFactory } from '../modules/credentials/credentials.service.js';
import { createAppStoreConnector } from './app-store-connect/connector.js';
import { createGooglePlayConnector } from './google-play/connector.js';
import type { RetryPolicy } from './http.js';

/** Makes the connector for a store secret, aimed at the configured store endpoints. */
export function createConnectorFactory(
  config: Pick<Config, 'appstoreApiUrl' | 'playApiUrl' | 'googleTokenUrl'>,
  policy?: RetryPolicy,
): ConnectorFactory {
  return (secret) =>
    secret.store === 'appstore'
      ? createAppStoreConnector(secret, { baseUrl: config.appstoreApiUrl, ...(policy && { policy }) })
      : createGooglePlayConnector(secret, {
          baseUrl: config.playApiUrl,
          tokenUrl: config.googleTokenUrl,
          ...(policy && { policy }),
        });
}
