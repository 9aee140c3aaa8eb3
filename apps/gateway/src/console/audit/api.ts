/** The admin API's audit log: `GET /api/admin/audit`, the staff session first, then the query. */
import type { Request } from 'express';
import type { GatewayContext } from '../../context';
import { errorResponse, jsonResponse } from '../../kit/api-docs';
import { apiRoute, type ApiRoutes } from '../../kit/routes';
import { component, StringEnum, Type } from '../../kit/schema';
import { requireStaff } from '../../kit/staff-session';
import type { Parameter } from '../../kit/validator';
import { instant, queryText, sendStaffAnswer, STAFF_ONLY, staffFirst, staffRefusals } from '../staff-api';
import {
  AUDIT_COMPONENTS,
  AUDIT_PAGE_DEFAULT,
  listStaffActions,
  StaffAction,
  type AuditComponent,
  type StaffActionFilter,
} from './staff-actions';

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

/** The query as strings, the limit as a number; the validator has checked their shapes. */
export function staffActionFilter(req: Request): StaffActionFilter {
  const text = (name: string) => queryText(req, name);
  const limit = text('limit');
  return {
    staff: text('staff'),
    action: text('action'),
    subject: text('subject'),
    component: text('component') as AuditComponent | undefined,
    from: text('from'),
    until: text('until'),
    limit: limit === undefined ? undefined : Number(limit),
    cursor: text('cursor'),
  };
}

export const consoleAuditApi: ApiRoutes<GatewayContext> = {
  tags: [],
  routes: [
    apiRoute({
      method: 'get',
      path: '/api/admin/audit',
      operation: {
        operationId: 'adminListStaffActions',
        summary: 'The staff audit log, newest first, searched (staff)',
        description:
          'Every staff login, logout and change, from every component, append-only. A page at a ' +
          'time: follow `nextCursor` (with the same filters) until it is absent.',
        tags: ['admin'],
        security: STAFF_ONLY,
        parameters: STAFF_ACTION_PARAMETERS,
        responses: {
          '200': jsonResponse('A page of the audit log', StaffActionPage),
          '400': errorResponse('A parameter out of range or malformed, or a `cursor` this service did not issue'),
          ...staffRefusals,
        },
      },
      before: (context) => [staffFirst(context)],
      handle: (context) => async (req, res) => {
        sendStaffAnswer(
          res,
          await listStaffActions(context, staffActionFilter(req), await requireStaff(req, res, context)),
        );
      },
    }),
  ],
};
