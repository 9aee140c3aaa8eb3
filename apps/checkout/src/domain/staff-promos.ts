/**
 * Promo codes as the console's staff manage them: the list with usage for any member, creating
 * and ending one for owners (the access table). The same PromoAdmin operations as the ops
 * command line, the member recorded in the audit log; this replica's cached definitions are
 * dropped after a change, so a created code prices orders here at once (decision 0983).
 */
import type { StaffIdentity } from '@storefront/caller-token';
import type { PromoAdmin } from './ports';
import { parsePromoTerms, type PromoListing } from './promo';
import type { PromoDefinitions } from './promo-definitions';

const given = (text: string) => (text.trim() === '' ? undefined : text.trim());

/**
 * A new code's terms as the console sends them: dates and the minimum order as text, empty when not given; a cap or
 * a limit per account of 0 is none.
 */
export interface StaffPromoTerms {
  code: string;
  discountPercent: string;
  activeFrom: string;
  activeUntil: string;
  maxRedemptions: number;
  minOrder: string;
  firstOrderOnly: boolean;
  usesPerAccount: number;
}

export class StaffPromos {
  constructor(
    private readonly admin: PromoAdmin,
    private readonly definitions: PromoDefinitions,
    private readonly now: () => number,
  ) {}

  list(): Promise<PromoListing[]> {
    return this.admin.list();
  }

  async create(request: StaffPromoTerms, staff: StaffIdentity): Promise<PromoListing> {
    const terms = {
      code: request.code,
      discount: request.discountPercent,
      from: given(request.activeFrom),
      until: given(request.activeUntil),
      // 0 is "no cap" (and no limit); anything else goes through the command line's checks, negatives included.
      maxRedemptions: request.maxRedemptions === 0 ? undefined : String(request.maxRedemptions),
      minOrder: given(request.minOrder),
      firstOrderOnly: request.firstOrderOnly,
      usesPerAccount: request.usesPerAccount === 0 ? undefined : String(request.usesPerAccount),
    };
    const created = await this.admin.create(parsePromoTerms(terms, this.now()), staff);
    this.definitions.forget();
    return this.listed(created.code);
  }

  async expire(code: string, staff: StaffIdentity): Promise<PromoListing> {
    const expired = await this.admin.expire(code, staff);
    this.definitions.forget();
    return this.listed(expired.code);
  }

  /** The code as the list shows it, with its usage. */
  private async listed(code: string): Promise<PromoListing> {
    return (await this.admin.list()).find((promo) => promo.code === code)!;
  }
}
