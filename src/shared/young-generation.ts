import { PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';

/** The young generation's cap, in MB: V8 stops doubling it once it is this large. */
const YOUNG_GENERATION_MAX_MB = 8;

/** V8's `--semi-space-growth-factor` default. */
const DEFAULT_GROWTH_FACTOR = 2;

/** Stops the cap in force, if any. */
let lift: (() => void) | null = null;

/**
 * Keeps V8's young generation at most `maxMb`; bin/appmeta calls it before it loads anything else.
 *
 * V8 doubles the young generation each time enough objects have survived its collections, up to
 * 32 MB on Node 20, and gives it back only when the process idles. Under steady load the service
 * reaches 32 MB where 8 MB serve it as well on SQLite, whose requests finish within a turn of the
 * event loop (BENCHMARKS.md: about 20 MB less peak memory, the same CPU per request). V8's own
 * limit, `--max-semi-space-size`, is read once when the heap is made, so it can only be given on
 * node's command line; what V8 reads each time it grows the young generation is the growth
 * factor. After each collection the factor is therefore 1 (no growth) while the young generation
 * is at its cap, and V8's default once it is below (after an idle shrink). Node reports
 * collections a turn or two of the event loop after they happen, so a burst of survivors can
 * double the young generation once more before the factor is set: the cap is soft, by at most
 * one doubling, until the next idle shrink. An operator's own `--max-semi-space-size` (node's
 * arguments or NODE_OPTIONS) rules instead.
 */
export function capYoungGeneration(maxMb: number = YOUNG_GENERATION_MAX_MB): void {
  if (semiSpaceSetByOperator() || lift !== null) return;
  const cap = maxMb * 1024 * 1024;
  let holding = false;
  const observer = new PerformanceObserver(() => {
    const hold = youngGenerationBytes() >= cap;
    if (hold === holding) return;
    holding = hold;
    v8.setFlagsFromString(`--semi-space-growth-factor=${hold ? 1 : DEFAULT_GROWTH_FACTOR}`);
  });
  observer.observe({ entryTypes: ['gc'] });
  lift = () => {
    observer.disconnect();
    if (holding) v8.setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
    lift = null;
  };
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

function semiSpaceSetByOperator(): boolean {
  const given = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  return /--max[-_]semi[-_]space[-_]size/.test(given);
}
