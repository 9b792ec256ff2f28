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
const SOURCE = path.resolve(import.meta.dirname, '../../src/shared/heap-sizing.ts');
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
 * Code that replaces a rolling window of objects (`perTurn` a turn of the event loop, for `ms`) and
 * leaves in `largest` the largest size `measure` saw; objects of the window outlive some
 * collections, then die. With `yields: false` the run is synchronous, as a module's evaluation.
 */
const churnLoop = (o: { perTurn: number; ms: number; measure: string; yields?: boolean }) => `
largest = 0;
for (const end = Date.now() + ${o.ms}; Date.now() < end; ) {
  for (let k = 0; k < ${o.perTurn}; k++, n++) window[n % window.length] = { n, pair: [n, n + 1], text: 'item ' + n };
  ${o.yields === false ? '' : 'await new Promise((resolve) => setImmediate(resolve));'}
  largest = Math.max(largest, sizing.${o.measure}());
}`;

/**
 * A child process that keeps `keep` objects for good, churns a window of `window` objects and
 * prints the largest size `measure` saw; `setup` runs first.
 */
const churn = (o: {
  setup: string;
  keep: number;
  window: number;
  perTurn: number;
  ms: number;
  measure: string;
}) => `
const sizing = await import(${JSON.stringify(MODULE)});
${o.setup}
globalThis.kept = Array.from({ length: ${o.keep} }, (_, i) => ({ i, text: 'kept ' + i }));
const window = new Array(${o.window});
let largest = 0;
let n = 0;
${churnLoop(o)}
process.stdout.write(String(largest));
`;

/** Runs a child process's script and answers what it printed, parsed as JSON. */
async function largestIn<T = number>(script: string, env: Record<string, string>, nodeArgs: string[] = []) {
  const { stdout } = await run(process.execPath, [...nodeArgs, '--input-type=module', '--eval', script], {
    env: { ...process.env, NODE_OPTIONS: '', ...env },
  });
  return JSON.parse(stdout) as T;
}

/** ~2 MB of live objects in a window for a second: every collection finds survivors. */
// Functions: MODULE exists only once beforeAll has run.
const youngWorkload = () =>
  churn({
    setup: `const cap = Number(process.env.CAP_MB);
if (cap > 0) sizing.capYoungGeneration(cap);
if (process.env.LIFT === '1') sizing.liftYoungGenerationCap();`,
    keep: 0,
    window: 20_000,
    perTurn: 1000,
    ms: 1000,
    measure: 'youngGenerationBytes',
  });

/**
 * bin/appmeta loading the bundle: a capped young generation, a synchronous burst of survivors
 * (held while it runs when HOLD=1), then a second of load; prints the largest young generation of
 * each part.
 */
const loadingWorkload = () => `
const sizing = await import(${JSON.stringify(MODULE)});
sizing.capYoungGeneration(4);
const window = new Array(20000);
let largest = 0;
let n = 0;
const load = async () => { ${churnLoop({ perTurn: 1000, ms: 1000, measure: 'youngGenerationBytes', yields: false })} };
await (process.env.HOLD === '1' ? sizing.holdYoungGenerationWhile(load) : load());
const whileLoading = largest;
${churnLoop({ perTurn: 1000, ms: 1000, measure: 'youngGenerationBytes' })}
process.stdout.write(JSON.stringify([whileLoading, largest]));
`;

const largestYoungGeneration = (
  capMb: number,
  { nodeArgs = [], lift = false }: { nodeArgs?: string[]; lift?: boolean } = {},
) => largestIn(youngWorkload(), { CAP_MB: String(capMb), LIFT: lift ? '1' : '' }, nodeArgs);

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

  it('outgrows its cap in a synchronous run, which the watcher cannot see', async () => {
    const [whileLoading] = await largestIn<[number, number]>(loadingWorkload(), { HOLD: '' });
    expect(whileLoading).toBeGreaterThan(8 * MB);
  });

  it('keeps its size while held for loading, then grows to the cap again', async () => {
    const [whileLoading, after] = await largestIn<[number, number]>(loadingWorkload(), { HOLD: '1' });
    expect(whileLoading).toBeLessThanOrEqual(4 * MB);
    expect(after).toBeGreaterThanOrEqual(4 * MB);
    expect(after).toBeLessThanOrEqual(8 * MB);
  });

  it("leaves the size to an operator's --max-semi-space-size", async () => {
    // The operator allows 8 MB per semi-space (16 MB in all): the cap of 4 MB does not apply.
    expect(await largestYoungGeneration(4, { nodeArgs: ['--max-semi-space-size=8'] })).toBeGreaterThan(
      8 * MB,
    );
  });
});

/**
 * ~10 MB kept for good (the service's code, schemas and caches) and a window whose objects are
 * promoted and then die in the old generation (a request's, under load).
 */
const oldWorkload = () =>
  churn({
    setup: "if (process.env.LIMIT === '1') sizing.limitOldGenerationGrowth();",
    keep: 100_000,
    window: 100_000,
    perTurn: 2000,
    ms: 1500,
    measure: 'oldGenerationBytes',
  });

const largestOldGeneration = ({ limit, nodeArgs = [] }: { limit: boolean; nodeArgs?: string[] }) =>
  largestIn(oldWorkload(), { LIMIT: limit ? '1' : '' }, nodeArgs);

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
