/** Who may call each checkout RPC: only the gateway; a customer is optional except for a customer's own list. */
import type { AccessTable } from '@storefront/grpc';
import type { checkout } from '@storefront/proto';

export const CHECKOUT_ACCESS: AccessTable<typeof checkout.CheckoutServiceService> = {
  createCheckout: { callers: ['gateway'], customer: 'optional' },
  validatePromo: { callers: ['gateway'], customer: 'optional' },
  notifyPaymentEvent: { callers: ['gateway'], customer: 'none' },
  getOrder: { callers: ['gateway'], customer: 'optional' },
  listOrders: { callers: ['gateway'], customer: 'required' },
  getPricingPolicy: { callers: ['gateway'], customer: 'none' },
};
