/**
 * `npm run catalog:import -- <file>` (inventory's ops command `import`): checks a catalog file and upserts it into the
 * inventory store the usual configuration names (DATA_DIR for SQLite, INVENTORY_MYSQL_URL or MYSQL_URL for MySQL).
 * Every problem is listed with its JSON path and nothing is written unless the whole file is valid; the write itself is
 * one transaction, recorded in the staff audit log as `actor`'s.
 */
import fs from 'node:fs';
import { ConfigError, EnvReader, readCommon, type Env } from '@storefront/config';
import { applyMigrations, ensureMysqlDatabase, openDatabase, readStoreConfig, type StoreConfig } from '@storefront/db';
import { checkCatalogFile } from '../catalog-file';
import { migrations } from '../migrations';
import { InventoryStore } from '../stores/catalog';
import { CatalogImporter } from '../domain/catalog-import';
import type { StaffIdentity } from '@storefront/caller-token';

export interface ImportOutput {
  info(line: string): void;
  error(line: string): void;
}

// sysexits(3) codes, so scripts can tell a bad file from a bad setup.
export const EXIT = { ok: 0, failed: 1, usage: 64, badData: 65, noInput: 66, config: 78 } as const;

const USAGE = 'usage: npm run catalog:import -- <catalog.json>';

export async function runCatalogImport(
  args: readonly string[],
  env: Env,
  out: ImportOutput,
  actor: StaffIdentity,
): Promise<number> {
  if (args.length !== 1 || args[0]!.startsWith('-')) {
    out.error(USAGE);
    return EXIT.usage;
  }
  const file = args[0]!;

  let storeConfig: StoreConfig;
  try {
    const reader = new EnvReader(env);
    storeConfig = readStoreConfig(reader, 'inventory', readCommon(reader));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    out.error(`configuration error: ${error.message}`);
    return EXIT.config;
  }

  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    out.error(
      `cannot read ${file}: ` +
        `${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
    return EXIT.noInput;
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    out.error(`${file} is not valid JSON (${(error as Error).message}); nothing was imported`);
    return EXIT.badData;
  }
  const { catalog, problems } = checkCatalogFile(input);
  if (!catalog) {
    out.error(`${file} has ${problems.length} problem${problems.length === 1 ? '' : 's'}; nothing was imported:`);
    for (const problem of problems) out.error(`  - ${problem}`);
    return EXIT.badData;
  }

  const sizes = catalog.products.reduce((sum, product) => sum + product.sizes.length, 0);
  out.info(`${file}: ${catalog.products.length} products with ${sizes} sizes are valid; importing`);
  if (storeConfig.mysqlUrl) await ensureMysqlDatabase(storeConfig.mysqlUrl);
  const db = openDatabase(storeConfig);
  try {
    await applyMigrations(db, migrations);
    // Previewed and applied at once: the digest only stops a change made in between.
    const importer = new CatalogImporter(new InventoryStore(db));
    const { digest } = await importer.preview(catalog);
    await importer.apply(catalog, digest, actor, (done, total) => {
      if (done < total) out.info(`  ${done}/${total} products written`);
    });
  } catch (error) {
    out.error(`import failed and was rolled back, nothing was changed: ${(error as Error).message}`);
    return EXIT.failed;
  } finally {
    await db.destroy();
  }
  out.info(
    `imported ${catalog.products.length} products with ${sizes} sizes; stock of SKUs already in the ` +
      'store was left as it is',
  );
  return EXIT.ok;
}
