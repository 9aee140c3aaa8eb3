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
  return html`<svg class="chart" role="img" aria-labelledby="${options.id}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" font-size="${FONT}"><title id="${options.id}">${options.title}</title>${body}</svg>`;
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
  const ticks = [0, top / 2, top].map(
    (value) =>
      html`<line class="grid" x1="${left}" x2="${right}" y1="${yOf(value)}" y2="${yOf(value)}"/><text x="${left - 6}" y="${yOf(value) + FONT / 3}" text-anchor="end">${options.formatValue(value)}</text>`,
  );
  const drawn = bars.map((bar, index) => {
    const x = round(left + index * slot + slot * 0.1);
    const labelled = (bars.length - 1 - index) % every === 0;
    return html`<rect class="bar" x="${x}" y="${yOf(bar.value)}" width="${round(slot * 0.8)}" height="${round((bar.value / top) * plotHeight)}"/>${
      labelled
        ? html`<text x="${round(x + slot * 0.4)}" y="${plotTop + plotHeight + 16}" text-anchor="middle">${bar.label}</text>`
        : ''
    }`;
  });
  return frame(options, height, [...ticks, ...drawn]);
}

function rows(bars: readonly Bar[], top: number, options: BarChartOptions): Html {
  const left = 140;
  const right = WIDTH - 12;
  const plotHeight = Math.max(1, bars.length) * ROW_HEIGHT;
  const height = plotHeight + 24;
  const xOf = (value: number) => round(left + (value / top) * (right - left));
  const ticks = [0, top / 2, top].map(
    (value) =>
      html`<line class="grid" x1="${xOf(value)}" x2="${xOf(value)}" y1="0" y2="${plotHeight}"/><text x="${xOf(value)}" y="${plotHeight + 16}" text-anchor="${value === top ? 'end' : 'middle'}">${options.formatValue(value)}</text>`,
  );
  const drawn = bars.map(
    (bar, index) =>
      html`<text x="${left - 6}" y="${index * ROW_HEIGHT + ROW_HEIGHT / 2 + FONT / 3}" text-anchor="end">${shortened(bar.label)}</text><rect class="bar" x="${left}" y="${index * ROW_HEIGHT + 3}" width="${round(xOf(bar.value) - left)}" height="${ROW_HEIGHT - 6}"/>`,
  );
  return frame(options, height, [...ticks, ...drawn]);
}
