import { errorResponse, jsonResponse, type ApiPart } from '../../kit/api-docs';
import { component, StringEnum, Type } from '../../kit/schema';
import type { Parameter } from '../../kit/validator';
import { AUDIT_COMPONENTS, AUDIT_PAGE_DEFAULT } from '../../operations/admin-audit';
import { instant, STAFF_ONLY, staffRefusals } from './admin';

export const STAFF_ACTION_PARAMETERS: Parameter[] = [
  {
    name: 'staff',
    in: 'query',
    required: false,
    description: "Only this staff member's actions (email, any letter case)",
    schema: Type.String({ minLength: 3, maxLength: 254 }),
  },
  {
    name: 'action',
    in: 'query',
    required: false,
    description: 'Only this action',
    schema: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z_]+$' }),
  },
  {
    name: 'subject',
    in: 'query',
    required: false,
    description: 'Only actions on this subject (exact)',
    schema: Type.String({ minLength: 1, maxLength: 190 }),
  },
  {
    name: 'component',
    in: 'query',
    required: false,
    description: "Only this component's log",
    schema: StringEnum(AUDIT_COMPONENTS),
  },
  {
    name: 'from',
    in: 'query',
    required: false,
    description: 'Actions at or after this date (midnight UTC) or date-time with a zone',
    schema: instant(),
  },
  {
    name: 'until',
    in: 'query',
    required: false,
    description: 'Actions before this date (midnight UTC) or date-time with a zone',
    schema: instant(),
  },
  {
    name: 'limit',
    in: 'query',
    required: false,
    description: `Actions per page (default ${AUDIT_PAGE_DEFAULT})`,
    schema: Type.Integer({ minimum: 1, maximum: 100 }),
  },
  {
    name: 'cursor',
    in: 'query',
    required: false,
    description: 'The `nextCursor` of the previous page; opaque',
    schema: Type.String({ minLength: 1, maxLength: 64 }),
  },
];

export const StaffAction = component(
  'StaffAction',
  Type.Object(
    {
      at: Type.String({ format: 'date-time' }),
      component: StringEnum(AUDIT_COMPONENTS, { description: 'Whose record changed' }),
      staffEmail: Type.String(),
      role: Type.String({ description: '`owner` or `staff`' }),
      clientAddress: Type.String({ description: 'The address the request came from' }),
      action: Type.String({ description: 'What was done, e.g. `login`, `order_refunded`, `stock_restocked`' }),
      subject: Type.String({
        description: 'What it was done to: an order reference, a SKU, a promo code, an account id, a staff email',
      }),
      before: Type.Optional(Type.Unknown({ description: 'The record before the action; absent for a creation' })),
      after: Type.Optional(Type.Unknown({ description: 'The record after the action; absent for a removal' })),
    },
    {
      description:
        'One thing a staff member (or an operator on the ops command line, with the address `ops-cli`) did, as the component it changed recorded it with the change itself.',
      additionalProperties: false,
    },
  ),
);

const StaffActionPage = component(
  'StaffActionPage',
  Type.Object(
    {
      actions: Type.Array(StaffAction, { description: 'Newest first' }),
      nextCursor: Type.Optional(
        Type.String({ description: 'Pass as `cursor` for the next page; absent on the last page' }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const adminAuditArea: ApiPart = {
  tags: [],
  paths: {
    '/api/admin/audit': {
      get: {
        operationId: 'adminListStaffActions',
        summary: 'The staff audit log, newest first, searched (staff)',
        description:
          'Every staff login, logout and change, from every component, append-only. A page at a time: follow `nextCursor` (with the same filters) until it is absent.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: STAFF_ACTION_PARAMETERS,
        responses: {
          '200': jsonResponse('A page of the audit log', StaffActionPage),
          '400': errorResponse('A parameter out of range or malformed, or a `cursor` this service did not issue'),
          ...staffRefusals,
        },
      },
    },
  },
};
