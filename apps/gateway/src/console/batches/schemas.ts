/** A batch as the admin API shows it, and the body of a batch's state change. */
import { STOCK_NOTE_MAX_LENGTH } from '@storefront/formats';
import { component, StringEnum, Type, type Static } from '../../kit/schema';

export const BATCH_STATES = ['sellable', 'quarantined', 'recalled', 'exhausted'] as const;

export const AdminBatch = component(
  'AdminBatch',
  Type.Object(
    {
      number: Type.String({ description: 'Upper-case, unique in the shop; printed on the vial' }),
      sku: Type.String(),
      productName: Type.String({ description: 'Empty when the size is no longer in the catalog' }),
      size: Type.String(),
      units: Type.Integer({ minimum: 0, description: 'Units on the shelf, whatever the state' }),
      purityHundredths: Type.Optional(
        Type.Integer({
          minimum: 0,
          maximum: 10_000,
          description:
            'HPLC purity in hundredths of a percent (99.42 % is 9942); absent for stock counted before batches',
        }),
      ),
      testedOn: Type.String({ description: 'yyyy-mm-dd; empty for stock counted before batches' }),
      laboratory: Type.String(),
      retestOn: Type.String({
        description: 'yyyy-mm-dd: the last day it is sold; empty for stock counted before batches',
      }),
      receivedAt: Type.String({ format: 'date-time' }),
      state: StringEnum(BATCH_STATES, { description: '`exhausted`: sellable with no units left' }),
      pastRetest: Type.Boolean({ description: 'Past its retest date: not sold, whatever its state' }),
      legacy: Type.Boolean({
        description: 'Stock counted before batches were recorded; its certificate is on request',
      }),
      certificate: Type.Optional(
        Type.Object(
          {
            sha256: Type.String({ description: 'SHA-256 of the PDF, lower-case hex' }),
            sizeBytes: Type.Integer({ minimum: 1 }),
            attachedAt: Type.String({ format: 'date-time' }),
          },
          { additionalProperties: false, description: 'The certificate of analysis; absent: on request' },
        ),
      ),
    },
    { description: 'Units of one size from one delivery, with its analysis.', additionalProperties: false },
  ),
);

export type AdminBatchView = Static<typeof AdminBatch>;

export const AdminBatchNote = component(
  'AdminBatchNote',
  Type.Object(
    {
      note: Type.Optional(Type.String({ maxLength: STOCK_NOTE_MAX_LENGTH, description: 'Why; kept in the audit log' })),
    },
    { additionalProperties: false, example: { note: 'Vial caps loose on arrival' } },
  ),
);

export const AdminBatchOrders = component(
  'AdminBatchOrders',
  Type.Object(
    {
      orders: Type.Array(
        Type.Object(
          {
            reference: Type.String({ description: "The order's checkout reference" }),
            soldAt: Type.String({ format: 'date-time', description: "When the order's payment took the units" }),
            units: Type.Integer({ minimum: 1, description: 'Units of the batch the order took' }),
            returned: Type.Integer({ minimum: 0, description: 'Of those, units a refund put back on the batch' }),
            email: Type.String({ description: "The order's delivery e-mail; empty when checkout no longer has it" }),
          },
          { additionalProperties: false },
        ),
        { description: 'Oldest sale first' },
      ),
    },
    { description: 'Every order that shipped units of a batch: its recall list.', additionalProperties: false },
  ),
);
