/**
 * Stock that hoarders cannot lock (decision 1082; second review, finding 2), on a clock the tests
 * move: an unpaid order's hold is firm for 5 minutes, then yields to a buyer short of units, taken
 * exactly once and only after its payment link is deactivated; a refusal says how many units
 * unpaid orders hold and when the first comes back; a buyer who pays and waits is served before
 * any new order, or refunded in full, once, when the units never come.
 */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { checkout } from '@storefront/proto';
import { currentBackend, expectNoServerErrors, startForSuite, withBusyCores } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { londonClock } from '@storefront/dispatch-calendar';
import { orderConfirmationMail } from '../src/domain/order-mail';
import {
  completePayment,
  countRows,
  createCheckout,
  expectCheckout,
  limitedBody,
  limitedSku,
  newClientAddress,
  providerCheckout,
  startCheckoutReplica,
  startCheckoutStack,
  stockOf,
  type ErrorResult,
} from './support';

const FIRM_MS = 5 * 60 * 1000;
const NO_OTHER_LIMITS = { OPEN_ORDERS_PER_ADDRESS_MAX: '1000', CHECKOUTS_PER_ADDRESS_MAX: '1000' };

/** A clock that stands still until a test moves it; checkout reads it, inventory and the provider keep the real one. */
function movableClock() {
  let nowMs = Date.now();
  return {
    now: () => nowMs,
    /** To the end of the firm period of every hold placed until now: they all yield. */
    pastFirmPeriod: () => {
      nowMs += FIRM_MS;
    },
  };
}

/**
 * Create-checkout through checkout's facade, as the gateway calls it: how a buyer asks to pay and
 * wait until the edge offers it.
 */
async function placeWaiting(stack: Stack, body: ReturnType<typeof limitedBody>, from = newClientAddress()) {
  const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
  try {
    return await rpc.createCheckout({
      checkoutReference: body.checkout_reference,
      amountPence: Math.round(body.amount * 100),
      currency: body.currency,
      merchantCode: body.merchant_code,
      description: body.description,
      items: body.items,
      delivery: body.delivery,
      clientAddress: from,
      waitForStock: true,
    });
  } finally {
    rpc.close();
  }
}

async function heldStock(stack: Stack, skus: string[]) {
  const rpc = stack.clientOf('checkout', checkout.CheckoutServiceService, 'gateway');
  try {
    return (await rpc.getHeldStock({ skus })).held;
  } finally {
    rpc.close();
  }
}

const orderOf = async (stack: Stack, reference: string) => (await stack.checkout!.store.findByReference(reference))!;

/** 409 out_of_stock naming how many units unpaid orders hold and when the first comes back (London time). */
function expectHeldElsewhere(
  res: { status: number; text: string; body: unknown; headers: Headers },
  stockSku: string,
  held: number,
  backAt: number,
): void {
  expect(res.status, res.text).to.equal(409);
  const { error, detail } = res.body as ErrorResult;
  expect(error).to.equal('out_of_stock');
  const baskets = held === 1 ? 'is held in another basket' : 'are held in other baskets';
  expect(detail).to.contain(`${held} of ${stockSku} ${baskets}, back by ${londonClock(backAt)}`);
  expect(Number(res.headers.get('retry-after'))).to.be.within(1, FIRM_MS / 1000 + 1);
}

