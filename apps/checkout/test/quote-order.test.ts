/**
 * QuoteOrder: what create-checkout would charge, by the same pricing, saving and holding nothing.
 * A code that does not apply is reported and left out; a code counts as a promo check.
 */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import type { RpcClient } from '@storefront/grpc';
import { checkout } from '@storefront/proto';
import type { Stack } from '@storefront/platform-testing';
import {
  checkoutBody,
  countRows,
  expectCheckout,
  newClientAddress,
  redeemReward,
  signUp,
  sku,
  startCheckoutStack,
} from './support';

describe('checkout: QuoteOrder', () => {
  let stack: Stack;
  let rpc: RpcClient<typeof checkout.CheckoutServiceService>;
  before(async () => {
    stack = await startCheckoutStack({ PROMO_CHECKS_PER_ADDRESS_MAX: '3' });
    rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
  });
  after(async () => {
    rpc?.close();
    await stack?.stop();
  });

  const quote = (
    items: Array<{ sku: string; quantity: number }>,
    promoCode?: string,
    clientAddress = newClientAddress(),
    customer?: string,
  ) => rpc.quoteOrder({ items, promoCode, clientAddress }, { customer });

  it('prices the lines as create-checkout charges them, naming each product and size', async () => {
    const items = [
      { sku: sku('p8333'), quantity: 1 },
      { sku: 'ghk-cu-50mg', quantity: 2 },
    ];
    const quoted = await quote(items, 'welcome10');
    expect(quoted).to.deep.include({
      goodsPence: 8333 + 3998,
      discountPence: 1233,
      shippingPence: 0,
      totalPence: 11098,
      promoCode: 'WELCOME10',
      promoRefusal: '',
    });
    expect(quoted.lines).to.deep.equal([
      {
        sku: sku('p8333'),
        quantity: 1,
        unitPricePence: 8333,
        productName: 'Pricing edge test kit',
        size: 'p8333',
        vatRateBasisPoints: 2000,
      },
      {
        sku: 'ghk-cu-50mg',
        quantity: 2,
        unitPricePence: 1999,
        productName: 'GHK-Cu',
        size: '50mg',
        vatRateBasisPoints: 2000,
      },
    ]);
    const ordersBefore = await countRows(stack, 'orders');
    const placed = await expectCheckout(
      stack.client(),
      checkoutBody(quoted.totalPence / 100, items, { promo_code: 'welcome10' }),
    );
    expect(placed.order.total * 100).to.equal(quoted.totalPence);
    expect(await countRows(stack, 'orders')).to.equal(ordersBefore + 1);
  });

  it('charges shipping below £75 and none from £75, as create-checkout does', async () => {
    expect(await quote([{ sku: sku('p7499'), quantity: 1 }])).to.deep.include({ shippingPence: 495, totalPence: 7994 });
    expect(await quote([{ sku: sku('p7500'), quantity: 1 }])).to.deep.include({ shippingPence: 0, totalPence: 7500 });
  });

  it('reports a code that does not apply and prices without it; saves nothing', async () => {
    const ordersBefore = await countRows(stack, 'orders');
    expect(await quote([{ sku: sku('p1005'), quantity: 1 }], 'NOPE')).to.deep.include({
      discountPence: 0,
      totalPence: 1500,
      promoCode: '',
      promoRefusal: 'is not valid',
    });
    expect(await countRows(stack, 'orders')).to.equal(ordersBefore);
  });

  it('prices a reward code for the account that redeemed it only', async () => {
    const client = stack.client();
    const userId = await signUp(client);
    const code = await redeemReward(stack, client, userId);
    expect(await quote([{ sku: sku('p1005'), quantity: 1 }], code, undefined, userId)).to.deep.include({
      discountPence: 101,
      promoCode: code,
    });
    expect(await quote([{ sku: sku('p1005'), quantity: 1 }], code)).to.deep.include({
      discountPence: 0,
      promoRefusal: 'is not valid',
    });
  });

  it('counts a code as a promo check per address; lines alone are not limited', async () => {
    const address = newClientAddress();
    for (let check = 0; check < 3; check += 1) await quote([{ sku: sku('p1005'), quantity: 1 }], 'WELCOME10', address);
    const limited = await quote([{ sku: sku('p1005'), quantity: 1 }], 'WELCOME10', address).catch(
      (error: unknown) => error,
    );
    expect(limited).to.be.instanceOf(AppError).and.include({ kind: 'rate_limited' });
    expect((await quote([{ sku: sku('p1005'), quantity: 1 }], undefined, address)).totalPence).to.equal(1500);
  });

  it('refuses lines create-checkout would refuse, naming them', async () => {
    const refusal = (items: Array<{ sku: string; quantity: number }>) =>
      quote(items).then(
        () => undefined,
        (error: AppError) => error.detail,
      );
    expect(await refusal([])).to.include('items must list at least one product');
    expect(await refusal([{ sku: sku('p1005'), quantity: 0 }])).to.equal(
      'items[0].quantity must be an integer from 1 to 99',
    );
    expect(
      await refusal([
        { sku: sku('p1005'), quantity: 1 },
        { sku: sku('p1005'), quantity: 2 },
      ]),
    ).to.include('items[1].sku');
    expect(await refusal([{ sku: 'no-such-sku', quantity: 1 }])).to.include('no-such-sku');
  });
});
