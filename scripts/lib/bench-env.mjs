// The environment the benchmark starts the platform with (scripts/bench.mjs, and the Lighthouse
// measurement in scripts/lighthouse.mjs run on its own): demo data, no traces, and limits far
// above what a person would reach, on ports of their own per backend so that the two runs never
// meet. `portBase` moves every port (gateway at base + 80, sandbox + 90, services + 51…54).
const PORT_BASES = { sqlite: 18000, mysql: 28000 };

export const stackEnv = (dataDir, backend, portBase = PORT_BASES[backend]) => ({
  DATA_DIR: dataDir,
  // The embedded run must not pick up the MySQL/Redis servers meant for the second run.
  ...(backend === 'sqlite' ? { MYSQL_URL: '', REDIS_URL: '' } : { REDIS_URL: process.env.REDIS_URL }),
  PORT: String(portBase + 80),
  SANDBOX_PORT: String(portBase + 90),
  IDENTITY_ADDR: `127.0.0.1:${portBase + 51}`,
  LOYALTY_ADDR: `127.0.0.1:${portBase + 52}`,
  CHECKOUT_ADDR: `127.0.0.1:${portBase + 53}`,
  INVENTORY_ADDR: `127.0.0.1:${portBase + 54}`,
  PROMO_CHECKS_PER_ADDRESS_MAX: '1000000',
  PUBLIC_BASE_URL: `http://127.0.0.1:${portBase + 80}`,
  SANDBOX_PUBLIC_URL: `http://127.0.0.1:${portBase + 90}`,
  SUMUP_API_BASE: `http://127.0.0.1:${portBase + 90}`,
  SEED_DEMO_DATA: 'true',
  // Generous limits: the benchmark signs up, logs in and orders from one address far more than a person would.
  SIGNUPS_PER_ADDRESS_MAX: '100000',
  LOGIN_FAILURES_PER_ADDRESS_MAX: '100000',
  CHECKOUTS_PER_ADDRESS_MAX: '100000',
  CHECKOUTS_PER_ACCOUNT_MAX: '100000',
  OPEN_ORDERS_PER_ADDRESS_MAX: '10000',
  OPEN_ORDERS_PER_ACCOUNT_MAX: '10000',
  // Every new checkout counts as an order look-up too (decision 0856).
  ORDER_LOOKUPS_PER_ADDRESS_MAX: '1000000',
  OTEL_TRACES_EXPORTER: 'none',
  // Scenarios with many buyers name each one's address in X-Forwarded-For, as a load balancer would.
  TRUSTED_PROXIES: '127.0.0.1',
});