describe('held stock: firm holds are refused truthfully, yielding ones are taken once', () => {
  let stack: Stack;
  const clock = movableClock();
  startForSuite(
    () => startCheckoutStack(NO_OTHER_LIMITS, undefined, { now: clock.now }),
    (started) => (stack = started),
  );

  it('says how many units unpaid orders hold and when the first is back, and GetHeldStock says the same', async () => {
    const stockSku = await limitedSku(stack, 12);
    const firstPlacedAt = clock.now();
    for (const quantity of [6, 3, 1, 1, 1]) await expectCheckout(stack.client(), limitedBody(stockSku, quantity));
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
    const refused = await createCheckout(stack.client(), limitedBody(stockSku, 1));
    expectHeldElsewhere(refused, stockSku, 12, firstPlacedAt + FIRM_MS);
    const [held] = await heldStock(stack, [stockSku]);
    expect(held).to.include({ sku: stockSku, heldUnits: 12, paidWaitingUnits: 0 });
    expect(Date.parse(held!.nextYieldAt)).to.be.closeTo(firstPlacedAt + FIRM_MS, 1000);
    // A SKU nothing holds is named with nothing held; asked for none, every SKU held is.
    expect(await heldStock(stack, ['bpc-157-5mg'])).to.deep.equal([
      { sku: 'bpc-157-5mg', heldUnits: 0, nextYieldAt: '', paidWaitingUnits: 0 },
    ]);
    expect((await heldStock(stack, [])).find((sku) => sku.sku === stockSku)).to.deep.equal(held);
  });

  it('gives a hold past its firm period to one of two racing new orders, deactivating its link first', async () => {
    const stockSku = await limitedSku(stack, 1);
    const holder = await expectCheckout(stack.client(), limitedBody(stockSku, 1));
    clock.pastFirmPeriod();
    // On MySQL the two buyers come through two replicas, deciding on the same lock rows.
    const replica = currentBackend() === 'mysql' ? await startCheckoutReplica(stack, NO_OTHER_LIMITS, clock) : stack;
    try {
      const answers = await withBusyCores(() =>
        Promise.all([
          createCheckout(stack.client(), limitedBody(stockSku, 1)),
          createCheckout(replica.client(), limitedBody(stockSku, 1)),
        ]),
      );
      expectNoServerErrors(answers);
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses, answers.map((res) => res.text).join('\n')).to.deep.equal([200, 409]);
      const winner = answers.find((res) => res.status === 200)!;
      expectHeldElsewhere(
        answers.find((res) => res.status === 409)!,
        stockSku,
        1,
        clock.now() + FIRM_MS,
      );

      const taken = await orderOf(stack, holder.checkout_reference);
      expect(taken).to.include({ status: 'expired', closeReason: 'released_to_another_buyer' });
      expect(taken.closedAt).to.be.a('number');
      expect((await providerCheckout(stack, holder.id)).status).to.equal('EXPIRED');
      const late = await fetch(holder.hosted_checkout_url, {
        method: 'POST',
        body: new URLSearchParams({ action: 'pay' }),
      });
      expect(late.status).to.equal(409);
      expect(await stockOf(stack.client(), stockSku)).to.equal(0);
      await completePayment(winner.body.hosted_checkout_url, 'pay');
      await stack.checkout!.reconcileNow();
      expect((await orderOf(stack, winner.body.checkout_reference)).status).to.equal('paid');
    } finally {
      if (replica !== stack) await replica.stop();
    }
  });

  it('never takes a yielding hold whose payer has paid: it is a sale', async () => {
    const stockSku = await limitedSku(stack, 1);
    const holder = await expectCheckout(stack.client(), limitedBody(stockSku, 1));
    clock.pastFirmPeriod();
    // Paid on the provider's page; the shop has not heard of it yet.
    await completePayment(holder.hosted_checkout_url, 'pay');
    const refused = await createCheckout(stack.client(), limitedBody(stockSku, 1));
    expect(refused.status, refused.text).to.equal(409);
    expect(refused.body.error).to.equal('out_of_stock');
    await stack.checkout!.reconcileNow();
    const sold = await orderOf(stack, holder.checkout_reference);
    expect(sold).to.include({ status: 'paid' });
    expect(sold.closeReason).to.equal(undefined);
    expect(sold.stockSettledAt).to.be.a('number');
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
  });

  it('takes nothing while the link cannot be deactivated: the units stay with the order still payable', async () => {
    const stockSku = await limitedSku(stack, 1);
    const holder = await expectCheckout(stack.client(), limitedBody(stockSku, 1));
    clock.pastFirmPeriod();
    const sandbox = stack.paymentSandbox!.control;
    const body = limitedBody(stockSku, 1);
    sandbox.setBehaviour('fail');
    const refused = await createCheckout(stack.client(), body).finally(() => sandbox.setBehaviour('ok'));
    expect(refused.status, refused.text).to.equal(502);
    expect(refused.body.detail).to.contain('could not be released');
    expect(await countRows(stack, 'orders', { reference: body.checkout_reference })).to.equal(0);
    expect(await orderOf(stack, holder.checkout_reference)).to.include({ status: 'pending_payment' });
    await completePayment(holder.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    expect((await orderOf(stack, holder.checkout_reference)).status).to.equal('paid');
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
  });
});

