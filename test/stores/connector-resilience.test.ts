/**
 * The connectors' policies per store account (src/connectors/resilience.ts), against the store
 * emulators: the circuit breaker stops calls to an account that keeps failing and lets one through
 * again after a while; retries honour Retry-After.
 */
import { getEventListeners } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
// cockatiel's own signal for calls given none: the one a push's calls crowded.
import { neverAbortedSignal } from 'cockatiel/dist/common/abort.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConnectorFactory } from '../../src/connectors/index.js';
import { createAccountRegistry, send } from '../../src/connectors/resilience.js';
import { StoreError } from '../../src/connectors/store-connector.js';
import { startEmulators, type RunningEmulators } from '../support/emulators.js';

let emu: RunningEmulators;
beforeAll(async () => {
  emu = await startEmulators();
});
afterAll(() => emu.close());
beforeEach(() => emu.restore());

const fast = { retries: 1, baseDelayMs: 5, maxDelayMs: 50, timeoutMs: 2_000 };

const factory = () =>
  createConnectorFactory(
    { appstoreApiUrl: emu.url, playApiUrl: emu.url, googleTokenUrl: `${emu.url}/token` },
    { policy: fast, breaker: { failures: 3, openMs: 400 } },
  );

const failure = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
};

describe('circuit breaker per store account', () => {
  it('opens after repeated failures, refuses without calling the store, and closes after a good call', async () => {
    const connectors = factory();
    const apple = connectors({ store: 'appstore', ...emu.credentials.appstore });
    emu.faults.set([{ route: 'GET /v1/apps', status: 503 }]);
    for (let i = 0; i < 3; i++) {
      expect(((await failure(apple.verify())) as StoreError).code).toBe('UNEXPECTED_ERROR');
    }
    const calls = emu.appStore.counters.requests;
    const refused = (await failure(apple.verify())) as StoreError;
    expect(refused).toBeInstanceOf(StoreError);
    expect(refused.code).toBe('STORE_UNAVAILABLE');
    expect(refused.retryable).toBe(true);
    expect(emu.appStore.counters.requests).toBe(calls);

    // Another connector for the same account shares the breaker; another account does not.
    expect(
      ((await failure(connectors({ store: 'appstore', ...emu.credentials.appstore }).verify())) as StoreError)
        .code,
    ).toBe('STORE_UNAVAILABLE');
    await connectors({ store: 'playstore', ...emu.credentials.playstore } as never).verify();

    emu.faults.clear();
    await new Promise((resolve) => setTimeout(resolve, 450));
    await apple.verify(); // half-open: one call goes through, succeeds, closes the breaker
    await apple.verify();
    expect(emu.appStore.counters.requests).toBe(calls + 2);
  });

  it('does not count refusals that are answers (4xx) as failures', async () => {
    const apple = factory()({ store: 'appstore', ...emu.credentials.appstore });
    emu.faults.set([{ route: 'GET /v1/apps', status: 404 }]);
    for (let i = 0; i < 5; i++) expect(((await failure(apple.verify())) as StoreError).code).toBe('HTTP_404');
  });
});

describe('retries', () => {
  it('waits at least the Retry-After of a 429 before trying again', async () => {
    const apple = factory()({ store: 'appstore', ...emu.credentials.appstore });
    emu.faults.set([{ route: 'GET /v1/apps', status: 429, retryAfter: 1, times: 1 }]);
    const started = Date.now();
    await apple.verify();
    // capped by maxDelayMs (50 ms) in this policy: the hint is a floor only up to the cap
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});

describe('many calls at once', () => {
  it('waiting in the bulkhead, they leave no listener on a shared signal (MaxListenersExceededWarning)', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    const server = http.createServer((_request, response) => {
      setTimeout(() => response.end('{}'), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/anything`;
      const account = createAccountRegistry()('many-calls', 2);
      const during: number[] = [];
      const calls = Array.from({ length: 40 }, () =>
        send({ method: 'PATCH', url, headers: {}, idempotent: true }, fast, account),
      );
      during.push(getEventListeners(neverAbortedSignal, 'abort').length);
      const responses = await Promise.all(calls);
      expect(responses.map((r) => r.status)).toEqual(Array<number>(40).fill(200));
      expect(during).toEqual([0]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
