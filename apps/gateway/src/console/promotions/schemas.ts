/** The terms of a new promo code, shared by the admin API and the operation it runs. */
import { component, Type, type Static } from '../../kit/schema';
import { instant } from '../staff-api';

export const NewPromo = component(
  'NewPromo',
  Type.Object(
    {
      code: Type.String({
        minLength: 3,
        maxLength: 64,
        description: 'Letters, digits, `-` and `_`, starting with a letter or digit; any case, stored upper-case',
      }),
      percent: Type.Number({
        exclusiveMinimum: 0,
        maximum: 100,
        description: 'Percent off the goods, at most two decimals: 15 or 12.5',
      }),
      from: Type.Optional(instant({ description: 'A date (midnight UTC) or date-time with a zone; absent for now' })),
      until: Type.Optional(
        instant({ description: 'A date (midnight UTC) or date-time with a zone, after `from`; absent for no end' }),
      ),
      maxRedemptions: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          description: 'Paid orders it may discount, open orders holding it included; absent for no cap',
        }),
      ),
      minOrderPence: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 10_000_000,
          description: 'The goods in pence an order must reach before the discount; absent for no minimum',
        }),
      ),
      firstOrderOnly: Type.Optional(
        Type.Boolean({ description: "Only an account's first order may use it (the buyer signs in); default false" }),
      ),
      usesPerAccount: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: 1000,
          description: "How many of an account's orders may use it (the buyer signs in); absent for no limit",
        }),
      ),
    },
    {
      additionalProperties: false,
      example: { code: 'SUMMER15', percent: 15, from: '2027-06-01', until: '2027-09-01', maxRedemptions: 500 },
    },
  ),
);

export type NewPromoTerms = Static<typeof NewPromo>;