describe('held stock: nine addresses that hold everything and hold it again at each boundary', () => {
  let stack: Stack;
  const clock = movableClock();
  startForSuite(
    // The limits a shop runs with, but for new checkouts a minute: the script tries many orders on a clock that stands.
    () => startCheckoutStack({ CHECKOUTS_PER_ADDRESS_MAX: '1000' }, undefined, { now: clock.now }),
    (started) => (stack = started),
  );
  const script = Array.from({ length: 9 }, () => newClientAddress());

  /**
   * Every address of the script takes as many units as the limits let it, the largest order first,
   * round after round until no address gets any more.
   */
  async function holdAll(stockSku: string): Promise<void> {
    for (let gotMore = true; gotMore;) {
      gotMore = false;
      for (const from of script) {
        for (const quantity of [6, 3, 2, 1]) {
          const res = await createCheckout(stack.client(), limitedBody(stockSku, quantity), from);
          expect(res.status, res.text).to.be.oneOf([200, 409, 429]);
          if (res.status === 200) {
            gotMore = true;
            break;
          }
        }
      }
    }
  }

  /** An honest one-unit buyer who does not wait: it buys, or is told how many units are held and when one is back. */
  async function honestBuyer(stockSku: string, firmUntil: number): Promise<number> {
    const res = await createCheckout(stack.client(), limitedBody(stockSku, 1));
    if (res.status === 200) return res.status;
    expect(res.status, res.text).to.equal(409);
    expect((res.body as ErrorResult).detail).to.match(
      new RegExp(
        `\\d+ of ${stockSku} (is|are) held in (another basket|other baskets), back by ${londonClock(firmUntil)}`,
      ),
    );
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
    return res.status;
  }

  it('serves a buyer who pays and waits within 5 minutes; one who does not is told when units come back', async () => {
    const stockSku = await limitedSku(stack, 12);
    await holdAll(stockSku);
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
    const firstHeldAt = clock.now();
    expectHeldElsewhere(
      await createCheckout(stack.client(), limitedBody(stockSku, 1)),
      stockSku,
      12,
      firstHeldAt + FIRM_MS,
    );

    // A buyer who pays and waits: saved without a hold, its link at once.
    const waiting = await placeWaiting(stack, limitedBody(stockSku, 1));
    expect(waiting.order).to.include({ waitingForStock: true, reservedUntil: '', status: 'pending_payment' });
    await completePayment(waiting.providerCheckout!.hostedCheckoutUrl!, 'pay');
    await stack.checkout!.reconcileNow();
    const paidAt = clock.now();
    expect(await orderOf(stack, waiting.order!.reference)).to.include({ status: 'paid', stockWait: 'waiting' });
    expect((await heldStock(stack, [stockSku]))[0]).to.include({ heldUnits: 12, paidWaitingUnits: 1 });

    // The boundary: the holds yield, and the script comes first; it is refused for the buyer who paid.
    clock.pastFirmPeriod();
    for (const from of script) {
      const res = await createCheckout(stack.client(), limitedBody(stockSku, 1), from);
      expect(res.status, res.text).to.equal(409);
      expect((res.body as ErrorResult).detail).to.contain(`1 of ${stockSku} is held for a buyer who has paid`);
    }
    await stack.checkout!.reconcileNow();
    const served = await orderOf(stack, waiting.order!.reference);
    expect(served).to.include({ status: 'paid', stockWait: 'served' });
    expect(served.stockSettledAt! - paidAt).to.be.at.most(FIRM_MS);

    // Two more boundaries: the script takes back what it can first; the honest buyer buys or is told when.
    for (let boundary = 0; boundary < 2; boundary += 1) {
      clock.pastFirmPeriod();
      await holdAll(stockSku);
      await honestBuyer(stockSku, clock.now() + FIRM_MS);
    }
  });
});

