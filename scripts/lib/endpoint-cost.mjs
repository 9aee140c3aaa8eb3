// What one request of an endpoint costs, on a stack of one or more replicas: every gateway replica
// is loaded at once (one autocannon instance each, the connections split between them, results
// summed), and the CPU time of every app process, of the MySQL and Redis servers on this machine
// and of this load generator is read before and after the window and divided by the requests
// served. MySQL statements and Redis commands per request come from the servers' own counters,
// which are server-wide, like the servers' CPU: other clients of the same servers during the
// window are counted too, and the result says whether any were connected. Rows added per request
// are counted exactly, in the benchmark's own databases.
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { cpuUsedDuring, processesNamed } from './process-cpu.mjs';

const SERVER_GROUPS = { mariadbd: 'mysql', mysqld: 'mysql', 'redis-server': 'redis' };
export const COST_COLUMNS = [
  'gateway',
  'identity',
  'loyalty',
  'checkout',
  'inventory',
  'payment-sandbox',
  'mysql',
  'redis',
];
const LOAD_GENERATOR = 'load generator';

/**
 * @param {object} options
 * @param {{ gatewayUrls: string[], processes: { app: string, child: { pid: number } }[] }} options.stack
 * @param {string} options.path  e.g. /api/stock
 * @param {object} [options.request]  autocannon options: method, headers, body, requests …
 * @param {number} options.durationS
 * @param {number} options.connections  in total, split over the gateways
 * @param {{ mysqlUrl: string, redisUrl: string, databasePattern: string }} options.servers
 *   databasePattern: LIKE pattern of the stack's databases
 */
export async function endpointCost({ stack, path, request = {}, durationS, connections, servers }) {
  const perGateway = Math.max(1, Math.round(connections / stack.gatewayUrls.length));
  const loadAll = (duration) =>
    Promise.all(
      stack.gatewayUrls.map((url) =>
        autocannon({ url: `${url}${path}`, connections: perGateway, duration, ...request }),
      ),
    );
  await loadAll(1); // warm-up: connections, JIT, caches

  const groups = [
    ...stack.processes.map(({ app, child }) => ({ group: app, pid: child.pid })),
    ...processesNamed(Object.keys(SERVER_GROUPS)).map(({ name, pid }) => ({ group: SERVER_GROUPS[name], pid })),
    { group: LOAD_GENERATOR, pid: process.pid },
  ];
  const countersBefore = await serverCounters(servers);
  const started = performance.now();
  const { usedMs, outcome: results } = await cpuUsedDuring(groups, () => loadAll(durationS));
  const wallMs = performance.now() - started;
  const countersAfter = await serverCounters(servers);

  const served = sum(results.map((r) => r['2xx']));
  const perRequest = (value) => (served > 0 ? +(value / served).toFixed(3) : NaN);
  const cpuMsPerRequest = Object.fromEntries(Object.entries(usedMs).map(([group, ms]) => [group, perRequest(ms)]));
  const appCpuMs = sum(
    stack.processes
      .map(({ app }) => app)
      .filter(unique)
      .map((app) => usedMs[app]),
  );
  return {
    gateways: stack.gatewayUrls.length,
    connections: perGateway * stack.gatewayUrls.length,
    rps: Math.round(served / (wallMs / 1000)),
    // Percentiles of two instances cannot be merged exactly: the worse instance's are kept.
    p50_ms: Math.max(...results.map((r) => r.latency.p50)),
    p99_ms: Math.max(...results.map((r) => r.latency.p99)),
    served,
    non2xx: sum(results.map((r) => r.non2xx)),
    errors: sum(results.map((r) => r.errors + r.timeouts)),
    cpuMsPerRequest,
    appsCpuMsPerRequest: perRequest(appCpuMs),
    appCoresBusy: +(appCpuMs / wallMs).toFixed(2),
    mysqlStatementsPerRequest: perRequest(countersAfter.statements - countersBefore.statements),
    rowsAddedPerRequest: perRequest(countersAfter.rows - countersBefore.rows),
    redisCommandsPerRequest: perRequest(countersAfter.redisCommands - countersBefore.redisCommands),
    // Other clients on the MySQL server make its CPU, statements and Redis figures upper bounds.
    otherMysqlClients: Math.max(countersBefore.otherMysqlClients, countersAfter.otherMysqlClients),
  };
}

/**
 * MySQL statements and Redis commands (server-wide), rows in the benchmark's own databases
 * (`databasePattern`, a LIKE pattern), and how many MySQL connections belong to anyone else.
 */
async function serverCounters({ mysqlUrl, redisUrl, databasePattern }) {
  const { default: knex } = await import('knex');
  const db = knex({ client: 'mysql2', connection: { uri: mysqlUrl }, pool: { min: 0, max: 1 } });
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    const [[questions]] = await db.raw("SHOW GLOBAL STATUS LIKE 'Questions'");
    const [tables] = await db.raw(
      "SELECT table_schema AS db, table_name AS name FROM information_schema.tables WHERE table_schema LIKE ? AND table_type = 'BASE TABLE'",
      [databasePattern],
    );
    let rows = 0;
    for (const table of tables)
      rows += Number((await db.raw('SELECT COUNT(*) AS n FROM ??.??', [table.db, table.name]))[0][0].n);
    const [[others]] = await db.raw(
      'SELECT COUNT(*) AS n FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND (db ' +
        'IS NULL OR db NOT LIKE ?)',
      [databasePattern],
    );
    await redis.connect();
    const commands = Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))?.[1]);
    return { statements: Number(questions.Value), rows, otherMysqlClients: Number(others.n), redisCommands: commands };
  } finally {
    await db.destroy();
    redis.disconnect();
  }
}

/** One line per measurement: throughput, then CPU ms per request of each process group. */
export function printCostTable(rows) {
  const cell = (value, width) => String(Number.isNaN(value) || value === undefined ? '–' : value).padStart(width);
  const header = [
    'replicas',
    'endpoint'.padEnd(20),
    '  req/s',
    'p99 ms',
    ...COST_COLUMNS.map((c) => c.replace('payment-', '').padStart(9)),
    '     apps',
    ' load gen',
    'cores',
    ' SQL/req',
    'rows/req',
    'redis/req',
    'others',
  ];
  console.log(
    'CPU ms per request, by process (summed over replicas); SQL/req and redis/req server-wide, ' +
      "rows/req: rows added to the stack's databases; others: MySQL connections not the stack's",
  );
  console.log(header.join(' '));
  for (const { replicas, endpoint, cost } of rows) {
    console.log(
      [
        cell(replicas, 8),
        endpoint.padEnd(20),
        cell(cost.rps, 7),
        cell(cost.p99_ms, 6),
        ...COST_COLUMNS.map((c) => cell(cost.cpuMsPerRequest[c], 9)),
        cell(cost.appsCpuMsPerRequest, 9),
        cell(cost.cpuMsPerRequest[LOAD_GENERATOR], 9),
        cell(cost.appCoresBusy, 5),
        cell(cost.mysqlStatementsPerRequest, 8),
        cell(cost.rowsAddedPerRequest, 8),
        cell(cost.redisCommandsPerRequest, 9),
        cell(cost.otherMysqlClients, 6),
      ].join(' ') + (cost.non2xx || cost.errors ? `   non-2xx ${cost.non2xx}, errors ${cost.errors}` : ''),
    );
  }
}

const sum = (values) => values.reduce((a, b) => a + b, 0);
const unique = (value, index, all) => all.indexOf(value) === index;
