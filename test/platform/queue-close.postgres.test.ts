/**
 * Closing the pg-boss queue while its workers fetch jobs lets the process end: no worker is left
 * waiting for a connection of a pool that has gone. (pg-pool drops requests still queued when it
 * ends; a worker inside one never stopped, and pg-boss's stop loop kept the process alive.)
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const CLOSER = path.resolve(import.meta.dirname, '../support/queue-closer.ts');

it(
  'closing the queue mid-flow leaves nothing that keeps the process alive',
  { timeout: 60_000 },
  async () => {
    // Opening and closing take a few seconds; a worker left behind keeps the process for ever.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', CLOSER], {
      env: process.env,
      timeout: 45_000,
      killSignal: 'SIGKILL',
    });
    const { ranBeforeClose, jobs } = JSON.parse(stdout);
    // It closed while jobs were still waiting, so workers were busy fetching.
    expect(ranBeforeClose).toBeGreaterThan(0);
    expect(ranBeforeClose).toBeLessThan(jobs);
  },
);
