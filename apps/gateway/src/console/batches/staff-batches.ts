/**
 * Batches as the console's staff read and change them, shared by the admin API and the console pages: one call to
 * inventory each, acting for the staff member (inventory lets only owners receive and change batches, checks every
 * field before it writes anything, and records each change in its audit log).
 */
import { CERTIFICATE_MAX_BYTES } from '@storefront/formats';
import { invalidArgument } from '@storefront/errors';
import type { inventory } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import { batchRecallList, type BatchOrderView } from '../../application/batch-recall';
import type { StaffCaller } from '../../kit/staff-session';
import type { AdminBatchView } from './schemas';

export type BatchStateChange = 'quarantine' | 'release';

export interface BatchReceipt {
  sku: string;
  number: string;
  units: number;
  purityHundredths: number;
  testedOn: string;
  laboratory: string;
  retestOn: string;
  note: string;
  certificate?: Buffer;
}

export function batchView(batch: inventory.Batch): AdminBatchView {
  return {
    number: batch.number,
    sku: batch.sku,
    productName: batch.productName,
    size: batch.size,
    units: batch.units,
    ...(batch.purityHundredths === undefined ? {} : { purityHundredths: batch.purityHundredths }),
    testedOn: batch.testedOn,
    laboratory: batch.laboratory,
    retestOn: batch.retestOn,
    receivedAt: batch.receivedAt,
    state: batch.state as AdminBatchView['state'],
    pastRetest: batch.pastRetest,
    legacy: batch.legacy,
    ...(batch.certificate ? { certificate: { ...batch.certificate } } : {}),
  };
}

/** A purity typed as a percentage with at most two decimals ("99.42") in hundredths, exactly. */
export function purityHundredths(text: string): number {
  const match = /^\s*(\d{1,3})(?:\.(\d{1,2}))?\s*%?\s*$/.exec(text);
  const hundredths = match ? Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0')) : NaN;
  if (!(hundredths <= 10_000))
    throw invalidArgument(
      `Purity must be a percentage from 0 to 100 with at most two decimals, such as 99.42; got "${text}".`,
      'invalid_purity',
    );
  return hundredths;
}

/** A purity in hundredths as the console writes it: "99.42 %". */
export const purityText = (hundredths: number | undefined) =>
  hundredths === undefined ? 'Unknown' : `${(hundredths / 100).toFixed(2)} %`;

export class StaffBatches {
  constructor(private readonly context: Pick<GatewayContext, 'clients'>) {}

  private get inventory() {
    return this.context.clients.inventory;
  }

  async ofSize(staff: StaffCaller, sku: string): Promise<AdminBatchView[]> {
    return (await this.inventory.listBatches({ sku }, { staff })).batches.map(batchView);
  }

  /** A certificate too large is refused here, before it travels; inventory checks it is a PDF. */
  async receive(staff: StaffCaller, { certificate, ...receipt }: BatchReceipt): Promise<AdminBatchView> {
    if (certificate && certificate.length > CERTIFICATE_MAX_BYTES)
      throw invalidArgument(
        'The certificate must be a PDF of at most 5 MB; this file is ' +
          `${(certificate.length / 1024 / 1024).toFixed(1)} MB.`,
        'invalid_certificate',
      );
    const { batch } = await this.inventory.receiveBatch(
      { ...receipt, ...(certificate ? { certificatePdf: certificate } : {}) },
      { staff },
    );
    return batchView(batch!);
  }

  async get(number: string): Promise<AdminBatchView> {
    return batchView((await this.inventory.getBatch({ number })).batch!);
  }

  async recall(staff: StaffCaller, number: string, note: string): Promise<AdminBatchView> {
    return batchView((await this.inventory.recallBatch({ number, note }, { staff })).batch!);
  }

  /** The batch's recall list: every order that shipped units of it, with its contact e-mail. */
  orders(staff: StaffCaller, number: string): Promise<BatchOrderView[]> {
    return batchRecallList(this.context.clients, staff, number);
  }

  /** Mails each order's customer the recall notice, once per order (checkout keeps which were sent). */
  async sendRecallNotices(
    staff: StaffCaller,
    number: string,
    reason: string,
  ): Promise<{ queued: string[]; alreadySent: string[] }> {
    const batch = await this.get(number);
    const orders = await this.orders(staff, batch.number);
    if (orders.length === 0) return { queued: [], alreadySent: [] };
    const { queued, alreadySent } = await this.context.clients.checkout.sendRecallNotices(
      { batchNumber: batch.number, orderReferences: orders.map((order) => order.reference), reason },
      { staff },
    );
    return { queued, alreadySent };
  }

  async change(staff: StaffCaller, change: BatchStateChange, number: string, note: string): Promise<AdminBatchView> {
    const { batch } =
      change === 'quarantine'
        ? await this.inventory.quarantineBatch({ number, note }, { staff })
        : await this.inventory.releaseBatch({ number, note }, { staff });
    return batchView(batch!);
  }
}
