/**
 * How big V8 lets the heap of a long-running service get: bin/appmeta sizes both generations
 * before it loads anything else. (Plain JavaScript modules only: the test runs this file alone.)
 */
import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/** The young generation's cap, in MB: V8 stops doubling it once it is this large. */
const YOUNG_GENERATION_MAX_MB = 8;

/** How often the young generation's size is looked at while it is at its cap. */
const CHECK_EVERY_MS = 100;

/** V8's `--semi-space-growth-factor` default. */
const DEFAULT_GROWTH_FACTOR = 2;

/**
 * How far, in percent, the old generation may grow past what survived its last full collection
 * before the next one; V8 itself still allows at least 8 MB.
 */
const OLD_GENERATION_GROWTH_PERCENT = 20;

/** Stops the cap in force, if any. */
let lift: (() => void) | null = null;

/** Whether the young generation is at the cap in force. */
let holding = false;

/** Whether holdYoungGenerationWhile is running: the young generation keeps its size meanwhile. */
let loading = false;

/** Sets V8's growth factor from the cap's state: 1 (no growth) while held or at the cap. */
const applyGrowthFactor = () =>
  v8.setFlagsFromString(`--semi-space-growth-factor=${holding || loading ? 1 : DEFAULT_GROWTH_FACTOR}`);

/**
 * Keeps V8's young generation at most `maxMb`; bin/appmeta calls it before it loads anything else.
 *
 * V8 doubles the young generation each time enough objects have survived its collections, up to
 * 32 MB on Node 20, and gives it back only when the process idles. Under steady load the service
 * reaches 32 MB where 8 MB serve it as well on SQLite, whose requests finish within a turn of the
 * event loop (BENCHMARKS.md: about 20 MB less peak memory, the same CPU per request). V8's own
 * limit, `--max-semi-space-size`, is read once when the heap is made, so it can only be given on
 * node's command line; what V8 reads each time it grows the young generation is the growth
 * factor. The factor is therefore 1 (no growth) while the young generation is at its cap, and
 * V8's default while it is below (after an idle shrink). An operator's own `--max-semi-space-size`
 * (node's arguments or NODE_OPTIONS) rules instead.
 *
 * While the young generation is below the cap, the size is looked at after each collection
 * (Node's `gc` performance entries): a burst of survivors doubles it within milliseconds. Node
 * reports collections a turn or two of the event loop late, so a burst can double it once more
 * before the factor is set: the cap is soft, by at most one doubling, until the next shrink.
 * While it is at the cap, where it cannot grow, a timer looks every CHECK_EVERY_MS for a shrink
 * instead: Node builds an entry object with deprecation wrappers for each of some 140 collections
 * a second under load and queues it for the observer; the entries outlived the collections and
 * were most of what the service promoted to the old generation (BENCHMARKS.md).
 */
export function capYoungGeneration(maxMb: number = YOUNG_GENERATION_MAX_MB): void {
  if (givenByOperator(/--max[-_]semi[-_]space[-_]size/) || lift !== null) return;
  const cap = maxMb * 1024 * 1024;
  let timer: NodeJS.Timeout | null = null;
  const check = () => {
    const hold = youngGenerationBytes() >= cap;
    if (hold === holding) return;
    holding = hold;
    applyGrowthFactor();
    if (hold) {
      observer.disconnect();
      timer = setInterval(check, CHECK_EVERY_MS).unref();
    } else {
      if (timer !== null) clearInterval(timer);
      timer = null;
      observer.observe({ entryTypes: ['gc'] });
    }
  };
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  lift = () => {
    observer.disconnect();
    if (timer !== null) clearInterval(timer);
    if (holding || loading) v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
    holding = false;
    lift = null;
  };
}

/**
 * Runs `load` (bin/appmeta: importing the service's code) with the young generation kept at its
 * size, then lets it grow under capYoungGeneration's watch again. The built service is a bundle
 * whose evaluation is one synchronous run: the watcher cannot look in between, and V8 doubled the
 * young generation past the cap before it could (16 MB where the cap is 8, for good). Without a
 * cap in force, `load` just runs.
 */
export async function holdYoungGenerationWhile<T>(load: () => Promise<T>): Promise<T> {
  if (lift === null || loading) return load();
  loading = true;
  applyGrowthFactor();
  try {
    return await load();
  } finally {
    loading = false;
    // Lifted meanwhile (PostgreSQL): the lift already gave V8 its own factor back.
    if (lift !== null) applyGrowthFactor();
  }
}

/**
 * Gives the young generation back to V8's own sizing. For a process whose requests stay in flight
 * over network round trips (PostgreSQL, Redis): their objects outlive the collections of a small
 * young generation and are copied, then promoted, where a larger one lets them die young
 * (BENCHMARKS.md: more CPU per request on PostgreSQL at 8 MB than at 32).
 */
export function liftYoungGenerationCap(): void {
  lift?.();
}

/** The young generation's size (its two semi-spaces), as V8 reports it. */
export function youngGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Lets the old generation grow by `percent` (at least 8 MB) past what survived its last full
 * collection before V8 collects it again; bin/appmeta calls it first thing.
 *
 * V8 picks that growth from how fast it collects against how fast the program allocates, up to
 * 4 × the survivors on a machine with this much memory. Start-up's only full collection left the
 * service 10.6 MB and thus a limit of about 40 MB, which request objects promoted under load (about
 * 1 MB/s) then filled with garbage: 26 → 37 MB of old generation in a 10 s run, with about 22 MB
 * live (BENCHMARKS.md). A fixed 20 % keeps it near live + 8 MB. V8 reads the flag each time it
 * sets a limit, so it can be given at run time; an operator's own `--heap-growing-percent` wins.
 */
export function limitOldGenerationGrowth(percent: number = OLD_GENERATION_GROWTH_PERCENT): void {
  if (givenByOperator(/--heap[-_]growing[-_]percent/)) return;
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}

/** The old generation's size, as V8 reports it. */
export function oldGenerationBytes(): number {
  return v8.getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_size ?? 0;
}

/** Whether node's own arguments or NODE_OPTIONS set a flag: the operator's choice rules. */
function givenByOperator(flag: RegExp): boolean {
  return flag.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '));
}
