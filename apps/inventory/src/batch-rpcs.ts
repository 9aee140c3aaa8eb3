/**
 * The batch RPCs: thin translations to the batch and allocation operations, acting as the staff
 * member the access table admitted where one is needed.
 */
import type { UnaryHandlers } from '@storefront/grpc';
import { invalidArgument } from '@storefront/errors';
import { inventory } from '@storefront/proto';
import { normalizeBatchNumber, type Batch } from './domain/batch';
import type { OrderAllocation } from './domain/allocation';
import { checkOrderReference } from './domain/lines';
import type { Allocations } from './stores/allocations';
import type { BatchStore } from './stores/batches';
import { staffOf } from './staff-catalog-rpcs';

type BatchRpcs = Pick<
  UnaryHandlers<typeof inventory.InventoryServiceService>,
  | 'listBatches'
  | 'getBatch'
  | 'getBatchCertificate'
  | 'receiveBatch'
  | 'quarantineBatch'
  | 'releaseBatch'
  | 'recallBatch'
  | 'attachBatchCertificate'
  | 'listBatchOrders'
  | 'getOrderAllocation'
  | 'moveOrderAllocation'
  | 'markOrderShipped'
>;

const iso = (ms: number) => new Date(ms).toISOString();

export function batchRpcs(batches: BatchStore, allocations: Allocations): BatchRpcs {
  return {
    listBatches: async ({ sku }) => ({ batches: (await batches.list(sku)).map(toBatchMessage) }),
    getBatch: async ({ number }) => ({ batch: toBatchMessage(await batches.get(number)) }),
    getBatchCertificate: async ({ number, knownSha256 }) => {
      const file = await batches.certificate(number, knownSha256);
      return {
        number: file.number,
        sha256: file.sha256,
        notModified: file.pdf === undefined,
        pdf: file.pdf ?? Buffer.alloc(0),
        attachedAt: iso(file.attachedAt),
      };
    },
    receiveBatch: async ({ certificatePdf, ...receipt }, context) => ({
      batch: toBatchMessage(
        await batches.receive(
          { ...receipt, ...(certificatePdf === undefined ? {} : { certificate: certificatePdf }) },
          staffOf(context),
        ),
      ),
    }),
    quarantineBatch: async ({ number, note }, context) => ({
      batch: toBatchMessage(await batches.changeState('quarantine', number, note, staffOf(context))),
    }),
    releaseBatch: async ({ number, note }, context) => ({
      batch: toBatchMessage(await batches.changeState('release', number, note, staffOf(context))),
    }),
    recallBatch: async ({ number, note }, context) => ({
      batch: toBatchMessage(await batches.changeState('recall', number, note, staffOf(context))),
    }),
    attachBatchCertificate: async ({ number, pdf }, context) => ({
      batch: toBatchMessage(await batches.attachCertificate(number, pdf, staffOf(context))),
    }),
    listBatchOrders: async ({ number, limit, afterSoldAt, afterOrderReference }) => {
      const after = afterSoldAt || afterOrderReference ? pageCursor(afterSoldAt, afterOrderReference) : undefined;
      const page = await allocations.ordersOfBatch(normalizeBatchNumber(number), {
        limit,
        ...(after ? { after } : {}),
      });
      return {
        orders: page.orders.map((order) => ({ ...order, soldAt: iso(order.soldAt) })),
        more: page.more,
      };
    },
    getOrderAllocation: async ({ orderReference }) => ({
      allocation: toAllocationMessage(await allocations.ofOrder(checkOrderReference(orderReference))),
    }),
    moveOrderAllocation: async ({ orderReference, sku, toBatch, fromBatch }, context) => ({
      allocation: toAllocationMessage(
        await allocations.move(
          { orderReference: checkOrderReference(orderReference), sku, toBatch, ...(fromBatch ? { fromBatch } : {}) },
          staffOf(context),
        ),
      ),
    }),
    markOrderShipped: async ({ orderReference }) => ({
      allocation: toAllocationMessage(await allocations.markShipped(checkOrderReference(orderReference))),
    }),
  };
}

/** The previous page's last order: both fields or neither. */
function pageCursor(soldAt: string, orderReference: string): { soldAt: number; orderReference: string } {
  const at = Date.parse(soldAt);
  if (!Number.isFinite(at) || !orderReference) {
    throw invalidArgument(
      'after_sold_at (RFC 3339) and after_order_reference name the last order of the previous page together',
    );
  }
  return { soldAt: at, orderReference };
}

export function toBatchMessage(batch: Batch): inventory.Batch {
  return {
    number: batch.number,
    sku: batch.sku,
    productName: batch.productName,
    size: batch.size,
    units: batch.units,
    ...(batch.purityHundredths === undefined ? {} : { purityHundredths: batch.purityHundredths }),
    testedOn: batch.testedOn ?? '',
    laboratory: batch.laboratory ?? '',
    retestOn: batch.retestOn ?? '',
    receivedAt: iso(batch.receivedAt),
    state: batch.state,
    pastRetest: batch.pastRetest,
    legacy: batch.legacy,
    ...(batch.certificate
      ? {
          certificate: {
            sha256: batch.certificate.sha256,
            sizeBytes: batch.certificate.sizeBytes,
            attachedAt: iso(batch.certificate.attachedAt),
          },
        }
      : {}),
  };
}

function toAllocationMessage(allocation: OrderAllocation): inventory.OrderAllocation {
  return {
    orderReference: allocation.orderReference,
    lines: allocation.lines,
    shippedAt: allocation.shippedAt === undefined ? '' : iso(allocation.shippedAt),
  };
}
