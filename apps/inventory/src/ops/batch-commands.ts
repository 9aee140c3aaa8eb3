/**
 * `batch …`: receiving deliveries as batches, taking them off sale and back, recalls, certificates
 * and the orders a batch went to, through the same operations as the console, recorded in the
 * staff audit log under the operator's name.
 */
import fs from 'node:fs';
import { OPS_EXIT, OpsExit, requiredOption, withStore, type OpsCommand, type OpsOptions } from '@storefront/lifecycle';
import { opsActor } from '@storefront/staff-audit';
import type { Knex } from '@storefront/db';
import type { EnvReader } from '@storefront/config';
import { invalidArgument } from '@storefront/errors';
import { migrations } from '../migrations';
import { ReservationStore } from '../stores/reservations';
import { BatchStore, type BatchStateChange } from '../stores/batches';
import { parseUnits } from '../stores/stock-admin';
import type { Allocations } from '../stores/allocations';
import { CERTIFICATE_MAX_BYTES, checkTestDates, parsePurityPercent, type Batch } from '../domain/batch';
import { toBatchMessage } from '../batch-rpcs';

const withBatches = <T>(env: EnvReader, work: (batches: BatchStore, allocations: Allocations) => Promise<T>) =>
  withStore(env, 'inventory', migrations, (db: Knex) => {
    const reservations = new ReservationStore(db);
    return work(new BatchStore(db, reservations.stock), reservations.allocations);
  });

const NOTE = {
  note: { value: '<text>', description: 'why (at most 200 characters); recorded in the staff audit log' },
};
const noteOf = (options: OpsOptions) => (typeof options.note === 'string' ? options.note : '');

/** A certificate file's bytes; a file too large is refused before it is read. */
function readCertificate(file: string): Buffer {
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch {
    throw new OpsExit(OPS_EXIT.notFound, 'certificate_not_found', `certificate file ${file} not found`);
  }
  if (size > CERTIFICATE_MAX_BYTES) {
    throw invalidArgument(
      `certificate must be at most ${CERTIFICATE_MAX_BYTES} bytes (5 MiB), got ${size}`,
      'invalid_certificate',
    );
  }
  return fs.readFileSync(file);
}

export function describeBatch(batch: Batch): string {
  const purity =
    batch.purityHundredths === undefined ? 'purity unknown' : `purity ${(batch.purityHundredths / 100).toFixed(2)} %`;
  const analysis = batch.legacy
    ? 'counted before batches'
    : `tested ${batch.testedOn} by ${batch.laboratory}, retest ${batch.retestOn}${batch.pastRetest ? ' (past)' : ''}`;
  const certificate = batch.certificate ? `certificate sha256 ${batch.certificate.sha256}` : 'certificate on request';
  return `${batch.number} (${batch.sku}): ${batch.units} units, ${batch.state}, ${purity}, ${analysis}, ${certificate}`;
}

const stateCommand = (change: BatchStateChange, summary: string): OpsCommand => ({
  name: `batch ${change}`,
  args: ['<number>'],
  summary,
  options: NOTE,
  async run({ args: [number], options, env, actor }) {
    const batch = await withBatches(env, (batches) =>
      batches.changeState(change, number!, noteOf(options), opsActor(actor)),
    );
    return { text: describeBatch(batch), data: { batch: toBatchMessage(batch) } };
  },
});

