/**
 * What every area of the shop owner's console shares: its page frame and navigation, what an area's pages are given,
 * and the searchable lists (orders, the audit log). Every console page is personal (`private, no-store`) and readable
 * as Markdown; only the `svc_staff` cookie counts here, a customer's session is nobody.
 */
import type { Request, RequestHandler, Response, Router } from 'express';
import { AppError } from '@storefront/errors';
import type { GatewayContext } from '../context';
import { html, type Html } from '../kit/html';
import type { PageAnswer } from '../kit/respond';
import type { StaffCaller } from '../kit/staff-session';
import type { Parameter } from '../kit/validator';

/** What the console's page modules are given. */
export interface ConsoleDeps {
  router: Router;
  context: GatewayContext;
  send(req: Request, res: Response, page: PageAnswer): Promise<void>;
  form: RequestHandler[];
  /** The signed-in member, or undefined after redirecting the browser to the login page. */
  signedIn(req: Request, res: Response): Promise<StaffCaller | undefined>;
}

/**
 * Goes on only for a signed-in member: put before a file upload's body parser, so a body of several MiB is read only
 * for signed-in staff.
 */
export function signedInFirst({ signedIn }: Pick<ConsoleDeps, 'signedIn'>): RequestHandler {
  return async (req, res, next) => {
    if (await signedIn(req, res)) next();
  };
}

/** The console's parts, in the navigation of every page and on the console's home. */
const SECTIONS = [
  ['/console/orders', 'Orders'],
  ['/console/dispatch', 'Awaiting dispatch'],
  ['/console/returns', 'Returns'],
  ['/console/catalog', 'Catalog'],
  ['/console/batches', 'Batches'],
  ['/console/promotions', 'Promotions'],
  ['/console/vat', 'VAT report'],
  ['/console/customers', 'Customers'],
  ['/console/audit', 'Audit log'],
  ['/console/mail', 'Mail log'],
  ['/console/data-requests', 'Data requests'],
  ['/console/exports', 'Exports'],
  ['/console/staff', 'Staff members'],
] as const;
export const sectionLinks = SECTIONS.map(([href, name]) => html`<li><a href="${href}">${name}</a></li>`);
const navigation = (links: Html | Html[]) => html`<nav aria-label="Console"><ul>${links}</ul></nav>`;
const SIGNED_OUT_NAVIGATION = navigation(html`<li><a href="/console/login">Log in</a></li>`);

export function consolePage(title: string, main: Html, staff?: StaffCaller, status = 200): PageAnswer {
  const consoleNavigation = staff
    ? navigation([...sectionLinks, html`<li><a href="/console/logout">Log out ${staff.email}</a></li>`])
    : SIGNED_OUT_NAVIGATION;
  return {
    title: `${title} | Console`,
    description: title,
    caching: 'private',
    status,
    main,
    consoleNavigation,
  };
}

const BACK_TO_CONSOLE = html`<p><a href="/console">Back to the console</a></p>`;

/** The console's own page for an address it has nothing at: its frame, not the shop's. */
export function consoleNotFoundPage(path: string): PageAnswer {
  return consolePage(
    'Not found',
    html`<h1>Not found</h1><p class="error">There is no console page at ${path}.</p>${BACK_TO_CONSOLE}`,
    undefined,
    404,
  );
}

/** The next page's address: the same filters and the cursor. */
export function nextPageHref(req: Request, path: string, filterNames: readonly string[], cursor: string): string {
  const params = new URLSearchParams();
  for (const name of filterNames)
    if (typeof req.query[name] === 'string' && req.query[name] !== '') params.set(name, req.query[name] as string);
  params.set('cursor', cursor);
  return `${path}?${params.toString()}`;
}

interface FilteredList<T> {
  path: string;
  /** The admin API operation's query parameters: the filters. */
  parameters: readonly Parameter[];
  load(req: Request, staff: StaffCaller): Promise<T>;
  render(req: Request, staff: StaffCaller, page: T | undefined, error?: AppError): PageAnswer;
}

export function registerFilteredList<T>({ router, context, send, signedIn }: ConsoleDeps, list: FilteredList<T>): void {
  const checkFilters = context.validator.queryCheck(list.parameters);
  router.get(list.path, async (req, res) => {
    const staff = await signedIn(req, res);
    if (!staff) return;
    try {
      // The filter form sends its empty fields too; they mean no filter.
      checkFilters(Object.fromEntries(Object.entries(req.query).filter(([, value]) => value !== '')));
      await send(req, res, list.render(req, staff, await list.load(req, staff)));
    } catch (error) {
      if (!(error instanceof AppError && error.kind === 'invalid_argument')) throw error;
      await send(req, res, list.render(req, staff, undefined, error));
    }
  });
}
