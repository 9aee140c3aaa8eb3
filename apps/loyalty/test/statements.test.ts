/**
 * What one read of an existing account costs the store: every statement the loyalty store
 * sends (knex 'query' events, transaction control included) for GetAccount and OpenAccount.
 * Summing the ledger in a transaction took 5 and 10; the balance columns and one UNION ALL
 * read take one each.
 */
import { expect } from 'chai';
import { currentBackend, startForSuite } from '@storefront/testing';
import { newUserId, startLoyalty, type LoyaltyHarness } from './harness';

describe('loyalty service: statements per account read', () => {
  let loyalty: LoyaltyHarness;
  startForSuite(startLoyalty, (started) => (loyalty = started));

  async function statementsOf(call: () => Promise<unknown>): Promise<string[]> {
    const statements: string[] = [];
    const record = (query: { sql: string }) => statements.push(query.sql);
    loyalty.server.db.on('query', record);
    try {
      await call();
    } finally {
      loyalty.server.db.off('query', record);
    }
    return statements;
  }

  /** An opened account with a welcome entry, a purchase and a redemption. */
  async function existingAccount(): Promise<string> {
    const userId = newUserId();
    await loyalty.checkout.awardPurchase({ orderNumber: '', userId, orderId: `o-${userId}`, amountPence: 60_000 });
    await loyalty.client.redeem({ rewardId: 'ten-percent-off' }, await loyalty.as(userId));
    return userId;
  }

  it('GetAccount of an existing account', async () => {
    const userId = await existingAccount();
    const as = await loyalty.as(userId);
    const statements = await statementsOf(() => loyalty.client.getAccount({}, as));
    process.stdout.write(`      [${currentBackend()}] GetAccount: ${statements.length} statements\n`);
    expect(statements, statements.join('\n')).to.have.length(1);
  });

  it('OpenAccount of an existing account', async () => {
    const userId = await existingAccount();
    const as = await loyalty.as(userId);
    const statements = await statementsOf(() => loyalty.client.openAccount({}, as));
    process.stdout.write(`      [${currentBackend()}] OpenAccount: ${statements.length} statements\n`);
    expect(statements, statements.join('\n')).to.have.length(1);
  });
});
