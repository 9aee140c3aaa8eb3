/** Points for a paid order come from checkout alone: a forged AwardPurchase leaves the ledger as it was. */
import { expect } from 'chai';
import { status } from '@grpc/grpc-js';
import { loyalty as proto } from '@storefront/proto';
import { SERVICE_TOKEN_METADATA } from '@storefront/service-token';
import { callRaw, testSigner, startForSuite } from '@storefront/testing';
import { ledgerRows, newUserId, startLoyalty, type LoyaltyHarness } from './harness';

describe('loyalty: who may award points', () => {
  let loyalty: LoyaltyHarness;
  startForSuite(startLoyalty, (started) => (loyalty = started));

  const awardPurchase = proto.LoyaltyServiceService.awardPurchase;

  it('refuses AwardPurchase without a service token and from the gateway, and the ledger stays unchanged', async () => {
    const userId = newUserId();
    await loyalty.client.openAccount({}, await loyalty.as(userId));
    const before = await ledgerRows(loyalty.server, userId);
    const request = { userId, orderId: `forged-${userId}`, orderNumber: '', amountPence: 1_000_000 };

    expect(await callRaw(loyalty.server.address, awardPurchase, {}, request)).to.include({
      status: status.UNAUTHENTICATED,
    });
    const asGateway = { [SERVICE_TOKEN_METADATA]: await testSigner('gateway').tokenFor('loyalty') };
    expect(await callRaw(loyalty.server.address, awardPurchase, asGateway, request)).to.include({
      status: status.PERMISSION_DENIED,
    });
    expect(await ledgerRows(loyalty.server, userId)).to.deep.equal(before);

    // The same request from checkout is what credits points.
    const asCheckout = { [SERVICE_TOKEN_METADATA]: await testSigner('checkout').tokenFor('loyalty') };
    expect(await callRaw(loyalty.server.address, awardPurchase, asCheckout, request)).to.deep.equal({
      status: status.OK,
    });
    expect((await ledgerRows(loyalty.server, userId)).length).to.equal(before.length + 1);
  });
});
