/**
 * Promo codes as the console's staff manage them: the list with usage for any member, creating
 * and ending one for owners (the access table). The same PromoAdmin operations as the ops
 * command line, the member recorded in the audit log; this replica's cached definitions are
 * dropped after a change, so a created code prices orders here at once (decision 0983).
 */
import type { StaffIdentity } from '@storefront/caller-token';
import type { checkout } from '@storefront/proto';
import { PromoAdmin, parsePromoTerms, type PromoListing } from '../stores/promo-admin';
import type { PromoDefinitions } from './promo-definitions';

const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());
const given = (text: string) => (text.trim() === '' ? undefined : text.trim());

export class StaffPromos {
  constructor(
    private readonly admin: PromoAdmin,
    private readonly definitions: PromoDefinitions,
    private readonly now: () => number,
  ) {}

  async list(): Promise<checkout.ListPromosForStaffResponse> {
    return { promos: (await this.admin.list()).map(staffPromo) };
  }

  async create(
    request: checkout.CreatePromoForStaffRequest,
    staff: StaffIdentity,
  ): Promise<checkout.CreatePromoForStaffResponse> {
    const terms = {
      code: request.code,
      discount: request.discountPercent,
      from: given(request.activeFrom),
      until: given(request.activeUntil),
      // 0 is "no cap"; anything else goes through the command line's cap check, negatives included.
      maxRedemptions: request.maxRedemptions === 0 ? undefined : String(request.maxRedemptions),
    };
    const created = await this.admin.create(parsePromoTerms(terms, this.now()), staff);
    this.definitions.forget();
    return { promo: await this.listed(created.code) };
  }

  async expire(
    request: checkout.ExpirePromoForStaffRequest,
    staff: StaffIdentity,
  ): Promise<checkout.ExpirePromoForStaffResponse> {
    const expired = await this.admin.expire(request.code, staff);
    this.definitions.forget();
    return { promo: await this.listed(expired.code) };
  }

  /** The code as the list shows it, with its usage. */
  private async listed(code: string): Promise<checkout.StaffPromo> {
    return staffPromo((await this.admin.list()).find((promo) => promo.code === code)!);
  }
}

function staffPromo(promo: PromoListing): checkout.StaffPromo {
  return {
    code: promo.code,
    discountBasisPoints: promo.discountBasisPoints,
    activeFrom: iso(promo.activeFrom),
    activeUntil: iso(promo.activeUntil),
    maxRedemptions: promo.maxRedemptions ?? 0,
    redeemed: promo.redeemed,
    held: promo.held,
    refusal: promo.refusal ?? '',
  };
}
