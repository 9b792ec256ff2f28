/**
 * A strict reader of the Prometheus text format 0.0.4, as a scraper reads it: every sample line
 * `name{label="value",...} number`, every family declared once by HELP and TYPE before its
 * samples, histograms with cumulative buckets ending at +Inf equal to their count. Throws at the
 * first line a scraper would refuse.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  types: Map<string, string>;
  samples: Sample[];
  /** The samples named `name` whose labels include `labels`. */
  find(name: string, labels?: Record<string, string>): Sample[];
  /** The sum of those samples' values (0 when there are none). */
  sum(name: string, labels?: Record<string, string>): number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( \d+)?$/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`not a number in: ${line}`);
  return value;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest.length > 0) {
    const match = LABEL.exec(rest);
    if (match === null) throw new Error(`bad labels in: ${line}`);
    if (Object.hasOwn(labels, match[1]!)) throw new Error(`label ${match[1]} twice in: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    rest = rest.slice(match[0].length);
  }
  return labels;
}

/** The family a sample belongs to: histogram and summary samples carry suffixes. */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count|total|created)$/, '');
  return types.has(base) ? base : undefined;
}

export function parseExposition(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed');
  const types = new Map<string, string>();
  const helped = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const [, keyword, name, ...rest] = line.split(' ');
      if (keyword === 'HELP') {
        if (!NAME.test(name ?? '') || helped.has(name!)) throw new Error(`bad or repeated HELP: ${line}`);
        helped.add(name!);
      } else if (keyword === 'TYPE') {
        if (!NAME.test(name ?? '') || types.has(name!) || !TYPES.has(rest.join(' ')))
          throw new Error(`bad or repeated TYPE: ${line}`);
        types.set(name!, rest[0]!);
      }
      continue;
    }
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const [, name, , labelText, valueText] = match;
    if (familyOf(name!, types) === undefined) throw new Error(`sample before its TYPE: ${line}`);
    samples.push({
      name: name!,
      labels: parseLabels(labelText ?? '', line),
      value: parseValue(valueText!, line),
    });
  }
  checkHistograms(types, samples);
  const find = (name: string, labels: Record<string, string> = {}) =>
    samples.filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  return {
    types,
    samples,
    find,
    sum: (name, labels) => find(name, labels).reduce((total, sample) => total + sample.value, 0),
  };
}

/** Each histogram series: buckets cumulative, ending at +Inf, which equals its _count. */
function checkHistograms(types: Map<string, string>, samples: Sample[]): void {
  for (const [family, type] of types) {
    if (type !== 'histogram') continue;
    const series = new Map<string, { buckets: [number, number][]; count?: number }>();
    const keyOf = (labels: Record<string, string>) =>
      JSON.stringify(
        Object.entries(labels)
          .filter(([key]) => key !== 'le')
          .sort(),
      );
    for (const sample of samples) {
      if (sample.name !== `${family}_bucket` && sample.name !== `${family}_count`) continue;
      const entry = series.get(keyOf(sample.labels)) ?? { buckets: [] };
      series.set(keyOf(sample.labels), entry);
      if (sample.name.endsWith('_count')) entry.count = sample.value;
      else entry.buckets.push([parseValue(sample.labels.le ?? 'x', `le of ${family}`), sample.value]);
    }
    for (const [key, { buckets, count }] of series) {
      const last = buckets.at(-1);
      if (last === undefined || last[0] !== Infinity || last[1] !== count)
        throw new Error(`${family}${key}: the +Inf bucket must close the series and equal its count`);
      for (let i = 1; i < buckets.length; i++) {
        if (buckets[i]![0] <= buckets[i - 1]![0] || buckets[i]![1] < buckets[i - 1]![1])
          throw new Error(`${family}${key}: buckets must rise`);
      }
    }
  }
}
