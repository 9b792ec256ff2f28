/** The instance's metrics (design.md §21): on when METRICS_TOKEN is set, else nothing is kept. */
import { NO_METRICS, type Metrics } from './metrics.js';
import { createPrometheusMetrics } from './prometheus.js';

export * from './metrics.js';

export function createMetrics(config: { metricsToken: string | null }): Metrics {
  return config.metricsToken === null ? NO_METRICS : createPrometheusMetrics();
}
