/**
 * Wires loyalty: on the shared gRPC service start-up, loads the rewards catalog and serves
 * gRPC. Handlers stay thin: they check the input and call the ledger. Customer-facing
 * RPCs act for the caller the gateway vouches for; the rest are called by checkout.
 */
import { staffActionsPage } from '@storefront/staff-audit';
import fs from 'node:fs';
import { loyalty } from '@storefront/proto';
import { bind } from '@storefront/grpc';
import {
  openComponent,
  startGrpcService,
  type BuildContext,
  type OpenComponent,
  type RunningGrpcService,
  type ServiceParts,
  type ServiceStartOptions,
} from '@storefront/lifecycle';
import type { LoyaltyConfig, LoyaltyServeKeys } from './config';
import { LOYALTY_ACCESS } from './access';
import { migrations } from './migrations';
import { LoyaltyStore } from './stores/loyalty';
import { ReferralStore } from './stores/referrals';
import { AccountDataStore } from './stores/account-data';
import { AccountData } from './domain/account-data';
import { LoyaltyLedger } from './domain/ledger';
import { Referrals } from './domain/referrals';
import { StaffLoyaltyAccounts } from './domain/staff-accounts';
import { REFUND_ID_MAX_LENGTH, reversePurchase } from './domain/reversals';
import { parseRewardsFile } from './rewards-file';
import { readTierMultipliersFile } from './tier-multipliers-file';
import { LIMITS, orderName, requireAmountPence, requireIdentifier, requireRequestedRewardIds } from './domain/rules';

export interface LoyaltyServer extends RunningGrpcService {
  /** Resolves once the accounts being opened off the read path are open (or failed). */
  settled(): Promise<void>;
}

export type StartOptions = ServiceStartOptions & LoyaltyServeKeys;

export interface LoyaltyHandles {
  settled(): Promise<void>;
}

/** Loyalty in a process of its own, served over gRPC. */
export function startLoyaltyServer(config: LoyaltyConfig, options: StartOptions): Promise<LoyaltyServer> {
  return startGrpcService({ service: 'loyalty', config, migrations, ...options }, buildLoyalty(config, options));
}

/** Loyalty as a component of the process that hosts it, called in-process. */
export function openLoyaltyComponent(
  config: LoyaltyConfig,
  options: ServiceStartOptions,
): Promise<OpenComponent<LoyaltyHandles>> {
  return openComponent({ service: 'loyalty', config, migrations, ...options }, buildLoyalty(config, options));
}

