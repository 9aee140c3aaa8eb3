/**
 * Who may call each checkout RPC: only the gateway; a customer is optional except for a customer's own list; the
 * console's reads need a staff member.
 */
import { accessTable } from '@storefront/grpc';
import { checkout } from '@storefront/proto';

export const CHECKOUT_ACCESS = accessTable(checkout.CheckoutServiceService, [
  { callers: ['gateway'], customer: 'optional', rpcs: ['createCheckout', 'validatePromo', 'getOrder', 'quoteOrder'] },
  { callers: ['gateway'], customer: 'none', rpcs: ['notifyPaymentEvent', 'getPricingPolicy', 'getHeldStock'] },
  { callers: ['gateway'], customer: 'required', rpcs: ['listOrders'] },
  // The customer's erasure, driven by the edge for the account being erased (decision 1300).
  { callers: ['gateway'], customer: 'required', rpcs: ['eraseCustomerData', 'exportOrderRecords'] },
  // The buyer statements, confirmed by whoever may read the order: the gateway calls it from its page form only.
  { callers: ['gateway'], customer: 'optional', rpcs: ['confirmBuyer'] },
  // The customer's cancellation before dispatch, by whoever may read the order, from the gateway's page form only.
  { callers: ['gateway'], customer: 'optional', rpcs: ['cancelOrderAsCustomer'] },
  // A return after delivery, started by whoever may read the order, from the gateway's page form only.
  { callers: ['gateway'], customer: 'optional', rpcs: ['startReturnAsCustomer'] },
  // The console's returns: any staff member lists them; taking goods back refunds, so the owner decides.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['listReturnsForStaff'] },
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner'] },
    rpcs: ['receiveReturnForStaff', 'refuseReturnForStaff'],
  },
  // The console: any staff member reads orders.
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['listOrdersForStaff', 'getOrderForStaff'],
  },
  // The console's exports: any staff member who reads orders may export them, recorded first (decision 1315).
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['recordOrdersExport', 'countOrdersForStaff'],
  },
  // The console's overview: any staff member reads the sales figures.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['getSalesOverview'] },
  // The console's VAT report and its CSV: any staff member reads them, as the overview.
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['getVatReport', 'listVatDocuments'],
  },
  // The console's audit log: any staff member reads it.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['listStaffActions'] },
  // The console's mail log: any staff member reads it, as they read customers (decision 1305).
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['listMailLog', 'getMailForStaff'],
  },
  // Both roles dispatch, deliver and cancel orders.
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['dispatchOrder', 'markOrderDelivered', 'cancelOrder'],
  },
  // The dispatch queue, for those who dispatch.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['listDispatchQueue'] },
  // The console's promotions: any staff member reads them; only an owner changes them.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['listPromosForStaff'] },
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner'] },
    rpcs: ['createPromoForStaff', 'expirePromoForStaff'],
  },
  // Money goes back to the customer, and customers are told of a recall: the owner only.
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner'] },
    rpcs: ['refundOrder', 'sendRecallNotices'],
  },
]);