export const batchCommands: OpsCommand[] = [
  {
    name: 'batch receive',
    args: ['<sku>'],
    summary: 'receive a delivery of a size as a new batch, with its analysis and certificate (PDF) if there is one',
    options: {
      number: { value: '<number>', description: 'the batch number: 1 to 40 of A-Z, 0-9, "-" and "/"' },
      units: { value: '<units>', description: 'units delivered, at least 1' },
      purity: { value: '<percent>', description: 'HPLC purity in percent, at most two decimals: 99.42' },
      tested: { value: '<yyyy-mm-dd>', description: 'the test date' },
      lab: { value: '<name>', description: 'the testing laboratory' },
      retest: { value: '<yyyy-mm-dd>', description: 'the retest (or expiry) date: the last day it is sold' },
      certificate: { value: '<file.pdf>', description: 'the certificate of analysis, a PDF of at most 5 MiB' },
      ...NOTE,
    },
    async run({ args: [sku], options, env, actor }) {
      const { testedOn, retestOn } = checkTestDates(
        requiredOption(options, 'tested'),
        requiredOption(options, 'retest'),
        {
          tested: '--tested',
          retest: '--retest',
        },
      );
      const receipt = {
        sku: sku!,
        number: requiredOption(options, 'number'),
        units: parseUnits(requiredOption(options, 'units'), '--units', { min: 1 }),
        purityHundredths: parsePurityPercent(requiredOption(options, 'purity')),
        testedOn,
        retestOn,
        laboratory: requiredOption(options, 'lab'),
        note: noteOf(options),
        ...(typeof options.certificate === 'string' ? { certificate: readCertificate(options.certificate) } : {}),
      };
      const batch = await withBatches(env, (batches) => batches.receive(receipt, opsActor(actor)));
      return { text: describeBatch(batch), data: { batch: toBatchMessage(batch) } };
    },
  },
  {
    name: 'batch list',
    args: ['<sku>'],
    summary: 'list the batches of a size in the order their units are sold (earliest retest first)',
    async run({ args: [sku], env }) {
      const list = await withBatches(env, (batches) => batches.list(sku!));
      return {
        text: list.map(describeBatch).join('\n') || `${sku} has no batches`,
        data: { batches: list.map(toBatchMessage) },
      };
    },
  },
  {
    name: 'batch show',
    args: ['<number>'],
    summary: 'show a batch: units, state, analysis and certificate',
    async run({ args: [number], env }) {
      const batch = await withBatches(env, (batches) => batches.get(number!));
      return { text: describeBatch(batch), data: { batch: toBatchMessage(batch) } };
    },
  },
  stateCommand('quarantine', 'take a batch off sale until it is released'),
  stateCommand('release', 'put a quarantined batch on sale again'),
  stateCommand('recall', 'take a batch off sale for good (list its orders with batch orders)'),
  {
    name: 'batch certificate',
    args: ['<number>', '<file.pdf>'],
    summary: "attach a batch's certificate of analysis (a PDF of at most 5 MiB), or replace the one it has",
    async run({ args: [number, file], env, actor }) {
      const pdf = readCertificate(file!);
      const batch = await withBatches(env, (batches) => batches.attachCertificate(number!, pdf, opsActor(actor)));
      return { text: describeBatch(batch), data: { batch: toBatchMessage(batch) } };
    },
  },
  {
    name: 'batch orders',
    args: ['<number>'],
    summary:
      'every order that was allocated units of a batch, oldest sale first ' +
      "(the platform's batch orders adds each order's e-mail)",
    async run({ args: [number], env }) {
      const orders = await withBatches(env, async (batches, allocations) => {
        const { number: stored } = await batches.get(number!);
        const all = [];
        for (let page = await allocations.ordersOfBatch(stored); ;) {
          all.push(...page.orders);
          const last = page.orders.at(-1);
          if (!page.more || !last) break;
          page = await allocations.ordersOfBatch(stored, { after: last });
        }
        return all;
      });
      const lines = orders.map(
        (order) =>
          `${order.orderReference}  ${new Date(order.soldAt).toISOString()}  ${order.units} units` +
          (order.returned ? ` (${order.returned} returned)` : ''),
      );
      return {
        text: lines.join('\n') || `no order was allocated units of ${number}`,
        data: { orders: orders.map((order) => ({ ...order, soldAt: new Date(order.soldAt).toISOString() })) },
      };
    },
  },
];