function buildLoyalty(config: LoyaltyConfig, options: ServiceStartOptions) {
  const rewards = parseRewardsFile(JSON.parse(fs.readFileSync(config.rewardsFile, 'utf8')));
  const multipliers = readTierMultipliersFile(config.tierMultipliersFile);
  return async ({ db, logger }: BuildContext): Promise<ServiceParts<LoyaltyHandles>> => {
    const store = new LoyaltyStore(db);
    await store.replaceRewardsCatalog(rewards);
    const now = options.now ?? Date.now;
    const ledger = new LoyaltyLedger(store, await store.activeRewards(), {
      tiers: config.tiers,
      multipliers,
      codeHoldMs: config.codeHoldSeconds * 1000,
      now,
      onBackgroundFailure: (error) =>
        logger.warn({ err: error }, 'opening a loyalty account off the read path failed; the next read retries'),
    });
    const staffAccounts = new StaffLoyaltyAccounts(store, ledger, config.tiers);
    const referralStore = new ReferralStore(db);
    const referrals = new Referrals(store, referralStore, ledger, now);
    const accountData = new AccountData(store, new AccountDataStore(db), referralStore, config.tiers, now);
    return {
      describe: { rewards: rewards.length },
      close: () => ledger.settled(),
      exposed: { settled: () => ledger.settled() },
      bindings: [
        bind('storefront.loyalty.v1.LoyaltyService', loyalty.LoyaltyServiceService, LOYALTY_ACCESS, {
          listStaffActions: async (request) => ({ page: await staffActionsPage(db, request.query) }),
          openAccount: async (request, ctx) => {
            const userId = await ctx.requireCaller();
            if (request.referral) await referrals.recordAtOpening(userId, request.referral);
            return { account: await ledger.open(userId) };
          },
          getAccount: async (_request, ctx) => ({ account: await ledger.account(await ctx.requireCaller()) }),
          sync: async (request, ctx) => {
            const userId = await ctx.requireCaller();
            return { account: await ledger.sync(userId, requireRequestedRewardIds(request.requestedRewardIds)) };
          },
          redeem: async (request, ctx) => {
            const userId = await ctx.requireCaller();
            return ledger.redeem(userId, requireIdentifier(request.rewardId, 'reward_id', LIMITS.rewardId));
          },
          awardPurchase: async (request) =>
            ledger.awardPurchase(
              requireIdentifier(request.userId, 'user_id', LIMITS.userId),
              requireIdentifier(request.orderId, 'order_id', LIMITS.orderId),
              requireAmountPence(request.amountPence),
              orderName(request.orderId, request.orderNumber),
            ),
          checkRewardCode: async (request) => ledger.checkRewardCode(request.code, request.userId),
          useRewardCode: async (request) => {
            await ledger.useRewardCode(
              requireIdentifier(request.code, 'code', LIMITS.rewardCode),
              requireIdentifier(request.userId, 'user_id', LIMITS.userId),
              requireIdentifier(request.orderId, 'order_id', LIMITS.orderId),
            );
            return {};
          },
          holdRewardCode: async (request) =>
            ledger.holdRewardCode(
              requireIdentifier(request.code, 'code', LIMITS.rewardCode),
              requireIdentifier(request.userId, 'user_id', LIMITS.userId),
              requireIdentifier(request.orderId, 'order_id', LIMITS.orderId),
            ),
          releaseRewardCode: async (request) => {
            await ledger.releaseRewardCode(
              requireIdentifier(request.code, 'code', LIMITS.rewardCode),
              requireIdentifier(request.orderId, 'order_id', LIMITS.orderId),
            );
            return {};
          },
          getAccountForStaff: async (request) => staffAccounts.get(request),
          getPointsOutstanding: async () => staffAccounts.pointsOutstanding(),
          getBalancesForStaff: async ({ accountIds }) => ({ balances: await staffAccounts.balancesOf(accountIds) }),
          adjustPointsForStaff: async (request, ctx) => staffAccounts.adjust(request, ctx.staff!),
          reversePurchase: async (request) =>
            reversePurchase(
              store,
              {
                refundId: requireIdentifier(request.refundId, 'refund_id', REFUND_ID_MAX_LENGTH),
                orderId: requireIdentifier(request.orderId, 'order_id', LIMITS.orderId),
                userId: requireIdentifier(request.userId, 'user_id', LIMITS.userId),
                refundedPence: requireAmountPence(request.refundedPence, 'refunded_pence'),
                goodsPence: requireAmountPence(request.goodsPence, 'goods_pence'),
                orderName: orderName(request.orderId, request.orderNumber),
              },
              now(),
            ),
          getReferral: async (request) => {
            const status = await referrals.status(requireIdentifier(request.userId, 'user_id', LIMITS.userId));
            return { ...status, state: status.state ?? '' };
          },
          settleReferral: async (request) =>
            referrals.settle(
              requireIdentifier(request.userId, 'user_id', LIMITS.userId),
              requireIdentifier(request.orderId, 'order_id', LIMITS.orderId),
              {
                fullyRefunded: request.fullyRefunded,
                sameDeliveryAddress: request.sameDeliveryAddress,
                samePayment: request.samePayment,
              },
            ),
          reverseReferral: async (request) => {
            const outcome = await referrals.reverse(
              requireIdentifier(request.userId, 'user_id', LIMITS.userId),
              requireIdentifier(request.orderId, 'order_id', LIMITS.orderId),
            );
            return { ...outcome, state: outcome.state ?? '' };
          },
          listReferrals: async (request, ctx) =>
            referrals.list(await ctx.requireCaller(), request.limit, request.cursor),
          exportAccountData: async (request, ctx) =>
            accountData.export(await ctx.requireCaller(), request.limit, request.cursor),
          eraseAccount: async (_request, ctx) => accountData.erase(await ctx.requireCaller()),
          listReferralsForStaff: async (request) =>
            referrals.listForStaff(request.accountId, request.limit, request.cursor),
        }),
      ],
    };
  };
}
