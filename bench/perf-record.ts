/**
 * BENCH_PERF=<dir>: Linux `perf` samples of the service while it is benchmarked, with its
 * JavaScript functions named (V8's `--perf-prof` jitdump, joined in by `perf inject`).
 *
 * On this machine V8's own profiler (BENCH_PROFILE) credits most samples to system calls: its
 * sampling signal reaches the main thread when it enters the kernel, so a write to a socket looks
 * like half the work (BENCHMARKS.md, seventh part). `perf` samples on a timer interrupt and
 * sees JavaScript, V8, SQLite and the kernel as they are.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface PerfRecording {
  /** Stops sampling and writes `<dir>/<name>.data` with the JavaScript names in. */
  finish(): Promise<void>;
}

/** Node's arguments for a process to be sampled: it writes its jitdump into its working folder. */
export const PERF_NODE_ARGS = ['--perf-prof'];

/** Fails at start-up, not after the seeding, when `perf` cannot run here. */
export function checkPerf(): void {
  const probe = spawnSync('perf', ['--version'], { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error('BENCH_PERF needs Linux perf on the PATH (Debian: apt install linux-perf)');
  }
}

/** Samples the process `pid` (all its threads) until `finish`, once it has exited. */
export function recordPerf(pid: number, dir: string, name: string): PerfRecording {
  const raw = path.join(dir, `${name}.raw.data`);
  // -k 1: the monotonic clock, which the jitdump's timestamps use.
  const perf: ChildProcess = spawn(
    'perf',
    ['record', '-k', '1', '-e', 'cpu-clock', '-F', '999', '-g', '-p', String(pid), '-o', raw],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const exited = new Promise((resolve) => perf.once('exit', resolve));
  return {
    async finish() {
      // perf stops by itself when the process it samples exits; SIGINT covers a process still running.
      perf.kill('SIGINT');
      await exited;
      const injected = spawnSync('perf', ['inject', '-j', '-i', raw, '-o', path.join(dir, `${name}.data`)], {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      if (injected.status !== 0) throw new Error(`perf inject failed for ${raw}`);
      fs.rmSync(raw);
    },
  };
}
