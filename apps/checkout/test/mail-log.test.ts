/**
 * Checkout's mail log over gRPC (decision 1305): any staff member reads an order's mails and the confirmation's text;
 * a call without a staff member, a customer's included, is refused.
 */
import { expect } from 'chai';
import type { StaffIdentity } from '@storefront/caller-token';
import { AppError } from '@storefront/errors';
import type { RpcClient } from '@storefront/grpc';
import { checkout } from '@storefront/proto';
import type { Stack } from '@storefront/platform-testing';
import { sku, startCheckoutStack } from './support';
import { OWNER, paidOrder } from './refund-support';

const STAFF: StaffIdentity = { ...OWNER, id: 'staff-1', role: 'staff', email: 'staff@shop.test' };

async function refusal(call: Promise<unknown>): Promise<AppError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error, 'the call was refused').to.be.instanceOf(AppError);
  return error as AppError;
}

describe('checkout: the mail log', () => {
  let stack: Stack;
  let rpc: RpcClient<typeof checkout.CheckoutServiceService>;
  before(async () => {
    stack = await startCheckoutStack();
    rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
    await stack
      .inventory!.db('stock')
      .where({ sku: sku('low') })
      .update({ on_hand: 1000 });
  });
  after(async () => {
    rpc?.close();
    await stack?.stop();
  });

  it("lists a placed order's confirmation to any staff member, and shows its text", async () => {
    const { reference } = await paidOrder(stack);
    for (const staff of [OWNER, STAFF]) {
      const { page } = await rpc.listMailLog(
        { query: { recipient: 'ADA@example.com', beforeQueuedAt: 0, beforeKey: '', limit: 0 } },
        { staff },
      );
      const confirmation = page!.mails.find((mail) => mail.key.endsWith(reference));
      expect(confirmation, staff.role).to.include({ recipient: 'ada@example.com', kind: 'order-confirmation' });
      const { mail } = await rpc.getMailForStaff({ key: confirmation!.key }, { staff });
      expect(mail!.bodyState).to.equal('kept');
      expect(mail!.text).to.contain(reference);
    }
  });

  it("refuses a call without a staff member, a customer's included", async () => {
    for (const options of [{}, { customer: 'account-1' }]) {
      const listed = await refusal(
        rpc.listMailLog({ query: { recipient: '', beforeQueuedAt: 0, beforeKey: '', limit: 0 } }, options),
      );
      expect(listed).to.deep.include({ kind: 'unauthenticated', code: 'staff_unauthorized' });
      const read = await refusal(rpc.getMailForStaff({ key: 'order-confirmation:x' }, options));
      expect(read).to.deep.include({ kind: 'unauthenticated', code: 'staff_unauthorized' });
    }
  });
});
