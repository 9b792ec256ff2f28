import type { Config } from '../config.js';
import type { ConnectorFactory } from './store-connector.js';
import { createAppStoreConnector } from './app-store-connect/connector.js';
import { createGooglePlayConnector } from './google-play/connector.js';
import type { RetryPolicy } from './http.js';

/** Makes the connector for a store secret, aimed at the configured store endpoints. */
export function createConnectorFactory(
  config: Pick<Config, 'appstoreApiUrl' | 'playApiUrl' | 'googleTokenUrl'>,
  options: { policy?: RetryPolicy; concurrency?: number } = {},
): ConnectorFactory {
  return (secret) =>
    secret.store === 'appstore'
      ? createAppStoreConnector(secret, { baseUrl: config.appstoreApiUrl, ...options })
      : createGooglePlayConnector(secret, {
          baseUrl: config.playApiUrl,
          tokenUrl: config.googleTokenUrl,
          ...options,
        });
}
