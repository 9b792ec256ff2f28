/** Makes the connector for a store secret, aimed at the configured store endpoints. */
import type { Config } from '../config.js';
import { createAppStoreConnector } from './app-store-connect/connector.js';
import { createGooglePlayConnector } from './google-play/connector.js';
import { createAccountRegistry, type BreakerPolicy, type RetryPolicy } from './resilience.js';
import type { ConnectorFactory } from './store-connector.js';
import type { Metrics } from '../metrics/index.js';

export function createConnectorFactory(
  config: Pick<Config, 'appstoreApiUrl' | 'playApiUrl' | 'googleTokenUrl'>,
  options: { policy?: RetryPolicy; concurrency?: number; breaker?: BreakerPolicy; metrics?: Metrics } = {},
): ConnectorFactory {
  // Bulkheads and breakers belong to a store account: every connector this factory makes for
  // the same account shares them.
  const accounts = createAccountRegistry({ ...(options.breaker && { breaker: options.breaker }) });
  const shared = {
    ...(options.policy && { policy: options.policy }),
    ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
    accounts,
    ...(options.metrics && { metrics: options.metrics }),
  };
  return (secret) =>
    secret.store === 'appstore'
      ? createAppStoreConnector(secret, { baseUrl: config.appstoreApiUrl, ...shared })
      : createGooglePlayConnector(secret, {
          baseUrl: config.playApiUrl,
          tokenUrl: config.googleTokenUrl,
          ...shared,
        });
}
