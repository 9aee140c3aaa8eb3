/**
 * The balance columns against the ledger: verifyBalances and `ops loyalty verify-balances` find
 * an account whose columns were changed behind the ledger's back, and a debit's guard alone keeps
 * racing debits from overspending.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { OPS_EXIT } from '@storefront/lifecycle';
import { verifyBalances } from '../src/domain/ledger';
import { loyaltyOps } from '../src/ops/commands';
import { LoyaltyStore } from '../src/stores/loyalty';
import { newUserId, startLoyalty, type LoyaltyHarness } from './harness';
import { opsEnvFor, runOpsJson, startForSuite, withBusyCores } from '@storefront/testing';

describe('loyalty: balance columns agree with the ledger', () => {
  let loyalty: LoyaltyHarness;
  let store: LoyaltyStore;
  startForSuite(startLoyalty, (started) => {
    loyalty = started;
    store = new LoyaltyStore(started.server.db);
  });

  async function verifyCommand(): Promise<{ code: number; json: Record<string, unknown> }> {
    const { code, json } = await runOpsJson(
      loyaltyOps,
      ['verify-balances'],
      opsEnvFor(loyalty.stores, 'loyalty', { LOG_LEVEL: 'silent' }),
    );
    return { code, json };
  }

  async function fundedAccount(): Promise<string> {
    const userId = newUserId();
    await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `o-${userId}`, amountPence: 90_000 });
    await loyalty.client.redeem({ rewardId: 'ten-percent-off' }, await loyalty.as(userId));
    return userId;
  }

  it('finds no disagreement after ordinary operations, then exactly the account with corrupted columns', async () => {
    const [healthy, corrupted] = [await fundedAccount(), await fundedAccount()];
    expect((await verifyBalances(store)).mismatches).to.deep.equal([]);
    const clean = await verifyCommand();
    expect(clean.code).to.equal(OPS_EXIT.ok);
    expect(clean.json).to.deep.include({ success: true, mismatches: [] });

    await loyalty.server.db('accounts').where({ user_id: corrupted }).update({ points: 7 });
    const expected = [
      {
        userId: corrupted,
        columns: { points: 7, lifetimePoints: 1000 },
        ledger: { points: 500, lifetimePoints: 1000 },
      },
    ];
    // A page smaller than the number of accounts checks them all too.
    for (const pageSize of [1, 500]) {
      const report = await verifyBalances(store, pageSize);
      expect(report.mismatches).to.deep.equal(expected);
      expect(report.accountsChecked).to.be.at.least(2);
    }
    const found = await verifyCommand();
    expect(found.code).to.equal(OPS_EXIT.refused);
    expect(found.json).to.deep.include({ success: false, error: 'balances_disagree', mismatches: expected });
    expect(found.json.detail).to.contain(corrupted).and.not.contain(healthy);
    await loyalty.server.db('accounts').where({ user_id: corrupted }).update({ points: 500 });
  });

  it("a debit's guard alone, without the account lock, lets racing debits take only what the balance has", async () => {
    const userId = newUserId();
    await loyalty.client.openAccount({}, await loyalty.as(userId));
    // 100 welcome points: room for exactly two debits of 40.
    const debit = () =>
      loyalty.server.db.transaction((trx) =>
        store.appendEntry(trx, {
          id: randomUUID(),
          userId,
          key: `test-debit:${randomUUID()}`,
          type: 'adjustment',
          points: -40,
          description: 'x',
          createdAt: Date.now(),
        }),
      );
    const results = await withBusyCores(() => Promise.all(Array.from({ length: 12 }, debit)));
    expect(results.filter(Boolean)).to.have.length(2);
    expect(await store.balance(loyalty.server.db, userId)).to.deep.equal({ points: 20, lifetimePoints: 100 });
    expect((await verifyBalances(store)).mismatches.filter((m) => m.userId === userId)).to.deep.equal([]);
  });
});
