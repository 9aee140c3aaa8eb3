/**
 * The server-drawn bar chart: one bar per value in the series' order, lengths in the values' proportions against a
 * rounded axis top, labelled axes, an accessible name, and labels escaped like any text.
 */
import { expect } from 'chai';
import { barChart, niceCeiling } from '../../src/kit/bar-chart';
import { formatPence } from '../../src/kit/money';

const lengths = (svg: string, attribute: 'height' | 'width') =>
  [...svg.matchAll(new RegExp(`<rect class="bar"[^>]* ${attribute}="([\\d.]+)"`, 'g'))].map((match) =>
    Number(match[1]),
  );

describe('gateway kit: bar charts as inline SVG', () => {
  it('rounds the axis top up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect([0, 1, 7, 12, 180, 201, 2400, 42_495].map(niceCeiling)).to.deep.equal([
      1, 1, 10, 20, 200, 250, 2500, 50_000,
    ]);
  });

  it('draws one column per value, in proportion, named by its title, with the axis in the given format', () => {
    const series = Array.from({ length: 30 }, (_, index) => ({ label: `${index + 1} Oct`, value: index * 1000 }));
    const svg = barChart(series, {
      id: 'daily',
      title: 'Revenue per day',
      layout: 'columns',
      formatValue: formatPence,
    }).text;
    expect(svg).to.match(/^<svg class="chart" role="img" aria-labelledby="daily" viewBox="0 0 \d+ \d+"/);
    expect(svg).to.include('<title id="daily">Revenue per day</title>');
    const heights = lengths(svg, 'height');
    expect(heights).to.have.length(30);
    expect(heights[0]).to.equal(0);
    // Against an axis of 50,000: 20,000 stands twice as tall as 10,000.
    expect(heights[20]! / heights[10]!).to.be.closeTo(2, 0.01);
    for (const tick of ['£0.00', '£250.00', '£500.00']) expect(svg).to.include(`>${tick}</text>`);
    // A label under every fifth column counted back from the last, so the last is always named.
    expect(svg).to.include('>30 Oct</text>').and.include('>25 Oct</text>').and.not.include('>29 Oct</text>');
  });

  it('draws one row per value with its name, escaped and shortened, the full name left to the table', () => {
    const svg = barChart(
      [
        { label: 'Kit <b>& more', value: 300 },
        { label: 'A name far too long to stand beside a bar', value: 100 },
      ],
      { id: 'top', title: 'Top products', layout: 'rows', formatValue: String },
    ).text;
    expect(lengths(svg, 'width')).to.have.length(2);
    const [first, second] = lengths(svg, 'width');
    expect(first! / second!).to.be.closeTo(3, 0.01);
    expect(svg).to.include('>Kit &lt;b&gt;&amp; more</text>').and.not.include('<b>');
    expect(svg).to.include('>A name far too long…</text>');
  });

  it('draws an empty series as an empty plot, never dividing by zero', () => {
    const svg = barChart([{ label: 'none', value: 0 }], {
      id: 'empty',
      title: 'Nothing',
      layout: 'columns',
      formatValue: String,
    }).text;
    expect(svg).to.not.include('NaN');
    expect(lengths(svg, 'height')).to.deep.equal([0]);
  });
});
