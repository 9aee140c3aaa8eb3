/** Operator point adjustments: written once per key, even when the same key races itself. */
import { expect } from 'chai';
import { withBusyCores } from '@storefront/testing';
import { LoyaltyLedger } from '../src/domain/ledger';
import { LoyaltyStore } from '../src/stores/loyalty';
import { DEFAULT_TIER_MULTIPLIERS_FILE } from '../src/config';
import { readTierMultipliersFile } from '../src/tier-multipliers-file';
import { opsActor } from '@storefront/staff-audit';
import { ledgerRows, newUserId, startLoyalty, type LoyaltyHarness } from './harness';

const OPERATOR = opsActor('adjustment-test');

describe('loyalty: operator adjustments', () => {
  let h: LoyaltyHarness;
  let ledger: LoyaltyLedger;
  beforeEach(async () => {
    h = await startLoyalty();
    const store = new LoyaltyStore(h.server.db);
    ledger = new LoyaltyLedger(store, await store.activeRewards(), {
      tiers: { silver: 500, gold: 1500, platinum: 5000 },
      multipliers: readTierMultipliersFile(DEFAULT_TIER_MULTIPLIERS_FILE),
      codeHoldMs: 60_000,
      now: Date.now,
    });
  });
  afterEach(async () => h?.stop());

  it('ten concurrent runs with one key record one adjustment entry', async () => {
    const userId = newUserId();
    await h.client.openAccount({}, await h.as(userId));
    const outcomes = await withBusyCores(() =>
      Promise.all(Array.from({ length: 10 }, () => ledger.adjust(userId, 25, 'goodwill', 'ticket-7', OPERATOR))),
    );
    expect(outcomes.filter((outcome) => outcome.granted)).to.have.length(1);
    expect((await ledgerRows(h.server, userId)).filter((row) => row.type === 'adjustment')).to.deep.equal([
      { key: 'adjustment:ticket-7', points: 25, type: 'adjustment' },
    ]);
    const audit = await h.server.db('staff_actions').where({ subject: userId });
    expect(
      audit.map((row) => [row.action, row.staff_id, JSON.parse(row.before_json), JSON.parse(row.after_json).balance]),
    ).to.deep.equal([['points_adjusted', 'ops:adjustment-test', { balance: 100 }, 125]]);
  });

  it('concurrent debits never take the balance below zero', async () => {
    const userId = newUserId();
    await h.client.openAccount({}, await h.as(userId));
    // The welcome bonus is 100 points: at most two debits of 40 fit.
    const results = await withBusyCores(() =>
      Promise.allSettled(
        Array.from({ length: 5 }, (_, i) => ledger.adjust(userId, -40, 'correction', `debit-${i}`, OPERATOR)),
      ),
    );
    expect(results.filter((result) => result.status === 'fulfilled')).to.have.length(2);
    for (const result of results)
      if (result.status === 'rejected') expect(result.reason).to.include({ code: 'insufficient_points' });
    const { account } = await h.client.getAccount({}, await h.as(userId));
    expect(account!.points).to.equal(20);
  });

  it('refuses a key reused for other points and an unknown account', async () => {
    const userId = newUserId();
    await h.client.openAccount({}, await h.as(userId));
    await ledger.adjust(userId, 10, 'first', 'k-1', OPERATOR);
    const reused = await ledger
      .adjust(userId, 11, 'second', 'k-1', OPERATOR)
      .catch((error: { code?: string }) => error.code);
    expect(reused).to.equal('already_recorded');
    const unknown = await ledger
      .adjust(newUserId(), 10, 'x', 'k-2', OPERATOR)
      .catch((error: { code?: string }) => error.code);
    expect(unknown).to.equal('account_not_found');
    expect(
      await h.server.db('staff_actions').where({ subject: userId }).count({ n: '*' }).first(),
      'only the first adjustment is recorded',
    ).to.satisfy((row: { n: unknown }) => Number(row.n) === 1);
  });
});
