/**
 * Promo codes as operators and the console's owners manage them: create one, end one now, list
 * them with what they are used for. Writes touch only the promo_codes table, each with its staff
 * audit row in the same transaction; holds and redemptions stay as the orders made them, so an
 * open order keeps the discount it was priced with.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import { conflict, invalidArgument, notFound } from '@storefront/errors';
import { forUpdate, isUniqueViolation, toNumber, type Knex } from '@storefront/db';
import { recordStaffAction } from '@storefront/staff-audit';
import type { PromoAdmin as PromoAdminPort } from '../domain/ports';
import { normalisePromoCode, promoRefusal, type PromoCode, type PromoListing } from '../domain/promo';
import { toPromo } from './checkout';

/** A promo code as the audit log keeps it before and after a change: plain JSON, dates as ISO text. */
function auditView(promo: PromoCode) {
  return {
    code: promo.code,
    discountBasisPoints: promo.discountBasisPoints,
    activeFrom: new Date(promo.activeFrom).toISOString(),
    activeUntil: promo.activeUntil === undefined ? null : new Date(promo.activeUntil).toISOString(),
    maxRedemptions: promo.maxRedemptions ?? null,
    minGoodsPence: promo.minGoodsPence ?? null,
    firstOrderOnly: promo.firstOrderOnly === true,
    usesPerAccount: promo.usesPerAccount ?? null,
  };
}

export class PromoAdmin implements PromoAdminPort {
  constructor(
    private readonly db: Knex,
    private readonly now: () => number = Date.now,
  ) {}

  /** Adds the code, recorded as `staff`'s `promo_created`; a code that exists is a conflict. */
  async create(promo: PromoCode, staff: StaffIdentity): Promise<PromoCode> {
    if (promo.activeUntil !== undefined && promo.activeUntil <= promo.activeFrom) {
      throw invalidArgument(
        `until (${new Date(promo.activeUntil).toISOString()}) must be after from ` +
          `(${new Date(promo.activeFrom).toISOString()})`,
        'invalid_date',
      );
    }
    try {
      await this.db.transaction(async (trx) => {
        await trx('promo_codes').insert({
          code: promo.code,
          discount_basis_points: promo.discountBasisPoints,
          active_from: promo.activeFrom,
          active_until: promo.activeUntil ?? null,
          max_redemptions: promo.maxRedemptions ?? null,
          min_goods_pence: promo.minGoodsPence ?? null,
          first_order_only: promo.firstOrderOnly === true,
          uses_per_account: promo.usesPerAccount ?? null,
        });
        await recordStaffAction(
          trx,
          staff,
          { action: 'promo_created', subject: promo.code, after: auditView(promo) },
          this.now(),
        );
      });
    } catch (error) {
      if (isUniqueViolation(error))
        throw conflict(
          'promo_exists',
          `promo code ${promo.code} already exists; expire it and create another code to change its terms`,
        );
      throw error;
    }
    return promo;
  }

  /**
   * Ends the code now for new orders, recorded as `staff`'s `promo_expired`; one that has already ended keeps its end.
   */
  async expire(rawCode: string, staff: StaffIdentity): Promise<PromoCode> {
    const code = normalisePromoCode(rawCode);
    const now = this.now();
    return this.db.transaction(async (trx) => {
      // Locked, so two expiries of one code meet here and the second sees the first's end.
      const row = await forUpdate(trx('promo_codes').where({ code }).first(), this.db);
      if (!row) throw notFound(`no promo code ${code}`, 'promo_not_found');
      const before = toPromo(row);
      if (before.activeUntil !== undefined && before.activeUntil <= now) {
        throw conflict(
          'promo_already_ended',
          `promo code ${code} already ended at ${new Date(before.activeUntil).toISOString()}`,
        );
      }
      await trx('promo_codes').where({ code }).update({ active_until: now });
      const expired = { ...before, activeUntil: now };
      await recordStaffAction(
        trx,
        staff,
        { action: 'promo_expired', subject: code, before: auditView(before), after: auditView(expired) },
        now,
      );
      return expired;
    });
  }

  /** Every code, with its paid redemptions, open orders' holds and whether it is usable now. */
  async list(): Promise<PromoListing[]> {
    const rows = await this.db('promo_codes').orderBy('code').select();
    const counts = async (table: string) =>
      new Map(
        (await this.db(table).groupBy('code').select('code').count({ n: '*' })).map((row: Record<string, unknown>) => [
          String(row.code),
          toNumber(row.n),
        ]),
      );
    const [redeemed, held] = await Promise.all([counts('promo_redemptions'), counts('promo_holds')]);
    const now = this.now();
    return rows.map((row) => {
      const promo = toPromo(row);
      const usage = { redeemed: redeemed.get(promo.code) ?? 0, held: held.get(promo.code) ?? 0 };
      return { ...promo, ...usage, refusal: promoRefusal(promo, now, usage) };
    });
  }
}
