/** Who may call each checkout RPC: only the gateway; a customer is optional except for a customer's own list. */
import { accessTable } from '@storefront/grpc';
import { checkout } from '@storefront/proto';

export const CHECKOUT_ACCESS = accessTable(checkout.CheckoutServiceService, [
  { callers: ['gateway'], customer: 'optional', rpcs: ['createCheckout', 'validatePromo', 'getOrder', 'quoteOrder'] },
  { callers: ['gateway'], customer: 'none', rpcs: ['notifyPaymentEvent', 'getPricingPolicy'] },
  { callers: ['gateway'], customer: 'required', rpcs: ['listOrders'] },
]);
