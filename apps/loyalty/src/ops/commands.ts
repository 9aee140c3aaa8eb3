/**
 * Loyalty's ops commands (dist/ops.js in the image, see main.ts): migrations, point corrections
 * and the check that balance columns agree with the ledger, on loyalty's own store only.
 */
import { auditExportCommand } from '@storefront/staff-audit';
import {
  OPS_EXIT,
  OpsExit,
  migrationCommands,
  requiredOption,
  withStore,
  type OpsCommand,
  type OpsProgram,
} from '@storefront/lifecycle';
import { opsActor } from '@storefront/staff-audit';
import { readLedgerSettings } from '../config';
import { parseAdjustmentPoints } from '../domain/rules';
import { LoyaltyLedger, verifyBalances } from '../domain/ledger';
import { migrations } from '../migrations';
import { LoyaltyStore } from '../stores/loyalty';
import { readTierMultipliersFile } from '../tier-multipliers-file';

const commands: OpsCommand[] = [
  ...migrationCommands('loyalty', migrations),
  auditExportCommand('loyalty', migrations),
  {
    name: 'adjust',
    args: ['<account-id>', '<±points>'],
    summary: "correct an account's points with an adjustment entry the customer sees in their history",
    options: {
      reason: { value: '<text>', description: 'why, shown to the customer as "Adjustment: <text>" (required)' },
      key: {
        value: '<key>',
        description: 'idempotency key, e.g. a ticket reference: running again with it changes nothing (required)',
      },
    },
    async run({ args: [accountId, pointsText], options, env, actor }) {
      const points = parseAdjustmentPoints(pointsText!);
      const reason = requiredOption(options, 'reason');
      const key = requiredOption(options, 'key');
      const settings = readLedgerSettings(env);
      return withStore(env, 'loyalty', migrations, async (db) => {
        const store = new LoyaltyStore(db);
        const ledger = new LoyaltyLedger(store, await store.activeRewards(), {
          tiers: settings.tiers,
          multipliers: readTierMultipliersFile(settings.tierMultipliersFile),
          codeHoldMs: settings.codeHoldSeconds * 1000,
          now: Date.now,
        });
        const outcome = await ledger.adjust(accountId!, points, reason, key, opsActor(actor));
        const signed = `${points > 0 ? '+' : ''}${points}`;
        const text = outcome.granted
          ? `${accountId}: ${signed} points recorded; balance ${outcome.balance}`
          : `${accountId}: key ${key} had already recorded ${signed} points; nothing changed; ` +
            `balance ${outcome.balance}`;
        return { text, data: { accountId, points, newlyRecorded: outcome.granted, balance: outcome.balance } };
      });
    },
  },
  {
    name: 'verify-balances',
    summary:
      "compare every account's balance columns with its ledger sums; " +
      'exit 1 listing the accounts that disagree; changes nothing',
    async run({ env }) {
      return withStore(env, 'loyalty', migrations, async (db) => {
        const report = await verifyBalances(new LoyaltyStore(db));
        const data = { accountsChecked: report.accountsChecked, mismatches: report.mismatches };
        if (report.mismatches.length === 0)
          return { text: `${report.accountsChecked} accounts checked; every balance agrees with its ledger`, data };
        const lines = report.mismatches.map(
          ({ userId, columns, ledger }) =>
            `${userId}: columns points ${columns.points}, lifetime ${columns.lifetimePoints}; ledger ` +
            `points ${ledger.points}, lifetime ${ledger.lifetimePoints}`,
        );
        const detail =
          `${report.mismatches.length} of ${report.accountsChecked} accounts disagree ` +
          `with their ledger:\n${lines.join('\n')}`;
        throw new OpsExit(OPS_EXIT.refused, 'balances_disagree', detail, data);
      });
    },
  },
];

export const loyaltyOps: OpsProgram = { app: 'loyalty', commands };
