/**
 * capYoungGeneration keeps V8's young generation at its cap in a process whose surviving objects
 * would otherwise make V8 double it again and again; limitOldGenerationGrowth has V8 collect an
 * old generation that promoted garbage would otherwise fill. Each case runs in a node process of
 * its own: V8's flags are the process's, and the test's own heap must not decide the outcome.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const SOURCE = path.resolve(import.meta.dirname, '../src/shared/heap-sizing.ts');
const MB = 1024 * 1024;

// The module runs as plain JavaScript, as bin/appmeta runs it from dist/: a TypeScript loader
// would grow the young generation before the cap is in place.
let dir: string;
let MODULE: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'appmeta-heap-'));
  MODULE = path.join(dir, 'heap-sizing.mjs');
  const { outputText } = ts.transpileModule(fs.readFileSync(SOURCE, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  fs.writeFileSync(MODULE, outputText);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/**
 * Keeps a rolling window of ~2 MB of live objects for a second, so that every collection finds
 * survivors, and reports the largest young generation seen.
 */
const workload = () => `
const { capYoungGeneration, liftYoungGenerationCap, youngGenerationBytes } = await import(${JSON.stringify(MODULE)});
const cap = Number(process.env.CAP_MB);
if (cap > 0) capYoungGeneration(cap);
if (process.env.LIFT === '1') liftYoungGenerationCap();
const live = new Array(20000);
let largest = 0;
let n = 0;
for (const end = Date.now() + 1000; Date.now() < end; ) {
  for (let k = 0; k < 1000; k++, n++) live[n % live.length] = { n, pair: [n, n + 1], text: 'item ' + n };
  await new Promise((resolve) => setImmediate(resolve));
  largest = Math.max(largest, youngGenerationBytes());
}
process.stdout.write(String(largest));
`;

async function largestYoungGeneration(
  capMb: number,
  { nodeArgs = [], lift = false }: { nodeArgs?: string[]; lift?: boolean } = {},
): Promise<number> {
  const { stdout } = await run(process.execPath, [...nodeArgs, '--input-type=module', '--eval', workload()], {
    env: { ...process.env, NODE_OPTIONS: '', CAP_MB: String(capMb), LIFT: lift ? '1' : '' },
  });
  return Number(stdout);
}

describe('the young generation of a long-running process', () => {
  it('grows past 8 MB under this load when nothing caps it', async () => {
    expect(await largestYoungGeneration(0)).toBeGreaterThan(8 * MB);
  });

  it('stays at its cap, or one doubling past it when a burst outran the watcher', async () => {
    const largest = await largestYoungGeneration(4);
    expect(largest).toBeGreaterThanOrEqual(4 * MB);
    expect(largest).toBeLessThanOrEqual(8 * MB);
  });

  it('grows again once the cap is lifted (PostgreSQL)', async () => {
    expect(await largestYoungGeneration(4, { lift: true })).toBeGreaterThan(8 * MB);
  });

  it("leaves the size to an operator's --max-semi-space-size", async () => {
    // The operator allows 8 MB per semi-space (16 MB in all): the cap of 4 MB does not apply.
    expect(await largestYoungGeneration(4, { nodeArgs: ['--max-semi-space-size=8'] })).toBeGreaterThan(
      8 * MB,
    );
  });
});

/**
 * Keeps ~10 MB for good (the service's code, schemas and caches) and a rolling window of objects
 * that outlive a few scavenges and then die in the old generation (a request's, under load);
 * reports the largest old generation seen.
 */
const oldWorkload = () => `
const { limitOldGenerationGrowth, oldGenerationBytes } = await import(${JSON.stringify(MODULE)});
if (process.env.LIMIT === '1') limitOldGenerationGrowth();
globalThis.kept = Array.from({ length: 100000 }, (_, i) => ({ i, text: 'kept ' + i }));
const window = new Array(100000);
let largest = 0;
let n = 0;
for (const end = Date.now() + 1500; Date.now() < end; ) {
  for (let k = 0; k < 2000; k++, n++) window[n % window.length] = { n, pair: [n, n + 1], text: 'item ' + n };
  await new Promise((resolve) => setImmediate(resolve));
  largest = Math.max(largest, oldGenerationBytes());
}
process.stdout.write(String(largest));
`;

async function largestOldGeneration({ limit, nodeArgs = [] }: { limit: boolean; nodeArgs?: string[] }) {
  const { stdout } = await run(
    process.execPath,
    [...nodeArgs, '--input-type=module', '--eval', oldWorkload()],
    {
      env: { ...process.env, NODE_OPTIONS: '', LIMIT: limit ? '1' : '' },
    },
  );
  return Number(stdout);
}

describe('the old generation of a long-running process', () => {
  // V8's own growth reached 134–143 MB under this load, the limited one 58–63 MB (live: ~25 MB).
  it('is collected before promoted garbage fills it', async () => {
    const free = await largestOldGeneration({ limit: false });
    const limited = await largestOldGeneration({ limit: true });
    expect(limited).toBeGreaterThan(20 * MB);
    expect(limited).toBeLessThan(free * 0.7);
  });

  it("leaves the growth to an operator's --heap-growing-percent", async () => {
    const limited = await largestOldGeneration({ limit: true });
    const operators = await largestOldGeneration({ limit: true, nodeArgs: ['--heap-growing-percent=300'] });
    expect(operators).toBeGreaterThan(limited / 0.7);
  });
});
