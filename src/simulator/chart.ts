// The queue's length over a simulated day, as block characters for the terminal or as an SVG picture.
import { HOUR_MS } from "./model.ts";

export interface LengthSeries {
  readonly label: string;
  /** [ms since the start of the day, PRs in the queue] at every change. */
  readonly points: readonly (readonly [number, number])[];
  readonly endsAt: number;
}

/** The largest length in each of `columns` equal slices of [0, endsAt]. */
function bucketMaxima(series: LengthSeries, columns: number, endsAt: number): number[] {
  const maxima: number[] = [];
  const points = series.points;
  let index = 0;
  let current = 0;
  const consume = (before: (at: number) => boolean, onChange: (length: number) => void) => {
    for (let point = points[index]; point !== undefined && before(point[0]); point = points[++index]) {
      current = point[1];
      onChange(current);
    }
  };
  for (let column = 0; column < columns; column++) {
    const sliceStart = (column * endsAt) / columns;
    const sliceEnd = ((column + 1) * endsAt) / columns;
    consume(
      (at) => at <= sliceStart,
      () => {},
    );
    let max = current;
    consume(
      (at) => at < sliceEnd,
      (length) => (max = Math.max(max, length)),
    );
    maxima.push(max);
  }
  return maxima;
}

const BLOCKS = " ▁▂▃▄▅▆▇█";

/** A bar chart of the queue's length: each column the longest the queue was in its slice of the day. */
export function terminalChart(series: LengthSeries, columns = 60, rows = 8): string {
  const maxima = bucketMaxima(series, columns, series.endsAt);
  const top = Math.max(1, ...maxima);
  const labelWidth = String(top).length;
  const lines = [`Queue length over the day (PRs waiting or under test), ${series.label}`];
  for (let row = 0; row < rows; row++) {
    const floor = (rows - 1 - row) * 8;
    const cells = maxima.map((value) => {
      const level = Math.round((value / top) * rows * 8) - floor;
      return BLOCKS[Math.max(0, Math.min(8, level))];
    });
    const label = row === 0 ? String(top) : row === rows - 1 ? "0" : "";
    lines.push(`${label.padStart(labelWidth)} │${cells.join("")}`);
  }
  const hours = series.endsAt / HOUR_MS;
  const axis = `${" ".repeat(labelWidth)} └${"─".repeat(columns)}`;
  const end = `${hours.toFixed(hours < 10 ? 1 : 0)} h`;
  const scale = `${" ".repeat(labelWidth + 2)}0 h${end.padStart(Math.max(columns - 3, end.length + 1))}`;
  return [...lines, axis, scale].join("\n");
}

const COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Every series as a step line on common axes (hours, PRs in the queue), with a legend. */
export function svgChart(series: readonly LengthSeries[], title: string): string {
  const width = 800;
  const height = 320;
  const left = 50;
  const right = 190;
  const top = 40;
  const bottom = 40;
  const plotWidth = width - left - right;
  const plotHeight = height - top - bottom;
  const endsAt = Math.max(HOUR_MS, ...series.map((one) => one.endsAt));
  const maxLength = Math.max(1, ...series.flatMap((one) => one.points.map((point) => point[1])));
  const x = (at: number) => (left + (at / endsAt) * plotWidth).toFixed(1);
  const y = (length: number) => (top + plotHeight - (length / maxLength) * plotHeight).toFixed(1);
  const hours = endsAt / HOUR_MS;
  const hourStep = Math.max(1, Math.ceil(hours / 12));
  const ticks: string[] = [];
  for (let hour = 0; hour <= hours; hour += hourStep) {
    ticks.push(
      `<text x="${x(hour * HOUR_MS)}" y="${height - bottom + 16}" text-anchor="middle">${hour} h</text>`,
    );
  }
  const lines = series.map((one, index) => {
    const path: string[] = [];
    let previous = 0;
    for (const [at, length] of one.points) {
      path.push(`${x(at)},${y(previous)}`, `${x(at)},${y(length)}`);
      previous = length;
    }
    path.push(`${x(one.endsAt)},${y(previous)}`);
    const colour = COLOURS[index % COLOURS.length] as string;
    const legendY = top + 16 * index;
    return [
      `<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${path.join(" ")}"/>`,
      `<rect x="${width - right + 12}" y="${legendY - 9}" width="10" height="10" fill="${colour}"/>`,
      `<text x="${width - right + 28}" y="${legendY}">${escapeXml(one.label)}</text>`,
    ].join("\n  ");
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">
  <title>${escapeXml(title)}</title>
  <rect width="${width}" height="${height}" fill="white"/>
  <text x="${left}" y="20" font-size="13">${escapeXml(title)}</text>
  <line x1="${left}" y1="${top + plotHeight}" x2="${left + plotWidth}" y2="${top + plotHeight}" stroke="black"/>
  <line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotHeight}" stroke="black"/>
  <text x="${left - 6}" y="${top + 4}" text-anchor="end">${maxLength}</text>
  <text x="${left - 6}" y="${top + plotHeight + 4}" text-anchor="end">0</text>
  <text x="14" y="${top + plotHeight / 2}" transform="rotate(-90 14 ${top + plotHeight / 2})" text-anchor="middle">PRs in the queue</text>
  ${ticks.join("\n  ")}
  ${lines.join("\n  ")}
</svg>
`;
}
