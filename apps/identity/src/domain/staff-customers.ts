/**
 * Customers as the console's staff look them up: by exact email (any letter case, as sign-up
 * stores it lower-cased) or by account id. Answers the profile only, never a credential.
 */
import { invalidArgument, notFound } from '@storefront/errors';
import type { User, UserStore } from '../stores/users';
import { normaliseEmail } from './rules';

/** As long as the users table's id column. */
const ACCOUNT_ID_MAX_LENGTH = 36;

export class StaffCustomers {
  constructor(private readonly users: UserStore) {}

  async byEmail(rawEmail: string): Promise<User> {
    const email = normaliseEmail(rawEmail);
    const user = await this.users.findByEmail(email);
    if (!user) throw notFound(`no customer has the email ${email}`, 'customer_not_found');
    return user;
  }

  async byId(accountId: string): Promise<User> {
    if (accountId === '' || accountId.length > ACCOUNT_ID_MAX_LENGTH)
      throw invalidArgument(`account_id must be 1 to ${ACCOUNT_ID_MAX_LENGTH} characters`);
    const user = await this.users.findById(accountId);
    if (!user) throw notFound(`no customer has the account id ${accountId}`, 'customer_not_found');
    return user;
  }
}
