/**
 * Customers as the console's staff look them up: by exact email (any letter case, as sign-up
 * stores it lower-cased), by the start of a name, or by account id; and every account made over a period, newest first,
 * a page at a time, for the console's export (decision 1315). Answers the profile only, never a credential.
 */
import { invalidArgument, notFound } from '@storefront/errors';
import { ACCOUNT_BATCH_MAX, hasControlCharacters } from '@storefront/formats';
import { instantOption } from '@storefront/lifecycle';
import type { User, UserStore } from '../stores/users';
import { normaliseEmail } from './rules';

/** As long as the users table's id column. */
const ACCOUNT_ID_MAX_LENGTH = 36;
/** The export's pages of accounts: as many as the order counts and balances asked for them at once. */
const PAGE_DEFAULT = 50;
const PAGE_MAX = ACCOUNT_BATCH_MAX;
/** A name search: the words typed, and how many customers it answers. */
const NAME_SEARCH = { min: 2, max: 100, pageDefault: 20, pageMax: 50 };

/** The export's question: bounds as RFC 3339, a page size (0 for the default) and the previous page's cursor. */
export interface CustomerPageQuery {
  createdFrom: string;
  createdUntil: string;
  limit: number;
  cursor: string;
}

function cursorPosition(cursor: string): { createdAt: number; id: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const [createdAt, id] = Array.isArray(parsed) ? (parsed as unknown[]) : [];
  if (!Number.isSafeInteger(createdAt) || typeof id !== 'string' || id === '' || id.length > ACCOUNT_ID_MAX_LENGTH)
    throw invalidArgument("cursor is not valid; pass the previous page's next_cursor unchanged");
  return { createdAt: createdAt as number, id };
}

export class StaffCustomers {
  constructor(private readonly users: UserStore) {}

  async byEmail(rawEmail: string): Promise<User> {
    const email = normaliseEmail(rawEmail);
    const user = await this.users.findByEmail(email);
    if (!user) throw notFound(`no customer has the email ${email}`, 'customer_not_found');
    return user;
  }

  /** Customers whose name starts with `rawName` (any letter case, spaces collapsed), by name; `more` when cut. */
  async byName(rawName: string, limit: number): Promise<{ customers: User[]; more: boolean }> {
    const name = rawName.trim().replace(/\s+/g, ' ').toLowerCase();
    if (name.length < NAME_SEARCH.min || name.length > NAME_SEARCH.max || hasControlCharacters(name))
      throw invalidArgument(`name must be ${NAME_SEARCH.min} to ${NAME_SEARCH.max} characters`);
    if (!Number.isInteger(limit) || limit < 0 || limit > NAME_SEARCH.pageMax)
      throw invalidArgument(`limit must be a whole number from 1 to ${NAME_SEARCH.pageMax}`);
    const pageSize = limit === 0 ? NAME_SEARCH.pageDefault : limit;
    const found = await this.users.findByNamePrefix(name, pageSize + 1);
    return { customers: found.slice(0, pageSize), more: found.length > pageSize };
  }

  async byId(accountId: string): Promise<User> {
    if (accountId === '' || accountId.length > ACCOUNT_ID_MAX_LENGTH)
      throw invalidArgument(`account_id must be 1 to ${ACCOUNT_ID_MAX_LENGTH} characters`);
    const user = await this.users.findById(accountId);
    if (!user) throw notFound(`no customer has the account id ${accountId}`, 'customer_not_found');
    return user;
  }

  async createdBetween(query: CustomerPageQuery): Promise<{ customers: User[]; nextCursor: string }> {
    const { limit } = query;
    if (!Number.isInteger(limit) || limit < 0 || limit > PAGE_MAX)
      throw invalidArgument(`limit must be a whole number from 1 to ${PAGE_MAX}`);
    const pageSize = limit === 0 ? PAGE_DEFAULT : limit;
    const found = await this.users.createdBetween(
      instantOption(query.createdFrom, 'created_from'),
      instantOption(query.createdUntil, 'created_until'),
      pageSize + 1,
      query.cursor === '' ? undefined : cursorPosition(query.cursor),
    );
    const customers = found.slice(0, pageSize);
    const last = customers.at(-1);
    return {
      customers,
      nextCursor:
        found.length > pageSize && last
          ? Buffer.from(JSON.stringify([last.createdAt, last.id])).toString('base64url')
          : '',
    };
  }
}
