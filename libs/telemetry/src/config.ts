import type { EnvReader } from '@storefront/config';

import metricsPorts from './metrics-ports.json';

/**
 * One admin port per app, so the whole platform can run on one machine without clashes. The
 * table is JSON so that `npm start` can give extra replicas ports of their own from it.
 */
export const DEFAULT_METRICS_PORTS: Readonly<Record<string, number>> = metricsPorts;

export interface MetricsConfig {
  port: number;
  host: string;
}

/** METRICS_PORT (0 turns metrics off) and METRICS_HOST; undefined when metrics are off. */
export function readMetricsConfig(app: string, env: EnvReader): MetricsConfig | undefined {
  const port = env.int('METRICS_PORT', DEFAULT_METRICS_PORTS[app] ?? 9464, { min: 0, max: 65535 });
  const host = env.string('METRICS_HOST', '127.0.0.1');
  return port === 0 ? undefined : { port, host };
}
