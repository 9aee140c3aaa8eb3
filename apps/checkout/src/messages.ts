/**
 * Checkout's domain values as the messages of its facade (storefront.checkout.v1): instants as
 * ISO-8601 text and absent values as the contract's empty ones. The only place besides server.ts
 * that speaks the generated types; the domain never does.
 */
import type { checkout } from '@storefront/proto';
import type { CheckoutAnswer, OrderQuote, PromoCheck } from './domain/checkout-service';
import type { OrderPage, OrderView } from './domain/orders';
import type { PromoListing } from './domain/promo';
import type { Refund } from './domain/refund';
import type { RefundAnswer } from './domain/refunds';
import type { ReturnListing } from './domain/returns';
import type { SalesOverview } from './domain/sales-overview';
import type { VatDocumentPage } from './domain/vat-report';
import type { StaffOrderView } from './domain/staff-orders';
import type { HeldStockView } from './domain/yielding';

/** An instant as the contract writes it; empty when there is none. */
const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());

export function orderSummary(order: OrderView['order']): checkout.OrderSummary {
  return {
    id: order.id,
    reference: order.reference,
    // The domain's line is the facade's, field for field, so a new line field needs no mapping here.
    items: order.lines,
    goodsPence: order.goodsPence,
    discountPence: order.discountPence,
    shippingPence: order.shippingPence,
    totalPence: order.totalPence,
    currency: order.currency,
    status: order.status,
    reservedUntil: iso(order.reservedUntil),
    waitingForStock: order.stockWait === 'waiting',
    closeReason: order.closeReason ?? '',
    buyerConfirmedAt: iso(order.buyerConfirmation?.at),
    buyerConfirmationVersion: order.buyerConfirmation?.version ?? '',
    orderNumber: order.number,
    receiptNumber: order.receiptNumber ?? 0,
    paidAt: iso(order.paidAt),
  };
}

export function checkoutAnswer({ order, providerCheckout }: CheckoutAnswer): checkout.CreateCheckoutResponse {
  return { providerCheckout, order: orderSummary(order) };
}

export function heldStockAnswer(held: HeldStockView[]): checkout.GetHeldStockResponse {
  return {
    held: held.map(({ sku, heldUnits, nextYieldAt, owedUnits }) => ({
      sku,
      heldUnits,
      nextYieldAt: iso(nextYieldAt),
      paidWaitingUnits: owedUnits,
    })),
  };
}

/** Field by field, so an in-process caller sees exactly what one over gRPC does. */
export function orderQuote({
  lines,
  goodsPence,
  discountPence,
  shippingPence,
  totalPence,
  promoCode,
  promoRefusal,
}: OrderQuote): checkout.QuoteOrderResponse {
  return {
    lines: lines.map(({ sku, quantity, unitPricePence, productName, size, vatRateBasisPoints }) => ({
      sku,
      quantity,
      unitPricePence,
      productName,
      size,
      vatRateBasisPoints,
    })),
    goodsPence,
    discountPence,
    shippingPence,
    totalPence,
    promoCode: promoCode ?? '',
    promoRefusal: promoRefusal ?? '',
  };
}

export function promoCheck({ valid, code, discountBasisPoints }: PromoCheck): checkout.ValidatePromoResponse {
  return { valid, code, discountBps: discountBasisPoints };
}

export function orderDetails({ order, paymentLink, delivery, dispatch, expected }: OrderView): checkout.OrderDetails {
  return {
    summary: orderSummary(order),
    paymentLink: paymentLink ?? '',
    createdAt: iso(order.createdAt),
    updatedAt: iso(order.updatedAt ?? order.createdAt),
    delivery,
    dispatch: dispatch && {
      carrier: dispatch.carrier,
      trackingNumber: dispatch.trackingNumber ?? '',
      dispatchedAt: iso(dispatch.dispatchedAt),
      deliveredAt: iso(dispatch.deliveredAt),
    },
    refundedPence: order.refundedPence,
    expectedDispatchOn: expected?.dispatchOn ?? '',
    expectedDeliveryOn: expected?.deliveryOn ?? '',
  };
}

