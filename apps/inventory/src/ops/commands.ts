/**
 * Inventory's ops commands (dist/ops.js in the image, see main.ts): migrations, catalog import, stock
 * counts and deliveries, unlimited sizes, low-stock thresholds, prices and price breaks, removing a product, and
 * batches (batch-commands.ts).
 * They work on inventory's own store only, through the same operations as the console, each
 * recorded in the staff audit log under the operator's name.
 */
import {
  OPS_EXIT,
  OpsExit,
  migrationCommands,
  wholeNumberOption,
  withStore,
  type OpsCommand,
  type OpsOptions,
  type OpsProgram,
} from '@storefront/lifecycle';
import { auditExportCommand, opsActor } from '@storefront/staff-audit';
import { runCatalogImport } from '../cli/import-catalog';
import { migrations } from '../migrations';
import { ReservationStore } from '../stores/reservations';
import { invalidArgument } from '@storefront/errors';
import { PRICE_PENCE_MAX, parsePriceBreakPairs, priceBreakPairs } from '@storefront/formats';
import { StockAdmin, parseUnits, type SkuStock } from '../stores/stock-admin';
import type { Knex } from '@storefront/db';
import type { EnvReader } from '@storefront/config';
import { batchCommands } from './batch-commands';
import { parseThreshold } from '../domain/low-stock';
import { LowStock } from '../stores/low-stock';

const withAdmin = <T>(env: EnvReader, work: (admin: StockAdmin) => Promise<T>) =>
  withStore(env, 'inventory', migrations, (db: Knex) => work(new StockAdmin(db, new ReservationStore(db))));

/** The `--json` answer's `stock`: a counted size's units, as before sizes could be unlimited here. */
const stockData = ({ sku, unlimited, onHand, reserved, available }: SkuStock) =>
  unlimited ? { sku, unlimited } : { sku, onHand, reserved, available };

const describeLevel = (level: SkuStock) =>
  level.unlimited
    ? `${level.sku}: not counted, always available`
    : `${level.sku}: ${level.onHand} on hand, ${level.reserved} held by open orders, ${level.available} available`;

/** `--note <text>` as given, or `fallback`; a bare `--note` is no note. */
const noteOption = (options: OpsOptions, fallback = '') => (typeof options.note === 'string' ? options.note : fallback);
const NOTE = {
  note: {
    value: '<text>',
    description: 'why, or which delivery (at most 200 characters); recorded in the staff audit log',
  },
};

