/**
 * The staff audit log as the console reads it: each component keeps its own log (written in the
 * transaction of each action), so a page here is a merge of one page from each, newest first.
 * The order is (time desc, component, id desc); the cursor names the last row shown by those
 * three, so every component can be asked for exactly the rows after it.
 */
import { invalidArgument } from '@storefront/errors';
import { instantOption } from '@storefront/lifecycle';
import type { audit } from '@storefront/proto';
import type { GatewayContext } from '../../context';
import type { StaffCaller } from '../../kit/staff-session';
import { component, StringEnum, Type, type Static } from '../../kit/schema';

export const AUDIT_COMPONENTS = ['checkout', 'identity', 'inventory', 'loyalty'] as const;
export type AuditComponent = (typeof AUDIT_COMPONENTS)[number];
export const AUDIT_PAGE_DEFAULT = 50;

export interface StaffActionFilter {
  /** A staff member's email, any letter case. */
  staff?: string;
  action?: string;
  subject?: string;
  /** Only this component's log. */
  component?: AuditComponent;
  from?: string;
  until?: string;
  limit?: number;
  cursor?: string;
}

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
        'One thing a staff member (or an operator on the ops command line, with the address ' +
        '`ops-cli`) did, as the component it changed recorded it with the change itself.',
      additionalProperties: false,
    },
  ),
);

export type StaffActionView = Static<typeof StaffAction>;

interface Position {
  at: number;
  component: number;
  id: number;
}

interface Row {
  component: number;
  action: audit.StaffAction;
}

const CURSOR = /^(\d{1,15})\.([0-3])\.(\d{1,15})$/;

function positionOf(cursor: string): Position {
  const match = CURSOR.exec(cursor);
  if (!match) throw invalidArgument('cursor is not one this service issued', 'invalid_cursor');
  return { at: Number(match[1]), component: Number(match[2]), id: Number(match[3]) };
}

/** Where component `index` resumes after `position`: in the same millisecond, earlier components came first. */
function resumeFor(
  index: number,
  position: Position | undefined,
): Pick<audit.StaffActionQuery, 'beforeAt' | 'beforeId'> {
  if (!position) return { beforeAt: 0, beforeId: 0 };
  if (index < position.component) return { beforeAt: position.at, beforeId: 0 };
  if (index === position.component) return { beforeAt: position.at, beforeId: position.id };
  return { beforeAt: position.at + 1, beforeId: 0 };
}

const newestFirst = (a: Row, b: Row) =>
  b.action.at - a.action.at || a.component - b.component || b.action.id - a.action.id;

function parsedJson(text: string): unknown {
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

function view({ component, action }: Row): StaffActionView {
  const before = parsedJson(action.beforeJson);
  const after = parsedJson(action.afterJson);
  return {
    at: new Date(action.at).toISOString(),
    component: AUDIT_COMPONENTS[component]!,
    staffEmail: action.staffEmail,
    role: action.role,
    clientAddress: action.clientAddress,
    action: action.action,
    subject: action.subject,
    ...(before === undefined ? {} : { before }),
    ...(after === undefined ? {} : { after }),
  };
}

/** A page of every component's staff actions, newest first, with the cursor of the next page when there is one. */
export async function listStaffActions(
  { clients }: GatewayContext,
  filter: StaffActionFilter,
  staff: StaffCaller,
): Promise<{ actions: StaffActionView[]; nextCursor?: string }> {
  const limit = filter.limit ?? AUDIT_PAGE_DEFAULT;
  const position = filter.cursor === undefined ? undefined : positionOf(filter.cursor);
  const common = {
    staffEmail: filter.staff ?? '',
    action: filter.action ?? '',
    subject: filter.subject ?? '',
    fromAt: filter.from === undefined ? 0 : instantOption(filter.from, 'from'),
    untilAt: filter.until === undefined ? 0 : instantOption(filter.until, 'until'),
    limit,
  };
  const pages = await Promise.all(
    AUDIT_COMPONENTS.map(async (component, index): Promise<{ rows: Row[]; more: boolean }> => {
      if (filter.component !== undefined && filter.component !== component) return { rows: [], more: false };
      const { page } = await clients[component].listStaffActions(
        { query: { ...common, ...resumeFor(index, position) } },
        { staff },
      );
      return { rows: page!.actions.map((action) => ({ component: index, action })), more: page!.more };
    }),
  );
  const merged = pages.flatMap((page) => page.rows).sort(newestFirst);
  const shown = merged.slice(0, limit);
  const last = shown.at(-1);
  const more = merged.length > limit || pages.some((page) => page.more);
  return {
    actions: shown.map(view),
    ...(more && last ? { nextCursor: `${last.action.at}.${last.component}.${last.action.id}` } : {}),
  };
}
