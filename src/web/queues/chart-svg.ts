// A bar chart drawn on the server as inline SVG: one bar per hour, its value in the bar's tooltip, the largest
// value on the axis. No script and no chart library: the page stays readable anywhere, and fast.
import { html, type Markup } from "../html.ts";

const WIDTH = 480;
const HEIGHT = 120;
const LEFT = 48;
const BOTTOM = 18;
const TOP = 8;

export interface BarChart {
  id: string;
  title: string;
  /** The start of each bar's hour. */
  hours: readonly number[];
  /** Null: nothing to show for that hour (no bar). */
  values: readonly (number | null)[];
  format: (value: number) => string;
}

const hourLabel = (at: number) => `${new Date(at).toISOString().slice(11, 16)}`;

export function barChart(chart: BarChart): Markup {
  const max = Math.max(0, ...chart.values.map((value) => value ?? 0));
  const plotWidth = WIDTH - LEFT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(chart.values.length, 1);
  const bars = chart.values.map((value, index) => {
    if (value === null) return html``;
    const height = max === 0 ? 0 : (value / max) * plotHeight;
    const x = (LEFT + index * slot + 1).toFixed(1);
    const y = (TOP + plotHeight - height).toFixed(1);
    const label = `${hourLabel(chart.hours[index] ?? 0)} UTC: ${chart.format(value)}`;
    return html`<rect x="${x}" y="${y}" width="${(slot - 2).toFixed(1)}" height="${height.toFixed(1)}"
      ><title>${label}</title></rect
    >`;
  });
  const ticks = chart.hours
    .map((at, index) => ({ at, index }))
    .filter(({ index }) => index % 6 === 0)
    .map(
      ({ at, index }) =>
        html`<text x="${(LEFT + index * slot).toFixed(1)}" y="${HEIGHT - 4}" class="tick"
          >${hourLabel(at)}</text
        >`,
    );
  return html`<figure class="chart" id="${chart.id}">
    <figcaption>${chart.title}</figcaption>
    <svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${chart.title}, hour by hour">
      <text x="${LEFT - 4}" y="${TOP + 8}" class="axis">${chart.format(max)}</text>
      <text x="${LEFT - 4}" y="${TOP + plotHeight}" class="axis">0</text>
      <line x1="${LEFT}" y1="${TOP + plotHeight}" x2="${WIDTH}" y2="${TOP + plotHeight}" class="baseline" />
      <g class="bars">${bars}</g>
      ${ticks}
    </svg>
  </figure>`;
}
