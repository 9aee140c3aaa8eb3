import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { comparableEmail, londonMonth, refusalFor } from '../src/domain/referral-rules';

describe('loyalty referral rules', () => {
  it('compares e-mails trimmed and lower-cased, ignoring dots and +tags at gmail.com and googlemail.com only', () => {
    const same = (a: string, b: string) => comparableEmail(a, 'a') === comparableEmail(b, 'b');
    expect(same(' Max@Shop.Test ', 'max@shop.test')).to.equal(true);
    expect(same('Jane.Doe+shop@gmail.com', 'janedoe@googlemail.com')).to.equal(true);
    expect(same('j.a.n.e.doe@GMAIL.com', 'janedoe+x+y@gmail.com')).to.equal(true);
    expect(same('jane.doe@shop.test', 'janedoe@shop.test')).to.equal(false);
    expect(same('jane+a@shop.test', 'jane@shop.test')).to.equal(false);
    expect(same('jane@gmail.com.evil.test', 'jane@gmail.com')).to.equal(false);
  });

  for (const bad of ['', 'no-at-sign', '@shop.test', 'jane@', 'ja ne@shop.test', `${'x'.repeat(250)}@shop.test`]) {
    it(`refuses ${JSON.stringify(bad.slice(0, 20))} as an e-mail, naming the field`, () => {
      expect(() => comparableEmail(bad, 'referral.email'))
        .to.throw(AppError)
        .with.property('detail')
        .that.contains('referral.email');
    });
  }

  it('refuses a full refund first, then a shared delivery address, then a shared payment', () => {
    const facts = { fullyRefunded: false, sameDeliveryAddress: false, samePayment: false };
    expect(refusalFor(facts)).to.equal(undefined);
    expect(refusalFor({ ...facts, samePayment: true })).to.equal('same_payment');
    expect(refusalFor({ ...facts, samePayment: true, sameDeliveryAddress: true })).to.equal('same_delivery_address');
    expect(refusalFor({ fullyRefunded: true, sameDeliveryAddress: true, samePayment: true })).to.equal(
      'first_order_refunded',
    );
  });

  it('counts calendar months in London time, in summer (BST) and in winter (GMT)', () => {
    // 31 March 2026, 23:30 UTC is 00:30 on 1 April in London.
    expect(londonMonth(Date.parse('2026-03-31T23:30:00Z'))).to.deep.equal({
      start: Date.parse('2026-03-31T23:00:00Z'),
      end: Date.parse('2026-04-30T23:00:00Z'),
    });
    expect(londonMonth(Date.parse('2026-03-31T22:59:59.999Z')).end).to.equal(Date.parse('2026-03-31T23:00:00Z'));
    // March begins in GMT and ends in BST.
    expect(londonMonth(Date.parse('2026-03-15T12:00:00Z'))).to.deep.equal({
      start: Date.parse('2026-03-01T00:00:00Z'),
      end: Date.parse('2026-03-31T23:00:00Z'),
    });
    expect(londonMonth(Date.parse('2026-12-31T23:59:59Z'))).to.deep.equal({
      start: Date.parse('2026-12-01T00:00:00Z'),
      end: Date.parse('2027-01-01T00:00:00Z'),
    });
  });
});
