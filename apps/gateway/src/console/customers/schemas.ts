/** The body of a points correction, shared by the admin API and the operation it runs. */
import { component, Type, type Static } from '../../kit/schema';

export const PointsAdjustment = component(
  'PointsAdjustment',
  Type.Object(
    {
      points: Type.Integer({
        minimum: -1_000_000,
        maximum: 1_000_000,
        description: 'Signed, not zero: negative takes points away; never below a zero balance',
      }),
      reason: Type.String({
        minLength: 1,
        maxLength: 160,
        description: 'Shown to the customer as "Adjustment: <reason>"',
      }),
      idempotencyKey: Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Sending the same key again records nothing new; reusing it for other points is refused',
      }),
    },
    {
      additionalProperties: false,
      example: { points: 50, reason: 'Parcel arrived late', idempotencyKey: 'ticket-4412' },
    },
  ),
);

export type PointsAdjustmentRequest = Static<typeof PointsAdjustment>;
