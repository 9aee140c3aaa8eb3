/**
 * Instruments for services: gauges read at scrape time (`registerGauge`), counters of events
 * (`registerCounter`), and the database connection pool of every store (`observeDbPool`).
 * Nothing runs between scrapes, and in a process without telemetry the global meter is a no-op,
 * so registering costs nothing there.
 */
import {
  metrics,
  type Attributes,
  type Counter,
  type Meter,
  type ObservableCallback,
  type ObservableGauge,
} from '@opentelemetry/api';

export const METER_NAME = 'storefront';

export interface GaugeOptions {
  description: string;
  unit?: string;
  meter?: Meter;
  /** Tells apart the series of several sources of one gauge in a process (e.g. each component's). */
  attributes?: Attributes;
}

const instrumentsByMeter = new WeakMap<Meter, Map<string, ObservableGauge | Counter>>();

/** One instrument per name and meter, however often a service starts in one process (tests run several). */
function instrumentNamed<T extends ObservableGauge | Counter>(meter: Meter, name: string, create: () => T): T {
  let instruments = instrumentsByMeter.get(meter);
  if (!instruments) instrumentsByMeter.set(meter, (instruments = new Map()));
  let instrument = instruments.get(name);
  if (!instrument) instruments.set(name, (instrument = create()));
  return instrument as T;
}

function gaugeNamed(meter: Meter, name: string, options: GaugeOptions): ObservableGauge {
  return instrumentNamed(meter, name, () =>
    meter.createObservableGauge(name, { description: options.description, unit: options.unit ?? '1' }),
  );
}

/**
 * A counter of events named `name`. Each attribute set of `initial` is reported at 0 from the
 * start, so a rate or an alert over it has a series before the first event.
 */
export function registerCounter(name: string, options: GaugeOptions & { initial?: Attributes[] }): Counter {
  const meter = options.meter ?? metrics.getMeter(METER_NAME);
  const counter = instrumentNamed(meter, name, () =>
    meter.createCounter(name, { description: options.description, unit: options.unit ?? '1' }),
  );
  for (const attributes of options.initial ?? []) counter.add(0, attributes);
  return counter;
}

/**
 * Reports `read()` as the gauge `name` at every scrape; returns the function that stops it,
 * to call when the thing being read (e.g. a database) closes.
 */
export function registerGauge(name: string, options: GaugeOptions, read: () => number | Promise<number>): () => void {
  const gauge = gaugeNamed(options.meter ?? metrics.getMeter(METER_NAME), name, options);
  const callback: ObservableCallback = async (result) => result.observe(await read(), options.attributes);
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}

/** The part of a knex instance whose tarn pool is observed; `pool` is unset once destroyed. */
export interface PooledDatabase {
  client: { pool?: { max: number; numUsed(): number; numFree(): number; numPendingAcquires(): number } | undefined };
}

interface ObservedPool {
  name: string;
  db: WeakRef<PooledDatabase>;
}

const poolsByMeter = new WeakMap<Meter, Set<ObservedPool>>();

/**
 * Reports the connection pool of `db` under `pool` (the service name) with the semantic
 * conventions' db.client.connection.* names. A destroyed or collected database drops out.
 */
export function observeDbPool(db: PooledDatabase, pool: string, meter: Meter = metrics.getMeter(METER_NAME)): void {
  let pools = poolsByMeter.get(meter);
  if (!pools) {
    pools = new Set();
    poolsByMeter.set(meter, pools);
    watchPools(meter, pools);
  }
  pools.add({ name: pool, db: new WeakRef(db) });
}

function watchPools(meter: Meter, pools: Set<ObservedPool>): void {
  const count = meter.createObservableUpDownCounter('db.client.connection.count', {
    description: 'Connections in the pool, by state.',
    unit: '{connection}',
  });
  const max = meter.createObservableUpDownCounter('db.client.connection.max', {
    description: 'Largest number of open connections allowed.',
    unit: '{connection}',
  });
  const pending = meter.createObservableUpDownCounter('db.client.connection.pending_requests', {
    description: 'Requests waiting for a connection.',
    unit: '{request}',
  });
  meter.addBatchObservableCallback(
    (observer) => {
      for (const entry of pools) {
        const current = entry.db.deref()?.client.pool;
        if (!current) {
          pools.delete(entry);
          continue;
        }
        const poolName = { 'db.client.connection.pool.name': entry.name };
        observer.observe(count, current.numUsed(), { ...poolName, 'db.client.connection.state': 'used' });
        observer.observe(count, current.numFree(), { ...poolName, 'db.client.connection.state': 'idle' });
        observer.observe(max, current.max, poolName);
        observer.observe(pending, current.numPendingAcquires(), poolName);
      }
    },
    [count, max, pending],
  );
}
