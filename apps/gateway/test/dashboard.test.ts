/**
 * The Grafana dashboard and the example alert rules under deploy/ must only ask for metrics the
 * apps export: both files are parsed, every metric name in their PromQL is taken out, and each
 * must be a family that the whole platform, started with telemetry and scraped on its admin port,
 * actually serves. A renamed metric fails here instead of leaving an empty panel or a silent alert.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { HttpClient } from '@storefront/testing';
import { startTracedStack, type TracedStack } from './support/traced-stack';

const DEPLOY = path.resolve(__dirname, '..', '..', '..', 'deploy');
const DASHBOARD = path.join(DEPLOY, 'grafana', 'storefront.json');
const ALERTS = path.join(DEPLOY, 'prometheus', 'alerts.yaml');

const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression selects: what is left once strings, matchers, ranges, groupings, functions and
 * numbers are gone.
 */
function metricNamesIn(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  const names = [...bare.matchAll(/(?<![\w.:])([A-Za-z_:][\w:]*)(?![\w:])(?!\s*\()/g)].map((match) => match[1]!);
  return [...new Set(names.filter((name) => !PROMQL_WORDS.has(name.toLowerCase())))];
}

/** Every series name the scrape can hold: each family, and a histogram's _bucket, _count and _sum. */
function seriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name!);
    if (type === 'histogram' || type === 'summary')
      for (const suffix of ['_bucket', '_count', '_sum']) names.add(`${name}${suffix}`);
  }
  return names;
}

interface Panel {
  title?: string;
  panels?: Panel[];
  targets?: Array<{ expr?: string }>;
}

function dashboardExpressions(): Array<{ where: string; expr: string }> {
  const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as { panels: Panel[] };
  const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);
  return panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ where: `panel "${panel.title}"`, expr: target.expr ?? '' })),
  );
}

function alertExpressions(): Array<{ where: string; expr: string }> {
  const rules = parseYaml(fs.readFileSync(ALERTS, 'utf8')) as {
    groups: Array<{ rules: Array<{ alert: string; expr: string; for?: string }> }>;
  };
  return rules.groups.flatMap((group) =>
    group.rules.map((rule) => ({ where: `alert ${rule.alert}`, expr: String(rule.expr) })),
  );
}

describe('deploy: the dashboard and alert rules read only exported metrics', function () {
  this.timeout(60_000);
  let stack: TracedStack;
  let exported: Set<string>;
  before(async () => {
    stack = await startTracedStack({});
    // A request through the gateway to a service, so the HTTP and RPC histograms have series.
    expect((await new HttpClient(stack.gatewayUrl).get('/api/stock')).status).to.equal(200);
    exported = seriesNames(await (await fetch(stack.metricsUrl)).text());
  });
  after(async () => stack?.stop());

  it('takes metric names out of PromQL and nothing else', () => {
    expect(
      metricNamesIn(
        'sum by (le, http_route) ' +
          '(rate(http_server_request_duration_seconds_bucket{job=~"$job",code="5.."}[$__rate_interval])) / ' +
          'ignoring(x) max(up) > 0.5',
      ),
    ).to.deep.equal(['http_server_request_duration_seconds_bucket', 'up']);
    expect(metricNamesIn('histogram_quantile(0.99, rate(a_b[5m])) * 60')).to.deep.equal(['a_b']);
  });

  it('parses both files, and every expression names at least one metric', () => {
    const expressions = [...dashboardExpressions(), ...alertExpressions()];
    expect(dashboardExpressions()).to.have.length.greaterThan(10);
    expect(alertExpressions().map(({ where }) => where)).to.include.members([
      'alert StorefrontHttpErrorRatioHigh',
      'alert StorefrontRpcLatencyP99High',
      'alert StorefrontReconcilerLagging',
      'alert StorefrontPaymentProviderFailing',
    ]);
    for (const { where, expr } of expressions) expect(metricNamesIn(expr), `${where}: ${expr}`).to.not.be.empty;
  });

  it('references only metrics the apps export', () => {
    const missing = [...dashboardExpressions(), ...alertExpressions()].flatMap(({ where, expr }) =>
      metricNamesIn(expr)
        .filter((name) => !exported.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(missing).to.deep.equal([]);
  });

  it('shows RED per route and per RPC, reservations, payments confirmed, reconciler lag and provider failures', () => {
    const shown = new Set(dashboardExpressions().flatMap(({ expr }) => metricNamesIn(expr)));
    expect([...shown]).to.include.members([
      'http_server_request_duration_seconds_count',
      'http_server_request_duration_seconds_bucket',
      'rpc_server_call_duration_seconds_count',
      'rpc_server_call_duration_seconds_bucket',
      'storefront_inventory_reservations_active',
      'storefront_checkout_payments_confirmed_total',
      'storefront_checkout_reconciler_lag_seconds',
      'storefront_checkout_provider_failures_total',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
    ]);
  });
});
