/**
 * Loyalty's ops commands (dist/ops.js in the image, see main.ts): migrations and point
 * corrections, on loyalty's own store only.
 */
import { migrationCommands, requiredOption, withStore, type OpsCommand, type OpsProgram } from '@storefront/lifecycle';
import { readLedgerSettings } from '../config';
import { parseAdjustmentPoints } from '../domain/rules';
import { LoyaltyLedger } from '../domain/ledger';
import { migrations } from '../migrations';
import { LoyaltyStore } from '../stores/loyalty';

const commands: OpsCommand[] = [
  ...migrationCommands('loyalty', migrations),
  {
    name: 'adjust',
    args: ['<account-id>', '<±points>'],
    summary: "correct an account's points with an adjustment entry the customer sees in their history",
    options: {
      reason: { value: '<text>', description: 'why, shown to the customer as "Adjustment: <text>" (required)' },
      key: { value: '<key>', description: 'idempotency key, e.g. a ticket reference: running again with it changes nothing (required)' },
    },
    async run({ args: [accountId, pointsText], options, env }) {
      const points = parseAdjustmentPoints(pointsText!);
      const reason = requiredOption(options, 'reason');
      const key = requiredOption(options, 'key');
      const settings = readLedgerSettings(env);
      return withStore(env, 'loyalty', migrations, async (db) => {
        const store = new LoyaltyStore(db);
        const ledger = new LoyaltyLedger(store, await store.activeRewards(), { tiers: settings.tiers, codeHoldMs: settings.codeHoldSeconds * 1000, now: Date.now });
        const outcome = await ledger.adjust(accountId!, points, reason, key);
        const signed = `${points > 0 ? '+' : ''}${points}`;
        const text = outcome.granted
          ? `${accountId}: ${signed} points recorded; balance ${outcome.balance}`
          : `${accountId}: key ${key} had already recorded ${signed} points; nothing changed; balance ${outcome.balance}`;
        return { text, data: { accountId, points, newlyRecorded: outcome.granted, balance: outcome.balance } };
      });
    },
  },
];

export const loyaltyOps: OpsProgram = { app: 'loyalty', commands };
