/**
 * Lease recovery (design.md §11): an operation whose instance renews its lease is never taken
 * over; once the lease has lapsed, it is queued again. crash-recovery.test.ts shows the whole
 * resume after a kill -9; this one pins the boundary, on a clock moved by hand.
 */
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LEASE_MS } from '../../src/modules/sync/operation-runner.js';
import { operationsRepository } from '../../src/modules/sync/operations.repository.js';
import { ManualClock } from '../support/clock.js';
import { startHarness, type Harness } from '../support/harness.js';

const clock = new ManualClock();
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ clock });
});
afterAll(() => h.close());

it('leaves an operation with a live lease alone, and queues it again once the lease has lapsed', async () => {
  const org = await h.given.organization();
  const project = await h.given.project(org.admin);
  const started = clock.now();
  await operationsRepository.insert(h.db.kysely, {
    id: 'op_lease_test',
    organization_id: org.id,
    project_id: project.id,
    kind: 'sync',
    status: 'running',
    actor_member_id: org.admin.id,
    actor_operator: null,
    stores: JSON.stringify(['appstore']),
    locales: null,
    outcome: null,
    started_at: started.toISOString(),
    finished_at: null,
    actor_role: 'admin',
    actor_access: null,
    request: JSON.stringify({ kind: 'sync', input: {} }),
    progress: null,
    cancel_requested_at: null,
    lease_expires_at: new Date(started.getTime() + LEASE_MS).toISOString(),
    writes_started: 0,
    queued_at: started.toISOString(),
    prepared: null,
  });
  const log = pino({ level: 'silent' });
  const status = async () => (await operationsRepository.findById(h.db.kysely, 'op_lease_test'))?.status;

  clock.advance(LEASE_MS - 1_000);
  await h.services.background.recoverExpired(log);
  expect(await status()).toBe('running');

  clock.advance(2_000);
  await h.services.background.recoverExpired(log);
  expect(await status()).toBe('queued');
});
