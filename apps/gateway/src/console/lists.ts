/**
 * What the console's searchable lists share (orders, the audit log): a GET form of filters that
 * the admin API's operation also takes, checked against the same OpenAPI parameters, newest
 * first a page at a time, and a refused filter shown above the list with its status.
 */
import type { Request } from 'express';
import { AppError } from '@storefront/errors';
import type { PageAnswer } from '../kit/respond';
import type { ConsoleDeps } from './pages';
import type { StaffCaller } from '../kit/staff-session';
import type { Parameter } from '../kit/validator';

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
