/**
 * On MySQL a service does not migrate at start (deployments run `migrate` first). Started against
 * a database that is missing or behind, it must stop with one line that says what to run and the
 * configuration exit code, never a raw "Table … doesn't exist" from its first query.
 */
import { expect } from 'chai';
import { generateCallerKeyPair } from '@storefront/caller-token';
import { applyMigrations, ensureMysqlDatabase, openDatabase } from '@storefront/db';
import { migrations as inventoryMigrations } from '@storefront/inventory';
import { provisionStores, runApp, testServiceTokenEnv, type TestStores } from '@storefront/testing';

const SERVICES = ['identity', 'loyalty', 'checkout', 'inventory'] as const;
const CONFIGURATION_EXIT = 78;

describe('lifecycle: a service started on an unmigrated MySQL database', function () {
  this.timeout(90_000);
  let stores: TestStores;
  let serveEnv: Record<string, string>;
  before(async function () {
    stores = await provisionStores();
    // SQLite, the embedded default, migrates itself at start; only MySQL has a separate step.
    if (stores.backend !== 'mysql') this.skip();
    const keys = await generateCallerKeyPair();
    serveEnv = {
      ...testServiceTokenEnv(),
      CALLER_TOKEN_PUBLIC_KEY: keys.publicKeyPem,
      DATA_DIR: stores.dataDir,
      HOST: '127.0.0.1',
    };
  });
  after(async () => stores?.cleanup());

  function start(service: string) {
    return runApp(service, [], {
      ...serveEnv,
      ...testServiceTokenEnv(service as Parameters<typeof testServiceTokenEnv>[0]),
      [`${service.toUpperCase()}_MYSQL_URL`]: stores.mysqlUrlFor(service),
      [`${service.toUpperCase()}_ADDR`]: '127.0.0.1:0',
    });
  }

  /** Everything the process wrote to stderr, as lines, and how it ended. */
  async function refusal(service: string) {
    const app = start(service);
    try {
      const code = await app.exit(30_000);
      return { code, lines: app.stderr().split('\n').filter(Boolean), logs: app.logs, plainStdout: app.plainStdout };
    } finally {
      app.kill();
    }
  }

  it('stops every service whose database was never created with one line naming npm run migrate', async () => {
    const outcomes = await Promise.all(SERVICES.map(async (service) => ({ service, ...(await refusal(service)) })));
    for (const { service, code, lines, logs, plainStdout } of outcomes) {
      expect(code, `${service}: ${lines.join('\n')}`).to.equal(CONFIGURATION_EXIT);
      expect(lines, service).to.have.length(1);
      expect(lines[0]).to.match(
        new RegExp(
          `^${service}: the ${service} database is not migrated \\(\\d+ pending: .+\\); run \`npm run migrate\``,
        ),
      );
      expect(lines[0]).to.not.match(/doesn't exist|Unknown database/);
      expect(
        logs.map((line) => line.msg),
        service,
      ).to.not.include('fatal error');
      // Nor a driver's connection error printed past the logger.
      expect(plainStdout, service).to.deep.equal([]);
    }
  });

  it('names the migrations a partly migrated database misses, and serves once it is migrated', async () => {
    const url = stores.mysqlUrlFor('inventory')!;
    const names = Object.keys(inventoryMigrations).sort();
    await ensureMysqlDatabase(url);
    const db = openDatabase({ service: 'inventory', dataDir: stores.dataDir, mysqlUrl: url });
    try {
      await applyMigrations(db, { [names[0]!]: inventoryMigrations[names[0]!]! });
      const behind = await refusal('inventory');
      expect(behind.code).to.equal(CONFIGURATION_EXIT);
      expect(behind.lines).to.deep.equal([
        `inventory: the inventory database is not migrated (${names.length - 1} pending: ` +
          `${names.slice(1).join(', ')}); ` +
          "run `npm run migrate` (or the image's `migrate` command) against it first",
      ]);

      await applyMigrations(db, inventoryMigrations);
    } finally {
      await db.destroy();
    }
    const serving = start('inventory');
    try {
      await serving.logLine('inventory listening');
    } finally {
      serving.kill();
    }
  });
});
