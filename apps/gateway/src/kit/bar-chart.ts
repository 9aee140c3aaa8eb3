/**
 * A bar chart drawn on the server as inline SVG: no script, no library. The picture is one `role="img"` named by its
 * title; its figures are for eyes only, so a page shows the same series as a table beside it (the chart's accessible
 * alternative). Columns stand on a time axis (a label every few bars); horizontal bars carry a name each. The value
 * axis reads 0, half and the top of a rounded scale.
 */
import { html, type Html } from './html';

export interface Bar {
  label: string;
  value: number;
}

export interface BarChartOptions {
  /** The element id the title takes, unique on the page. */
  id: string;
  /** The chart's accessible name, e.g. "Revenue per day, last 30 days". */
  title: string;
  layout: 'columns' | 'rows';
  /** How a value reads on its axis, e.g. £1,250. */
  formatValue(value: number): string;
  /** Columns only: a label under every n-th column, counted back from the last (default 5). */
  labelEvery?: number;
}

const WIDTH = 480;
const FONT = 11;
const ROW_HEIGHT = 22;
const NAME_CHARACTERS = 20;

/** 1, 2, 2.5 or 5 times a power of ten, at least `value`: an axis top that reads well. */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 2.5, 5, 10].find((factor) => factor * power >= value)!;
  return step * power;
}

const round = (n: number): number => Math.round(n * 10) / 10;
const shortened = (text: string): string =>
  text.length > NAME_CHARACTERS ? `${text.slice(0, NAME_CHARACTERS - 1)}…` : text;

export function barChart(bars: readonly Bar[], options: BarChartOptions): Html {
  const top = niceCeiling(Math.max(0, ...bars.map((bar) => bar.value)));
  return options.layout === 'columns' ? columns(bars, top, options) : rows(bars, top, options);
}

function frame(options: BarChartOptions, height: number, body: Html[]): Html {
  const size = html`viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" font-size="${FONT}"`;
  const title = html`<title id="${options.id}">${options.title}</title>`;
  return html`<svg class="chart" role="img" aria-labelledby="${options.id}" ${size}>${title}${body}</svg>`;
}

function columns(bars: readonly Bar[], top: number, options: BarChartOptions): Html {
  const left = 64;
  // Room on the right for half of the last column's label.
  const right = WIDTH - 20;
  const plotTop = 8;
  const plotHeight = 180;
  const height = plotTop + plotHeight + 24;
  const slot = (right - left) / Math.max(1, bars.length);
  const every = options.labelEvery ?? 5;
  const yOf = (value: number) => round(plotTop + plotHeight - (value / top) * plotHeight);
  const ticks = [0, top / 2, top].map((value) => {
    const y = yOf(value);
    const line = html`<line class="grid" x1="${left}" x2="${right}" y1="${y}" y2="${y}"/>`;
    const words = options.formatValue(value);
    return html`${line}<text x="${left - 6}" y="${y + FONT / 3}" text-anchor="end">${words}</text>`;
  });
  const labelY = plotTop + plotHeight + 16;
  const drawn = bars.map((bar, index) => {
    const x = round(left + index * slot + slot * 0.1);
    const labelled = (bars.length - 1 - index) % every === 0;
    const barHeight = round((bar.value / top) * plotHeight);
    const barWidth = round(slot * 0.8);
    const rect = html`<rect class="bar" x="${x}" y="${yOf(bar.value)}" width="${barWidth}" height="${barHeight}"/>`;
    const label = labelled
      ? html`<text x="${round(x + slot * 0.4)}" y="${labelY}" text-anchor="middle">${bar.label}</text>`
      : '';
    return html`${rect}${label}`;
  });
  return frame(options, height, [...ticks, ...drawn]);
}

function rows(bars: readonly Bar[], top: number, options: BarChartOptions): Html {
  const left = 140;
  const right = WIDTH - 12;
  const plotHeight = Math.max(1, bars.length) * ROW_HEIGHT;
  const height = plotHeight + 24;
  const xOf = (value: number) => round(left + (value / top) * (right - left));
  const ticks = [0, top / 2, top].map((value) => {
    const x = xOf(value);
    const anchor = value === top ? 'end' : 'middle';
    const line = html`<line class="grid" x1="${x}" x2="${x}" y1="0" y2="${plotHeight}"/>`;
    const words = options.formatValue(value);
    return html`${line}<text x="${x}" y="${plotHeight + 16}" text-anchor="${anchor}">${words}</text>`;
  });
  const drawn = bars.map((bar, index) => {
    const y = index * ROW_HEIGHT;
    const textY = y + ROW_HEIGHT / 2 + FONT / 3;
    const name = html`<text x="${left - 6}" y="${textY}" text-anchor="end">${shortened(bar.label)}</text>`;
    const width = round(xOf(bar.value) - left);
    return html`${name}<rect class="bar" x="${left}" y="${y + 3}" width="${width}" height="${ROW_HEIGHT - 6}"/>`;
  });
  return frame(options, height, [...ticks, ...drawn]);
}
