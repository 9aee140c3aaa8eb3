import { errorResponse, jsonResponse, ref, type ApiArea } from '../../kit/api-docs';
import { AUDIT_COMPONENTS, AUDIT_PAGE_DEFAULT } from '../../operations/admin-audit';
import { INSTANT, STAFF_ONLY, staffRefusals } from './admin';

export const adminAuditArea: ApiArea = {
  tags: [],
  schemas: {
    StaffAction: {
      type: 'object',
      description:
        'One thing a staff member (or an operator on the ops command line, with the address `ops-cli`) did, as the component it changed recorded it with the change itself.',
      required: ['at', 'component', 'staffEmail', 'role', 'clientAddress', 'action', 'subject'],
      additionalProperties: false,
      properties: {
        at: { type: 'string', format: 'date-time' },
        component: { type: 'string', enum: [...AUDIT_COMPONENTS], description: 'Whose record changed' },
        staffEmail: { type: 'string' },
        role: { type: 'string', description: '`owner` or `staff`' },
        clientAddress: { type: 'string', description: 'The address the request came from' },
        action: { type: 'string', description: 'What was done, e.g. `login`, `order_refunded`, `stock_restocked`' },
        subject: {
          type: 'string',
          description: 'What it was done to: an order reference, a SKU, a promo code, an account id, a staff email',
        },
        before: { description: 'The record before the action; absent for a creation' },
        after: { description: 'The record after the action; absent for a removal' },
      },
    },
    StaffActionPage: {
      type: 'object',
      required: ['actions'],
      additionalProperties: false,
      properties: {
        actions: { type: 'array', items: ref('StaffAction'), description: 'Newest first' },
        nextCursor: { type: 'string', description: 'Pass as `cursor` for the next page; absent on the last page' },
      },
    },
  },
  paths: {
    '/api/admin/audit': {
      get: {
        operationId: 'adminListStaffActions',
        summary: 'The staff audit log, newest first, searched (staff)',
        description:
          'Every staff login, logout and change, from every component, append-only. A page at a time: follow `nextCursor` (with the same filters) until it is absent.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: [
          {
            name: 'staff',
            in: 'query',
            required: false,
            description: "Only this staff member's actions (email, any letter case)",
            schema: { type: 'string', minLength: 3, maxLength: 254 },
          },
          {
            name: 'action',
            in: 'query',
            required: false,
            description: 'Only this action',
            schema: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z_]+$' },
          },
          {
            name: 'subject',
            in: 'query',
            required: false,
            description: 'Only actions on this subject (exact)',
            schema: { type: 'string', minLength: 1, maxLength: 190 },
          },
          {
            name: 'component',
            in: 'query',
            required: false,
            description: "Only this component's log",
            schema: { type: 'string', enum: [...AUDIT_COMPONENTS] },
          },
          {
            name: 'from',
            in: 'query',
            required: false,
            description: 'Actions at or after this date (midnight UTC) or date-time with a zone',
            schema: INSTANT,
          },
          {
            name: 'until',
            in: 'query',
            required: false,
            description: 'Actions before this date (midnight UTC) or date-time with a zone',
            schema: INSTANT,
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            description: `Actions per page (default ${AUDIT_PAGE_DEFAULT})`,
            schema: { type: 'integer', minimum: 1, maximum: 100 },
          },
          {
            name: 'cursor',
            in: 'query',
            required: false,
            description: 'The `nextCursor` of the previous page; opaque',
            schema: { type: 'string', minLength: 1, maxLength: 64 },
          },
        ],
        responses: {
          '200': jsonResponse('A page of the audit log', 'StaffActionPage'),
          '400': errorResponse('A parameter out of range or malformed, or a `cursor` this service did not issue'),
          ...staffRefusals,
        },
      },
    },
  },
};