describe('held stock: orders that pay and wait', () => {
  let stack: Stack;
  const clock = movableClock();
  startForSuite(
    () => startCheckoutStack(NO_OTHER_LIMITS, undefined, { now: clock.now }),
    (started) => (stack = started),
  );

  it('is a plain order when units are free, and waits only when firm holds have them', async () => {
    const stockSku = await limitedSku(stack, 1);
    const plain = await placeWaiting(stack, limitedBody(stockSku, 1));
    expect(plain.order).to.include({ waitingForStock: false });
    expect(plain.order!.reservedUntil).to.not.equal('');
    const waiting = await placeWaiting(stack, limitedBody(stockSku, 1));
    expect(waiting.order).to.include({ waitingForStock: true, reservedUntil: '' });
    // It holds nothing: the stock still shows what the first order left.
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
    expect((await heldStock(stack, [stockSku]))[0]).to.include({ heldUnits: 1, paidWaitingUnits: 0 });
    // Sending it again answers the same order and link.
    const again = await placeWaiting(stack, {
      ...limitedBody(stockSku, 1),
      checkout_reference: waiting.order!.reference,
    });
    expect(again.providerCheckout!.id).to.equal(waiting.providerCheckout!.id);
  });

  it('has no claim on units until paid, and once paid reserves at once when they are free', async () => {
    const stockSku = await limitedSku(stack, 1);
    const holder = await expectCheckout(stack.client(), limitedBody(stockSku, 1));
    const waiting = await placeWaiting(stack, limitedBody(stockSku, 1));
    await completePayment(holder.hosted_checkout_url, 'decline');
    await stack.checkout!.reconcileNow();
    // Unpaid, the waiting order holds nothing: a new order takes the unit the declined one gave back.
    const newcomer = await expectCheckout(stack.client(), limitedBody(stockSku, 1));
    await completePayment(newcomer.hosted_checkout_url, 'decline');
    await stack.checkout!.reconcileNow();
    await completePayment(waiting.providerCheckout!.hostedCheckoutUrl!, 'pay');
    await stack.checkout!.reconcileNow();
    const served = await orderOf(stack, waiting.order!.reference);
    expect(served).to.include({ status: 'paid', stockWait: 'served' });
    expect(served.closedAt).to.be.a('number');
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
  });

  it('expires unpaid like any order, holding nothing', async () => {
    const stockSku = await limitedSku(stack, 1);
    await expectCheckout(stack.client(), limitedBody(stockSku, 1));
    const waiting = await placeWaiting(stack, limitedBody(stockSku, 1));
    clock.pastFirmPeriod();
    for (let minutes = 0; minutes < 30; minutes += 6) clock.pastFirmPeriod();
    await stack.checkout!.reconcileNow();
    const expired = await orderOf(stack, waiting.order!.reference);
    expect(expired).to.include({ status: 'expired', stockWait: 'waiting' });
    expect(expired.closedAt).to.be.a('number');
    expect((await providerCheckout(stack, waiting.providerCheckout!.id)).status).to.equal('EXPIRED');
  });

  it('refunds a paid waiting order in full, once, with its mail, when the unit is paid for by its holder', async () => {
    const stockSku = await limitedSku(stack, 1);
    const holder = await expectCheckout(stack.client(), limitedBody(stockSku, 1));
    const waiting = await placeWaiting(stack, limitedBody(stockSku, 1));
    await completePayment(waiting.providerCheckout!.hostedCheckoutUrl!, 'pay');
    await stack.checkout!.reconcileNow();
    expect(await orderOf(stack, waiting.order!.reference)).to.include({ status: 'paid', stockWait: 'waiting' });
    // Its confirmation says what the provider's page did not: it waits for the units, or its money comes back.
    const confirmation = orderConfirmationMail(await orderOf(stack, waiting.order!.reference), 'http://shop.test');
    expect(confirmation.text).to.contain("in other shoppers' baskets").and.contain('we refund everything');
    // The holder pays: the unit is sold, and nothing else can come to the waiting order.
    await completePayment(holder.hosted_checkout_url, 'pay');
    clock.pastFirmPeriod();
    // On MySQL two replicas settle at once; on SQLite two passes in one process.
    const replica = currentBackend() === 'mysql' ? await startCheckoutReplica(stack, NO_OTHER_LIMITS, clock) : stack;
    try {
      await withBusyCores(() => Promise.all([stack.checkout!.reconcileNow(), replica.checkout!.reconcileNow()]));
      await stack.checkout!.reconcileNow();
      await stack.checkout!.sweepRefundsNow();
    } finally {
      if (replica !== stack) await replica.stop();
    }
    expect(await orderOf(stack, holder.checkout_reference)).to.include({ status: 'paid' });
    const refunded = await orderOf(stack, waiting.order!.reference);
    expect(refunded).to.include({ status: 'refunded', stockWait: 'unserved', closeReason: 'stock_never_came' });
    expect(refunded.refundedPence).to.equal(refunded.totalPence);
    expect(refunded.closedAt).to.be.a('number');
    const refunds = await stack.checkout!.db('refunds').where({ order_id: refunded.id });
    expect(refunds).to.have.length(1);
    expect(refunds[0]).to.include({ state: 'succeeded', amount_pence: refunded.totalPence });
    const [transaction] = (await providerCheckout(stack, waiting.providerCheckout!.id)).transactions;
    expect(transaction!.refunded_amount * 100).to.equal(refunded.totalPence);
    expect(stack.paymentSandbox!.control.refundRequests(transaction!.id)).to.equal(1);
    expect(await countRows(stack, 'mail_outbox', { mail_key: `refund:${refunds[0].id}` })).to.equal(1);
    expect(await stockOf(stack.client(), stockSku)).to.equal(0);
  });
});

