/**
 * Retention (decisions 1301, 1323) with a controlled clock: a guest order's delivery details are erased once its period
 * is over, its totals kept; sessions and staff login records go after theirs, the audit log's changes stay. Each pass
 * run twice (two replicas) changes nothing more.
 */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import { checkoutBody, completePayment, expectCheckout, sku, startCheckoutStack } from '../../../checkout/test/support';
import { signedInStaff } from '../support/console';
import { FAST_ARGON2, signUp } from './auth-fixtures';

const DAY = 24 * 3600 * 1000;

describe('retention: what is purged when its period is over', () => {
  let stack: Stack;
  // The payment sandbox runs on real time: the shop's clock starts there and the test moves it on.
  let nowMs = Date.now();
  before(async () => {
    nowMs = Date.now();
    // The default periods (decision 1323): guest delivery details 730 days, sessions and login records 365.
    stack = await startCheckoutStack(FAST_ARGON2, undefined, { now: () => nowMs });
    // Staff set-up links are made by the ops command on real time: the owner logs in before the clock moves.
    await signedInStaff(stack, stack.client(), 'retention-owner@shop.test', 'owner');
    await signUp(stack.client());
  });
  after(async () => stack?.stop());

  it("erases a guest order's delivery details after 730 days, keeping totals; an account's order stays", async () => {
    const delivery = {
      name: 'Perpetua Gallowglass',
      email: 'perpetua@gallowglass.test',
      phone: '+44 7700 900777',
      line1: '3 Tansy Row',
      city: 'Wexcombe',
      postcode: 'SN8 3QQ',
      country: 'GB',
    };
    const guest = await expectCheckout(
      stack.client(),
      checkoutBody(15, [{ sku: sku('p1005'), quantity: 1 }], { delivery }),
    );
    await completePayment(guest.hosted_checkout_url, 'pay');
    const customer = stack.client();
    await signUp(customer);
    const own = await expectCheckout(customer, checkoutBody(15, [{ sku: sku('p1005'), quantity: 1 }], { delivery }));
    await stack.checkout!.reconcileNow();
    await stack.checkout!.sendMailNow();
    const orderOf = (reference: string) => stack.checkout!.db('orders').where({ reference }).first();
    const before = await orderOf(guest.checkout_reference);

    nowMs += 730 * DAY - 60_000;
    expect(await stack.checkout!.purgeRetainedNow()).to.equal(0);
    expect((await orderOf(guest.checkout_reference)).delivery_name).to.equal(delivery.name);

    nowMs += 2 * 60_000;
    expect(await stack.checkout!.purgeRetainedNow()).to.equal(1);
    expect(await stack.checkout!.purgeRetainedNow()).to.equal(0);
    const after = await orderOf(guest.checkout_reference);
    expect(after).to.include({
      delivery_name: 'Erased',
      delivery_email: 'erased@erased.invalid',
      delivery_phone: null,
      delivery_postcode: 'ERASED',
      delivery_country: 'GB',
    });
    for (const column of ['status', 'amount_pence', 'currency', 'created_at'])
      expect(after[column], column).to.deep.equal(before[column]);
    expect((await orderOf(own.checkout_reference)).delivery_name).to.equal(delivery.name);
    const mails = await stack
      .checkout!.db('mail_outbox')
      .where({ recipient: delivery.email })
      .count({ n: '*' })
      .first();
    expect(Number(mails!.n), "the own order's mails still name the address; the guest's do not").to.be.at.most(1);
  });

  it('deletes sessions and staff login records after 365 days; newer ones and staff changes stay', async () => {
    const logins = () => stack.identity!.db('staff_actions').where({ action: 'login' }).count({ n: '*' }).first();
    expect(Number((await logins())!.n)).to.be.greaterThan(0);
    const fresh = stack.client();
    await signUp(fresh);
    nowMs += 364 * DAY;

    const summary = await stack.identity!.purgeRetainedNow();
    expect(summary.loginRecords).to.be.greaterThan(0);
    expect(Number((await logins())!.n)).to.equal(0);
    expect(await stack.identity!.db('staff_actions').where({ action: 'staff_added' }).first()).to.not.equal(undefined);
    if (!stack.stores.redisUrl) {
      expect(summary.sessions).to.be.greaterThan(0);
      expect(Number((await stack.identity!.db('sessions').count({ n: '*' }).first())!.n)).to.equal(1);
    }
    expect(await stack.identity!.purgeRetainedNow()).to.deep.equal({ sessions: 0, loginRecords: 0 });
  });
});
