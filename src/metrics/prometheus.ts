/**
 * The Metrics port kept in a prom-client registry of the instance's own (so that several apps in
 * one process, as in the tests, keep apart), with the library's process and Node.js metrics.
 * prom-client is loaded only when metrics are on.
 */
import type promClient from 'prom-client';
import { lazyModule } from '../shared/lazy-module.js';
import type { Metrics, MetricSources } from './metrics.js';

const prom = lazyModule<typeof promClient>('prom-client');

/** Seconds: a request or a job step is mostly milliseconds; a store call or a slow endpoint, seconds. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** A job may wait for its turn from milliseconds (woken at once) to minutes (a busy queue). */
const WAIT_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function createPrometheusMetrics(): Metrics {
  const { Registry, Histogram, Counter, Gauge, collectDefaultMetrics } = prom();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const sources: Partial<MetricSources> = {};

  const http = new Histogram({
    name: 'appmeta_http_request_duration_seconds',
    help: 'Time from a request’s arrival to its response, by route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const jobWait = new Histogram({
    name: 'appmeta_job_wait_seconds',
    help: 'Time from a job becoming due to a worker starting it.',
    labelNames: ['job'] as const,
    buckets: WAIT_BUCKETS,
    registers,
  });
  const jobDuration = new Histogram({
    name: 'appmeta_job_duration_seconds',
    help: 'Time a job ran, by outcome.',
    labelNames: ['job', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'appmeta_jobs_queued',
    help: 'Jobs due or delayed and not yet running, by kind.',
    labelNames: ['job'] as const,
    registers,
    async collect() {
      if (sources.queueDepth === undefined) return;
      this.reset();
      for (const [job, count] of Object.entries(await sources.queueDepth())) this.set({ job }, count);
    },
  });
  const webhookAttempts = new Counter({
    name: 'appmeta_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (delivered, retrying, failed for good, deferred for fairness).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const webhookDuration = new Histogram({
    name: 'appmeta_webhook_delivery_duration_seconds',
    help: 'Time a webhook endpoint took to answer an attempt.',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const storeCalls = new Counter({
    name: 'appmeta_store_requests_total',
    help: 'Attempts of calls to the stores by store, operation and HTTP status (network_error when none came).',
    labelNames: ['store', 'operation', 'status'] as const,
    registers,
  });
  const storeDuration = new Histogram({
    name: 'appmeta_store_request_duration_seconds',
    help: 'Time a store took to answer an attempt.',
    labelNames: ['store', 'operation'] as const,
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const storeRetries = new Counter({
    name: 'appmeta_store_retries_total',
    help: 'Store calls attempted again after a 429, a 5xx or no answer.',
    labelNames: ['store', 'operation'] as const,
    registers,
  });
  // The limiter counts for itself (it also answers without metrics on); read at each scrape.
  new Counter({
    name: 'appmeta_rate_limited_requests_total',
    help: 'Requests refused with 429 by the rate limit.',
    registers,
    collect() {
      if (sources.rateLimits === undefined) return;
      this.reset();
      this.inc(sources.rateLimits().limited);
    },
  });
  new Counter({
    name: 'appmeta_rate_limit_store_errors_total',
    help: 'Requests served uncounted because the rate-limit store failed.',
    registers,
    collect() {
      if (sources.rateLimits === undefined) return;
      this.reset();
      this.inc(sources.rateLimits().storeErrors);
    },
  });
  new Gauge({
    name: 'appmeta_db_pool_connections',
    help: 'Database connections: the most the pool opens (max), open (total), idle, and callers waiting for one.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      if (sources.pool === undefined) return;
      const use = sources.pool();
      if (use === null) return;
      for (const state of ['max', 'total', 'idle', 'waiting'] as const) this.set({ state }, use[state]);
    },
  });

  return {
    enabled: true,
    httpRequest: (method, route, status, seconds) =>
      http.observe({ method, route, status: String(status) }, seconds),
    jobStarted: (job, waitSeconds) => jobWait.observe({ job }, Math.max(0, waitSeconds)),
    jobFinished: (job, outcome, seconds) => jobDuration.observe({ job, outcome }, seconds),
    webhookAttempt: (outcome, seconds) => {
      webhookAttempts.inc({ outcome });
      if (outcome !== 'deferred') webhookDuration.observe({ outcome }, seconds);
    },
    storeCall: (store, operation, status, seconds) => {
      storeCalls.inc({ store, operation, status });
      storeDuration.observe({ store, operation }, seconds);
    },
    storeRetry: (store, operation) => storeRetries.inc({ store, operation }),
    watch: (more) => Object.assign(sources, more),
    render: () => registry.metrics(),
  };
}
