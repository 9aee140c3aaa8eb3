/**
 * Inventory's ops commands (dist/ops.js in the image, see main.ts): migrations, catalog import, stock
 * counts and deliveries, removing a product. They work on inventory's own store only.
 */
import { auditExportCommand } from '@storefront/staff-audit';
import { OPS_EXIT, OpsExit, migrationCommands, withStore, type OpsCommand, type OpsProgram } from '@storefront/lifecycle';
import { runCatalogImport } from '../cli/import-catalog';
import { migrations } from '../migrations';
import { ReservationStore } from '../stores/reservations';
import { StockAdmin, parseUnits, type StockLevel } from '../stores/stock-admin';
import type { Knex } from '@storefront/db';
import type { EnvReader } from '@storefront/config';

const withAdmin = <T>(env: EnvReader, work: (admin: StockAdmin) => Promise<T>) =>
  withStore(env, 'inventory', migrations, (db: Knex) => work(new StockAdmin(db, new ReservationStore(db))));

const describeLevel = (level: StockLevel) => `${level.sku}: ${level.onHand} on hand, ${level.reserved} held by open orders, ${level.available} available`;

const commands: OpsCommand[] = [
  ...migrationCommands('inventory', migrations),
  auditExportCommand('inventory', migrations),
  {
    name: 'import',
    args: ['<catalog.json>'],
    summary: 'check a catalog file and upsert its products, sizes and prices in one transaction (live stock is kept)',
    async run({ args, rawEnv, progress }) {
      const lines: string[] = [];
      const errors: string[] = [];
      const code = await runCatalogImport(args, rawEnv, {
        info: (line) => {
          lines.push(line);
          progress(line);
        },
        error: (line) => errors.push(line),
      });
      if (code !== OPS_EXIT.ok) throw new OpsExit(code, 'import_failed', errors.join('\n'));
      return { text: lines.at(-1) ?? 'imported', data: { file: args[0], result: lines.at(-1) } };
    },
  },
  {
    name: 'set-stock',
    args: ['<sku>', '<units>'],
    summary: 'set the units on hand of a SKU (counted stock); a SKU that was unlimited becomes stock-limited',
    async run({ args: [sku, units], env }) {
      const level = await withAdmin(env, (admin) => admin.setStock(sku!, parseUnits(units!, 'units', { min: 0 })));
      return { text: describeLevel(level), data: { stock: level } };
    },
  },
  {
    name: 'restock',
    args: ['<sku>', '<+units>'],
    summary: 'add delivered units to a stock-limited SKU (atomic, safe while orders reserve)',
    async run({ args: [sku, units], env }) {
      const level = await withAdmin(env, (admin) => admin.restock(sku!, parseUnits(units!, 'units', { min: 1 })));
      return { text: describeLevel(level), data: { stock: level } };
    },
  },
  {
    name: 'remove-product',
    args: ['<product-id>'],
    summary: 'remove a product with its sizes and stock; refused while open orders hold any of its SKUs',
    async run({ args: [productId], env }) {
      const removed = await withAdmin(env, (admin) => admin.removeProduct(productId!));
      return { text: `removed ${removed.id} (${removed.skus.join(', ') || 'no sizes'})`, data: { removed } };
    },
  },
];

export const inventoryOps: OpsProgram = { app: 'inventory', commands };