export function orderPage(page: OrderPage<OrderView>): checkout.ListOrdersResponse {
  return { orders: page.orders.map(orderDetails), nextCursor: page.nextCursor };
}

export function staffOrder({ order, details, refunds }: StaffOrderView): checkout.StaffOrder {
  return {
    details: orderDetails(details),
    accountId: order.accountId ?? '',
    promoCode: order.promoCode ?? '',
    pointsAwardedAt: iso(order.pointsAwardedAt),
    paidAt: iso(order.paidAt),
    provider: order.provider,
    providerCheckoutId: order.providerCheckoutId ?? '',
    dispatchedBy: order.dispatch?.dispatchedBy ?? '',
    cancelledAt: iso(order.cancelledAt),
    refunds: refunds.map(refundMessage),
    creditNotes: creditNoteMessages(refunds),
  };
}

export function staffOrderPage(page: OrderPage<StaffOrderView>): checkout.ListOrdersForStaffResponse {
  return { orders: page.orders.map(staffOrder), nextCursor: page.nextCursor };
}

/** A refund as staff see it: who asked, never the idempotency key or the provider's transaction. */
export function refundMessage(refund: Refund): checkout.Refund {
  return {
    id: refund.id,
    amountPence: refund.amountPence,
    reason: refund.reason,
    lines: refund.lines,
    state: refund.state,
    failureCode: refund.failureCode ?? '',
    createdBy: refund.staff.email,
    createdAt: iso(refund.createdAt),
    updatedAt: iso(refund.updatedAt),
    creditNoteNumber: refund.creditNote?.number ?? 0,
  };
}

/** The credit notes of an order's succeeded refunds, by number (decision 1293). */
export function creditNoteMessages(refunds: readonly Refund[]): checkout.CreditNote[] {
  return refunds
    .filter((refund) => refund.creditNote)
    .sort((a, b) => a.creditNote!.number - b.creditNote!.number)
    .map((refund) => ({
      number: refund.creditNote!.number,
      issuedAt: iso(refund.creditNote!.issuedAt),
      amountPence: refund.amountPence,
      reason: refund.reason,
      lines: refund.lines,
      rates: refund.creditNote!.rates,
    }));
}

export function refundAnswer({ refund, order }: RefundAnswer): checkout.RefundOrderResponse {
  return { refund: refundMessage(refund), order: order && staffOrder(order) };
}

export function orderReturn(found: ReturnListing): checkout.OrderReturn {
  return {
    id: found.id,
    orderReference: found.orderReference,
    orderNumber: found.orderNumber,
    lines: found.lines,
    state: found.state,
    requestedAt: iso(found.requestedAt),
    decidedAt: iso(found.decidedAt),
    decidedBy: found.decidedBy ?? '',
    refundId: found.refundId ?? '',
    refusedReason: found.refusedReason ?? '',
  };
}

export function staffPromo(promo: PromoListing): checkout.StaffPromo {
  return {
    code: promo.code,
    discountBasisPoints: promo.discountBasisPoints,
    activeFrom: iso(promo.activeFrom),
    activeUntil: iso(promo.activeUntil),
    maxRedemptions: promo.maxRedemptions ?? 0,
    redeemed: promo.redeemed,
    held: promo.held,
    refusal: promo.refusal ?? '',
    minGoodsPence: promo.minGoodsPence ?? 0,
    firstOrderOnly: promo.firstOrderOnly === true,
    usesPerAccount: promo.usesPerAccount ?? 0,
  };
}

/** The overview's sums; the domain's day and SKU rows are the contract's, field for field. */
export function salesOverviewAnswer(overview: SalesOverview): checkout.GetSalesOverviewResponse {
  return {
    days: overview.days,
    skus: overview.skus,
    awaitingDispatch: overview.awaitingDispatch.count,
    oldestAwaitingPaidAt: iso(overview.awaitingDispatch.oldestPaidAt),
    asOf: iso(overview.asOf),
  };
}

export function vatDocumentPage(page: VatDocumentPage): checkout.ListVatDocumentsResponse {
  return {
    documents: page.documents.map((document) => ({ ...document, issuedAt: iso(document.issuedAt) })),
    nextAfterNumber: page.nextAfterNumber,
  };
}
