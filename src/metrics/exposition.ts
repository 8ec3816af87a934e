// The Prometheus text exposition format 0.0.4. prom-client builds it from live observations; the queue
// metrics are aggregates read from the database (histogram buckets included) and one family is `untyped`,
// which prom-client cannot express, so they are written here.

export const expositionContentType = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  labels: Labels;
  value: number;
}

export interface HistogramSeries {
  labels: Labels;
  /** Cumulative counts of observations at most each bound of the family, in its order. */
  atMost: readonly number[];
  count: number;
  sum: number;
}

export type MetricFamily =
  | { name: string; help: string; type: "gauge" | "counter" | "untyped"; samples: readonly Sample[] }
  | {
      name: string;
      help: string;
      type: "histogram";
      /** Upper bounds of the buckets, ascending; `+Inf` is added. */
      bounds: readonly number[];
      series: readonly HistogramSeries[];
    };

function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

function escapeLabelValue(value: string): string {
  if (!/[\\\n"]/.test(value)) return value;
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"');
}

/** `a="1",b="2"`: rendered once per series, then shared by its lines. */
function labelPairs(labels: Labels): string {
  return Object.entries(labels)
    .map(([label, text]) => `${label}="${escapeLabelValue(text)}"`)
    .join(",");
}

function sampleLine(name: string, pairs: string, value: number): string {
  return `${name}${pairs === "" ? "" : `{${pairs}}`} ${value}`;
}

/** Every family with its HELP and TYPE, even without samples, so scrapers always see the full set. */
export function writeExposition(families: readonly MetricFamily[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    if (family.type !== "histogram") {
      for (const sample of family.samples) {
        lines.push(sampleLine(family.name, labelPairs(sample.labels), sample.value));
      }
      continue;
    }
    for (const series of family.series) {
      const pairs = labelPairs(series.labels);
      const bucketPairs = pairs === "" ? "" : `${pairs},`;
      family.bounds.forEach((bound, index) => {
        lines.push(
          sampleLine(`${family.name}_bucket`, `${bucketPairs}le="${bound}"`, series.atMost[index] ?? 0),
        );
      });
      lines.push(
        sampleLine(`${family.name}_bucket`, `${bucketPairs}le="+Inf"`, series.count),
        sampleLine(`${family.name}_sum`, pairs, series.sum),
        sampleLine(`${family.name}_count`, pairs, series.count),
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
