/**
 * `batch orders <number> [--csv]`: a batch's recall list — every order that shipped units of it, with its date, units
 * and contact e-mail — as the console shows it and, with --csv, the very CSV the console exports (decision 1280).
 * Inventory holds the allocations and checkout the e-mails, so the list is the gateway's workflow across both: this
 * command opens the components this configuration hosts, reaches the rest over gRPC as the gateway does, and reads
 * the list as the operator, an owner.
 */
import { batchOrdersCsv, batchRecallList, closeServiceClients, createServiceClients } from '@storefront/gateway';
import type { OpsCommand } from '@storefront/lifecycle';
import { createLogger } from '@storefront/logging';
import { opsActor } from '@storefront/staff-audit';
import { readPlatformConfig } from '../config';
import { openComponents } from '../platform';

export const batchOrdersCommand: OpsCommand = {
  name: 'batch orders',
  args: ['<number>'],
  summary: 'every order that shipped units of a batch, with its date, units and contact e-mail (the recall list)',
  options: { csv: { description: 'print the list as the CSV the console exports' } },
  async run({ args: [asked], options, env, actor }) {
    const config = readPlatformConfig(env);
    // Logs go to stderr: stdout carries only the answer.
    const logger = createLogger('platform', config.logLevel, process.stderr);
    const { components, close } = await openComponents(config, { migrate: false, logger });
    try {
      const clients = await createServiceClients(config.gateway, components);
      try {
        const staff = opsActor(actor);
        const { batch } = await clients.inventory.getBatch({ number: asked! });
        const orders = await batchRecallList(clients, staff, batch!.number);
        const csv = batchOrdersCsv(orders);
        const lines = orders.map(
          (order) =>
            `${order.reference}  ${order.soldAt}  ${order.units} units` +
            (order.returned ? ` (${order.returned} returned)` : '') +
            `  ${order.email || 'e-mail not known'}`,
        );
        return {
          // The CSV's last CRLF is completed by the newline every answer ends with, so stdout is the file exactly.
          text: options.csv ? csv.slice(0, -1) : lines.join('\n') || `no order shipped units of ${batch!.number}`,
          data: { batch: batch!.number, orders, ...(options.csv ? { csv } : {}) },
        };
      } finally {
        closeServiceClients(clients);
      }
    } finally {
      await close();
    }
  },
};
