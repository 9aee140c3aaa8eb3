/** The generated codecs as the services use them: money crosses the wire as whole pence in plain numbers. */
import { expect } from 'chai';
import { checkout } from '@storefront/proto';

describe('proto: generated wire codecs', () => {
  it('carries int64 pence as plain integer numbers, beyond 32 bits too', () => {
    const summary = checkout.OrderSummary.fromPartial({
      id: 'ord_1',
      items: [{ sku: 'BPC-157-5MG', quantity: 3, unitPricePence: 4_299 }],
      goodsPence: 12_897,
      totalPence: 5_000_000_000,
    });
    const decoded = checkout.OrderSummary.decode(checkout.OrderSummary.encode(summary).finish());
    expect(decoded.totalPence).to.equal(5_000_000_000);
    expect(decoded.goodsPence).to.equal(12_897);
    expect(decoded.items[0]!.unitPricePence).to.equal(4_299);
    expect(typeof decoded.discountPence).to.equal('number');
    expect(decoded.discountPence).to.equal(0);
  });
});
