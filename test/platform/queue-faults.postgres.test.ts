/**
 * The job queue survives PostgreSQL ending its connections under load: pg-boss completes a job
 * without awaiting it, so a completion that meets a terminated backend (57P01) rejected with no
 * one listening and ended the process. The workload runs in a child, where such a rejection ends
 * the process as it would end `appmeta serve`.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const CHILD = path.resolve(import.meta.dirname, '../support/queue-under-faults.ts');

it(
  'outlives every queue connection being ended again and again while jobs complete, and goes on working',
  { timeout: 90_000 },
  async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', CHILD], {
      env: process.env,
      timeout: 75_000,
      killSignal: 'SIGKILL',
    });
    const { ran, ended, ranAfter } = JSON.parse(stdout);
    expect(ended).toBeGreaterThan(20);
    expect(ran).toBeGreaterThan(0);
    expect(ranAfter).toBeGreaterThan(0);
  },
);
