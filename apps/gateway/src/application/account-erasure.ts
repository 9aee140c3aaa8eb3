/**
 * A customer's data rights, erasure (docs/decisions/1300): "Close my account". Checkout is asked first whether it would
 * refuse (an unpaid order, a pending refund: 409 saying which); then identity checks the password and, in one
 * transaction, closes the account and records a durable erasure. The edge then asks each other component to erase its
 * part and records each confirmation in identity; what fails now (a component down, a crash) is resumed by the erasure
 * pass, which every gateway replica runs: each step is idempotent, so replicas passing at once do no harm. Once every
 * component confirmed, identity queues the final mail and forgets the address.
 */
import type { StaffIdentity } from '@storefront/caller-token';
import type { identity } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { forgetAccount } from './accounts';

type ErasureContext = Pick<GatewayContext, 'clients' | 'logger' | 'revocations'>;

/** How many pending erasures one pass takes up. */
const ERASURES_PER_PASS = 50;

export interface ErasurePassSummary {
  completed: number;
  failures: number;
}

/** Closes the signed-in customer's account with their password, then erases what it can now. */
export async function closeAccount(
  context: ErasureContext,
  customer: string,
  password: string,
  clientAddress: string,
): Promise<void> {
  await context.clients.checkout.eraseCustomerData({ checkOnly: true }, { customer });
  const { accountId, email } = await context.clients.identity.closeAccount({ password, clientAddress }, { customer });
  await eraseClosedAccount(context, accountId, email);
}

/** The console: an owner closes a customer's account at their request, audited in identity; then the same erasure. */
export async function closeAccountForStaff(
  context: ErasureContext,
  accountId: string,
  staff: StaffIdentity,
): Promise<void> {
  await context.clients.checkout.eraseCustomerData({ checkOnly: true }, { customer: accountId });
  const { email } = await context.clients.identity.closeAccountForStaff({ accountId }, { staff });
  await eraseClosedAccount(context, accountId, email);
}

/** Every replica forgets the closed account's sessions; the components erase now what they can, the pass the rest. */
async function eraseClosedAccount(context: ErasureContext, accountId: string, email: string): Promise<void> {
  const { logger } = context;
  await forgetAccount(context, accountId);
  try {
    await advanceErasure(context, {
      accountId,
      email,
      checkoutErased: false,
      loyaltyErased: false,
      inventoryErased: false,
    });
  } catch (error) {
    logger.warn({ err: error }, 'an erasure could not be finished now; the erasure pass resumes it');
  }
}

/** One pass: every erasure some component has still to confirm is taken up again. */
export async function resumeErasures(context: ErasureContext): Promise<ErasurePassSummary> {
  const { erasures } = await context.clients.identity.listPendingErasures({ limit: ERASURES_PER_PASS });
  const summary: ErasurePassSummary = { completed: 0, failures: 0 };
  for (const erasure of erasures) {
    try {
      await advanceErasure(context, erasure);
      summary.completed += 1;
    } catch (error) {
      summary.failures += 1;
      context.logger.warn({ err: error }, 'an erasure step failed; the next pass tries again');
    }
  }
  return summary;
}

async function advanceErasure({ clients }: ErasureContext, erasure: identity.PendingErasure): Promise<void> {
  const customer = erasure.accountId;
  // The address's back-in-stock alerts (inventory knows addresses, not accounts).
  if (!erasure.inventoryErased) {
    if (erasure.email !== '') await clients.inventory.eraseBackInStockOf({ email: erasure.email });
    await clients.identity.recordErasureStep({ accountId: customer, component: 'inventory' });
  }
  if (!erasure.checkoutErased) {
    await clients.checkout.eraseCustomerData({ checkOnly: false }, { customer });
    await clients.identity.recordErasureStep({ accountId: customer, component: 'checkout' });
  }
  if (!erasure.loyaltyErased) {
    await clients.loyalty.eraseAccount({}, { customer });
  }
  // Recorded even when loyalty was confirmed before: the step that queues the final mail may have been cut short.
  await clients.identity.recordErasureStep({ accountId: customer, component: 'loyalty' });
}