const commands: OpsCommand[] = [
  ...migrationCommands('inventory', migrations),
  auditExportCommand('inventory', migrations),
  {
    name: 'import',
    args: ['<catalog.json>'],
    summary: 'check a catalog file and upsert its products, sizes and prices in one transaction (live stock is kept)',
    async run({ args, rawEnv, progress, actor }) {
      const lines: string[] = [];
      const errors: string[] = [];
      const code = await runCatalogImport(
        args,
        rawEnv,
        {
          info: (line) => {
            lines.push(line);
            progress(line);
          },
          error: (line) => errors.push(line),
        },
        opsActor(actor),
      );
      if (code !== OPS_EXIT.ok) throw new OpsExit(code, 'import_failed', errors.join('\n'));
      return { text: lines.at(-1) ?? 'imported', data: { file: args[0], result: lines.at(-1) } };
    },
  },
  {
    name: 'set-stock',
    args: ['<sku>', '<units>'],
    summary: 'set the units on hand of a SKU (counted stock); a SKU that was unlimited becomes stock-limited',
    options: NOTE,
    async run({ args: [sku, units], options, env, actor }) {
      const level = await withAdmin(env, (admin) =>
        admin.setStock(sku!, parseUnits(units!, 'units', { min: 0 }), opsActor(actor), noteOption(options)),
      );
      return { text: describeLevel(level), data: { stock: stockData(level) } };
    },
  },
  {
    name: 'restock',
    args: ['<sku>', '<+units>'],
    summary: 'add delivered units to a stock-limited SKU (atomic, safe while orders reserve)',
    options: {
      note: {
        value: '<text>',
        description: 'the delivery, e.g. supplier and note number (at most 200 characters; default "delivery")',
      },
    },
    async run({ args: [sku, units], options, env, actor }) {
      const level = await withAdmin(env, (admin) =>
        admin.restock(sku!, parseUnits(units!, 'units', { min: 1 }), opsActor(actor), noteOption(options, 'delivery')),
      );
      return { text: describeLevel(level), data: { stock: stockData(level) } };
    },
  },
  {
    name: 'set-unlimited',
    args: ['<sku>'],
    summary:
      'stop counting the units of a SKU: always available (set-stock counts again); refused while open orders hold it',
    options: NOTE,
    async run({ args: [sku], options, env, actor }) {
      const level = await withAdmin(env, (admin) => admin.setUnlimited(sku!, opsActor(actor), noteOption(options)));
      return { text: describeLevel(level), data: { stock: stockData(level) } };
    },
  },
  {
    name: 'low-stock',
    args: ['<sku>', '<units|off>'],
    summary:
      'mail the owners (LOW_STOCK_MAIL_TO) when an order takes the size below this many units available; off: never',
    async run({ args: [sku, units], env, actor }) {
      const threshold = units === 'off' ? undefined : parseThreshold(units!);
      await withStore(env, 'inventory', migrations, (db: Knex) =>
        new LowStock(db, undefined, Date.now).setThreshold(sku!, threshold, opsActor(actor)),
      );
      return {
        text:
          threshold === undefined
            ? `${sku}: no low-stock mail`
            : `${sku}: the owners are mailed when fewer than ${threshold} are available`,
        data: { lowStock: { sku, threshold: threshold ?? null } },
      };
    },
  },
  {
    name: 'set-price',
    args: ['<sku>', '<pence>'],
    summary: 'set the unit price of a SKU in whole pence (orders already placed keep theirs)',
    async run({ args: [sku, pence], env, actor }) {
      const pricePence = wholeNumberOption(pence!, 'pence', { min: 1, max: PRICE_PENCE_MAX, code: 'invalid_price' });
      const level = await withAdmin(env, (admin) => admin.setPrice(sku!, pricePence, opsActor(actor)));
      return {
        text: `${level.sku}: ${level.pricePence} pence`,
        data: { price: { sku: level.sku, pricePence: level.pricePence } },
      };
    },
  },
  {
    name: 'set-price-breaks',
    args: ['<sku>', '<units:percent,…|none>'],
    summary: 'replace the quantity price breaks of a SKU, e.g. 3:5,5:10 (3+ at 5 % off, 5+ at 10 %); none removes them',
    async run({ args: [sku, text], env, actor }) {
      const breaks = text === 'none' ? [] : parsePriceBreakPairs(text!);
      if (!breaks)
        throw invalidArgument(
          'breaks must be units:percent pairs separated by commas, such as 3:5,5:10, or none',
          'invalid_price_breaks',
        );
      const level = await withAdmin(env, (admin) => admin.setPriceBreaks(sku!, breaks, opsActor(actor)));
      return {
        text: `${level.sku}: ${priceBreakPairs(level.priceBreaks) || 'no price breaks'}`,
        data: { priceBreaks: { sku: level.sku, priceBreaks: level.priceBreaks } },
      };
    },
  },
  {
    name: 'remove-product',
    args: ['<product-id>'],
    summary: 'remove a product with its sizes and stock; refused while open orders hold any of its SKUs',
    async run({ args: [productId], env, actor }) {
      const removed = await withAdmin(env, (admin) => admin.removeProduct(productId!, opsActor(actor)));
      return { text: `removed ${removed.id} (${removed.skus.join(', ') || 'no sizes'})`, data: { removed } };
    },
  },
  ...batchCommands,
];

export const inventoryOps: OpsProgram = { app: 'inventory', commands };
