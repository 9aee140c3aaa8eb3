/** The body of a stock change, shared by the admin API and the operation it runs. */
import { STOCK_NOTE_MAX_LENGTH, STOCK_UNITS_MAX } from '@storefront/formats';
import { component, Type, type Static } from '../../kit/schema';

export const AdminStockChange = component(
  'AdminStockChange',
  Type.Object(
    {
      onHand: Type.Optional(Type.Integer({ minimum: 0, maximum: STOCK_UNITS_MAX })),
      unlimited: Type.Optional(Type.Literal(true)),
      note: Type.Optional(
        Type.String({ maxLength: STOCK_NOTE_MAX_LENGTH, description: 'Why; recorded in the staff audit log' }),
      ),
    },
    {
      description:
        'Exactly one of `onHand` (the units counted; an unlimited size becomes counted) and ' +
        '`unlimited: true` (stop counting).',
      additionalProperties: false,
      example: { onHand: 25, note: 'Counted on the shelf' },
    },
  ),
);

export type StockChange = Static<typeof AdminStockChange>;
