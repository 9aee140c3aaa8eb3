/**
 * Promo codes as the console's staff manage them, shared by the admin API and the console pages: one call to checkout
 * each, acting for the staff member.
 */
import type { checkout } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import type { StaffCaller } from '../../kit/staff-session';
import type { NewPromoTerms } from './schemas';

const BASIS_POINTS_PER_PERCENT = 100;

/**
 * The contract's StaffPromo: absent fields for no end, no cap, no minimum and no limit per account; `worksNow` with
 * checkout's reason when not.
 */
export function staffPromoView(promo: checkout.StaffPromo) {
  return {
    code: promo.code,
    percent: promo.discountBasisPoints / BASIS_POINTS_PER_PERCENT,
    activeFrom: promo.activeFrom,
    ...(promo.activeUntil ? { activeUntil: promo.activeUntil } : {}),
    ...(promo.maxRedemptions ? { maxRedemptions: promo.maxRedemptions } : {}),
    ...(promo.minGoodsPence ? { minOrderPence: promo.minGoodsPence } : {}),
    firstOrderOnly: promo.firstOrderOnly,
    ...(promo.usesPerAccount ? { usesPerAccount: promo.usesPerAccount } : {}),
    paidUses: promo.redeemed,
    openHolds: promo.held,
    worksNow: promo.refusal === '',
    ...(promo.refusal ? { refusal: promo.refusal } : {}),
  };
}

export type StaffPromoView = ReturnType<typeof staffPromoView>;

export async function listPromos({ clients }: GatewayContext, staff: StaffCaller): Promise<StaffPromoView[]> {
  return (await clients.checkout.listPromosForStaff({}, { staff })).promos.map(staffPromoView);
}

export async function createPromo(
  { clients }: GatewayContext,
  promo: NewPromoTerms,
  staff: StaffCaller,
): Promise<StaffPromoView> {
  const { promo: created } = await clients.checkout.createPromoForStaff(
    {
      code: promo.code,
      discountPercent: String(promo.percent),
      activeFrom: promo.from ?? '',
      activeUntil: promo.until ?? '',
      maxRedemptions: promo.maxRedemptions ?? 0,
      minOrder: promo.minOrderPence === undefined ? '' : (promo.minOrderPence / 100).toFixed(2),
      firstOrderOnly: promo.firstOrderOnly === true,
      usesPerAccount: promo.usesPerAccount ?? 0,
    },
    { staff },
  );
  return staffPromoView(created!);
}

export async function expirePromo(
  { clients }: GatewayContext,
  code: string,
  staff: StaffCaller,
): Promise<StaffPromoView> {
  return staffPromoView((await clients.checkout.expirePromoForStaff({ code }, { staff })).promo!);
}