describe('held stock: many buyers and waiters at once on a small SKU, on busy cores', () => {
  let stack: Stack;
  const clock = movableClock();
  startForSuite(
    () => startCheckoutStack(NO_OTHER_LIMITS, undefined, { now: clock.now }),
    (started) => (stack = started),
  );

  /** Places an order as a plain buyer or one who would pay and wait; answers its reference and link, if placed. */
  async function place(stockSku: string, waits: boolean) {
    const body = limitedBody(stockSku, 1);
    if (!waits) {
      const res = await createCheckout(stack.client(), body);
      expect(res.status, res.text).to.be.oneOf([200, 409]);
      if (res.status === 409) expect((res.body as ErrorResult).error).to.equal('out_of_stock');
      return res.status === 200
        ? { reference: body.checkout_reference, link: res.body.hosted_checkout_url }
        : undefined;
    }
    const placed = await placeWaiting(stack, body).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'out_of_stock') return undefined;
      throw error;
    });
    return placed && { reference: body.checkout_reference, link: placed.providerCheckout!.hostedCheckoutUrl! };
  }

  it('never oversells; every unit sold or given back; every paid order has its units or its money back', async () => {
    const units = 4;
    const stockSku = await limitedSku(stack, units);
    const first = await withBusyCores(() =>
      Promise.all(Array.from({ length: 16 }, (_, index) => place(stockSku, index % 2 === 1))),
    );
    const placed = first.filter((order) => order !== undefined);
    const orders = await Promise.all(placed.map((order) => orderOf(stack, order.reference)));
    const holders = placed.filter((_, index) => orders[index]!.stockWait === undefined);
    const waiters = placed.filter((_, index) => orders[index]!.stockWait === 'waiting');
    expect(holders, 'orders holding stock').to.have.length(units);
    expect(waiters.length, 'orders waiting for stock').to.be.at.least(1);

    // Every waiting buyer pays, and so does one holder; the others abandon their links.
    await Promise.all([...waiters, holders[0]!].map((order) => completePayment(order.link, 'pay')));
    await stack.checkout!.reconcileNow();
    clock.pastFirmPeriod();
    // The holds yield while one more holder pays, new buyers come and the reconciler serves the waiting orders.
    const settling = await withBusyCores(() =>
      Promise.allSettled([
        stack.checkout!.reconcileNow(),
        completePayment(holders[1]!.link, 'pay'),
        ...Array.from({ length: 4 }, () => place(stockSku, false)),
      ]),
    );
    for (const result of settling) if (result.status === 'rejected') expect(String(result.reason)).to.contain('409');
    for (let pass = 0; pass < 3; pass += 1) await stack.checkout!.reconcileNow();
    await stack.checkout!.sweepRefundsNow();

    const references: string[] = await stack
      .checkout!.db('order_lines as l')
      .join('orders as o', 'o.id', 'l.order_id')
      .where('l.sku', stockSku)
      .pluck('o.reference');
    const settled = await Promise.all(references.map((reference) => orderOf(stack, reference)));
    const sold = settled.filter((order) => order.status === 'paid' && order.stockSettledAt !== undefined);
    const stock = await stack.inventory!.db('stock').where({ sku: stockSku }).first();
    expect(sold.length, 'units sold').to.be.at.most(units);
    expect(Number(stock.on_hand), 'on hand').to.equal(units - sold.length);
    const stillHeld = settled.filter((order) => order.status === 'pending_payment' && order.stockWait === undefined);
    expect(Number(stock.reserved), 'reserved').to.equal(stillHeld.length);
    expect(await stockOf(stack.client(), stockSku)).to.equal(units - sold.length - stillHeld.length);
    for (const order of settled) {
      const atProvider = order.providerCheckoutId
        ? (await providerCheckout(stack, order.providerCheckoutId)).status
        : '';
      if (atProvider !== 'PAID') {
        expect(order.status, order.reference).to.be.oneOf(['pending_payment', 'expired', 'failed']);
        continue;
      }
      // Paid: its units committed, or (waiting, and they never came) refunded in full, once.
      expect(order.stockWait, order.reference).to.not.equal('waiting');
      const refunds = await stack.checkout!.db('refunds').where({ order_id: order.id });
      if (order.stockWait === 'unserved') {
        expect(order).to.include({ status: 'refunded', refundedPence: order.totalPence });
        expect(refunds).to.have.length(1);
      } else {
        expect(order, order.reference).to.include({ status: 'paid' });
        expect(order.stockSettledAt).to.be.a('number');
        expect(refunds).to.have.length(0);
      }
    }
    // More buyers waited than holds were abandoned: every unit went to a buyer who paid, its holder's first.
    const soldToHolders = sold.filter((order) => order.stockWait === undefined).length;
    expect(sold.length).to.equal(units);
    expect(soldToHolders).to.be.within(1, 2);
    expect(sold.filter((order) => order.stockWait === 'served')).to.have.length(units - soldToHolders);
    expect(settled.filter((order) => order.stockWait === 'unserved')).to.have.length(
      waiters.length - (units - soldToHolders),
    );
  });
});
