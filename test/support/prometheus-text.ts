// Reads the Prometheus text format back, so tests assert the numbers a scraper would store.

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: ParsedSample[];
  /** `# TYPE` of each family. */
  types: Map<string, string>;
  /** The one sample named `name` whose labels include `labels`; throws when none or several match. */
  value(name: string, labels?: Record<string, string>): number;
  /** Every sample named `name` whose labels include `labels`. */
  matching(name: string, labels?: Record<string, string>): ParsedSample[];
}

const samplePattern = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const labelPattern = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_, char: string) => (char === "n" ? "\n" : char));
}

export function parseExposition(text: string): Exposition {
  const samples: ParsedSample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ")) continue;
    if (line.startsWith("# TYPE ")) {
      const [name, type] = line.slice("# TYPE ".length).split(" ");
      types.set(name!, type!);
      continue;
    }
    const match = samplePattern.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, label, value] of (match[2] ?? "").matchAll(labelPattern)) labels[label!] = unescape(value!);
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  const matching = (name: string, labels: Record<string, string> = {}) =>
    samples.filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
    );
  return {
    samples,
    types,
    matching,
    value(name, labels = {}) {
      const found = matching(name, labels);
      if (found.length !== 1) {
        throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
      }
      return found[0]!.value;
    },
  };
}

/** A histogram series as `{ buckets: { "60": n, …, "+Inf": n }, count, sum }`. */
export function histogram(exposition: Exposition, name: string, labels: Record<string, string>) {
  const buckets = Object.fromEntries(
    exposition.matching(`${name}_bucket`, labels).map((sample) => [sample.labels.le, sample.value]),
  );
  return {
    buckets,
    count: exposition.value(`${name}_count`, labels),
    sum: exposition.value(`${name}_sum`, labels),
  };
}
