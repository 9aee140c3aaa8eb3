/**
 * `/checkout`: delivery details and the order as checkout prices it, placed through the same
 * create-checkout operation as the API, then on to the provider's hosted page. The form carries
 * what the shopper saw (the lines, the code, the total) and a checkout_reference made when the
 * form was shown, so sending it twice is one order: the second post replays the first
 * (docs/decisions/0922). When units of a line are held in other baskets, the form offers paying
 * now and waiting for them (docs/decisions/1141).
 */
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { HTTP_STATUS } from '@storefront/errors';
import type { checkout } from '@storefront/proto';
import { CreateCheckoutRequest, placeOrder, type CreateCheckoutBody } from '../application/place-order';
import { formatDiscount, formatPence, penceToPounds } from '../kit/money';
import { basketOf, isPromoCode, parseBasket, serialiseBasket, setBasket, type Basket } from '../kit/basket-cookie';
import { basketView, type BasketView, type ShopDeps } from './basket';
import { heldWords, yieldableUnits } from '../application/held-stock';
import { callerOf } from '../kit/caller';
import { buyerStatementsFieldset, untickedStatements, type StatementName } from '../kit/buyer-confirmation';
import { field, formError, inFormWords, isFormRefusal } from '../kit/forms';
import { html, prose } from '../kit/html';
import { SHOP_NAME } from '../kit/layout';
import { dispatchNote } from '../kit/dispatch-note';
import { rememberPlacedOrder } from '../kit/placed-order-cookie';
import type { PageAnswer, PageRoutes } from '../kit/respond';

/** The delivery fields: form name, label, the API's field, whether required, autocomplete token. */
const DELIVERY_FIELDS = [
  { name: 'name', label: 'Full name', required: true, type: 'text', autocomplete: 'name' },
  { name: 'email', label: 'Email', required: true, type: 'email', autocomplete: 'email' },
  { name: 'phone', label: 'Phone', required: false, type: 'tel', autocomplete: 'tel' },
  { name: 'line1', label: 'Address line 1', required: true, type: 'text', autocomplete: 'address-line1' },
  { name: 'line2', label: 'Address line 2', required: false, type: 'text', autocomplete: 'address-line2' },
  { name: 'city', label: 'City', required: true, type: 'text', autocomplete: 'address-level2' },
  { name: 'postcode', label: 'Postcode', required: true, type: 'text', autocomplete: 'postal-code' },
] as const;

type DeliveryForm = Partial<Record<(typeof DELIVERY_FIELDS)[number]['name'], string>>;

const FIELD_LABELS = Object.fromEntries(DELIVERY_FIELDS.map((entry) => [`delivery.${entry.name}`, entry.label]));

/** A fresh reference per form shown: 24 random characters, well inside the 90 allowed. */
const newCheckoutReference = () => `web-${randomBytes(15).toString('base64url')}`;

interface CheckoutForm {
  reference: string;
  basket: Basket;
  quote: checkout.QuoteOrderResponse;
  delivery: DeliveryForm;
  /** Lines short of free units that other baskets hold, in words: what paying and waiting is offered for. */
  heldLines: string[];
  /** Whether the buyer ticked paying and waiting (kept when the form comes back). */
  waitChosen: boolean;
  dispatchWords: string;
  error?: string;
  /** The buyer statements a refused post left unticked. */
  unticked?: StatementName[];
}

/**
 * The basket's lines short of free units whose units unpaid orders hold: "BPC-157 10mg: 3 held in other baskets, …".
 */
function heldLines({ quote, stock, held }: BasketView): string[] {
  const now = Date.now();
  return (quote?.lines ?? []).flatMap((line) => {
    const left = stock[line.sku];
    if (left === undefined || left >= line.quantity || yieldableUnits(held, line.sku) === 0) return [];
    return [`${line.productName} ${line.size}: ${heldWords(held.get(line.sku), now)}`];
  });
}

const WAIT_BOX = html`name="wait_for_stock" value="yes" aria-describedby="wait-terms"`;
const WAIT_TERMS = prose(
  html`Ticked, your order is placed without them and you pay now;`,
  html`it gets them ahead of any new order as soon as those baskets' holds end.`,
  html`If they never come back, you are refunded in full.`,
  html`Unticked, the order is placed only if the units are free when you place it.`,
);

/** The choice to pay now and wait for units other baskets hold (decision 1082), in plain words beside it. */
function payAndWaitChoice(lines: string[], chosen: boolean) {
  if (lines.length === 0) return '';
  const box = html`<input type="checkbox" id="wait_for_stock" ${WAIT_BOX}${chosen ? html` checked` : ''}>`;
  return html`<fieldset class="stock-wait"><legend>Held in other baskets</legend>
<ul>${lines.map((line) => html`<li>${line}</li>`)}</ul>
<div class="choice">${box}
<label for="wait_for_stock">Pay now and wait for the held units</label></div>
<p id="wait-terms">${WAIT_TERMS}</p>
</fieldset>`;
}

export function checkoutPage(
  { reference, basket, quote, delivery, heldLines: held, waitChosen, dispatchWords, error, unticked }: CheckoutForm,
  status = 200,
): PageAnswer {
  const lines = quote.lines.map((line) => {
    const amount = formatPence(line.unitPricePence * line.quantity);
    return html`<li>${line.quantity} × ${line.productName} ${line.size}: ${amount}</li>`;
  });
  const inputs = DELIVERY_FIELDS.map(({ name, label, type, autocomplete, required }) => {
    const value = delivery[name] ?? '';
    const rules = html`autocomplete="${autocomplete}"${required ? html` required` : ''}`;
    return html`<label for="${name}">${label}</label>
<input type="${type}" id="${name}" name="${name}" value="${value}" ${rules}>`;
  });
  return {
    title: 'Checkout',
    description: 'Delivery details and payment',
    caching: 'private',
    leadsToPayment: true,
    status,
    main: html`<h1>Checkout</h1>
${formError(error)}
<h2>Your order</h2>
<ul>${lines}</ul>
<p>Goods ${formatPence(quote.goodsPence)}${
      quote.discountPence > 0 ? `, discount ${formatDiscount(quote.discountPence)} ` + `(${quote.promoCode})` : ''
    }, shipping ${quote.shippingPence === 0 ? 'free' : formatPence(quote.shippingPence)}.</p>
<p><strong>Total ${formatPence(quote.totalPence)}</strong></p>
${dispatchNote(dispatchWords)}
<form method="post" action="/checkout">
<input type="hidden" name="checkout_reference" value="${reference}">
<input type="hidden" name="items" value="${serialiseBasket({ lines: basket.lines })}">
<input type="hidden" name="promo_code" value="${quote.promoCode}">
<input type="hidden" name="amount_pence" value="${quote.totalPence}">
<fieldset><legend>Delivery details (UK only)</legend>
${inputs}
</fieldset>
${payAndWaitChoice(held, waitChosen)}
${buyerStatementsFieldset(unticked)}
<p>You pay on the payment provider's secure page; then you come back here to your order.</p>
<button type="submit">Place order and pay</button>
</form>
<p><a href="/basket">Back to the basket</a></p>`,
  };
}

export function registerCheckoutPages({ router, form, send }: PageRoutes, deps: ShopDeps): void {
  const { context } = deps;

  router.get('/checkout', async (req, res) => {
    const view = await basketView(req, res, deps);
    if (!view.quote) return void res.redirect(303, '/basket');
    await send(
      req,
      res,
      checkoutPage({
        reference: newCheckoutReference(),
        basket: view.basket,
        quote: view.quote,
        dispatchWords: view.dispatchWords,
        delivery: await signedInDelivery(req, res),
        heldLines: heldLines(view),
        waitChosen: false,
      }),
    );
  });

  router.post('/checkout', ...form, async (req, res) => {
    const delivery: DeliveryForm = Object.fromEntries(
      DELIVERY_FIELDS.map((entry) => [entry.name, field(req, entry.name).trim()]),
    );
    const posted: Basket = {
      lines: parseBasket(field(req, 'items')).lines,
      ...(isPromoCode(field(req, 'promo_code')) ? { promoCode: field(req, 'promo_code') } : {}),
    };
    const reference = field(req, 'checkout_reference');
    const amountPence = Number(field(req, 'amount_pence'));
    const waitChosen = field(req, 'wait_for_stock') === 'yes';
    /** The form again, priced afresh, with what was typed kept. */
    const refuse = async (
      error: string | undefined,
      status: number,
      freshReference = false,
      unticked: StatementName[] = [],
    ) => {
      const view = await basketView(req, res, deps, posted.lines.length > 0 ? posted : basketOf(req));
      if (!view.quote) return void res.redirect(303, '/basket');
      await send(
        req,
        res,
        checkoutPage(
          {
            reference: freshReference ? newCheckoutReference() : reference,
            basket: view.basket,
            quote: view.quote,
            dispatchWords: view.dispatchWords,
            delivery,
            heldLines: heldLines(view),
            waitChosen,
            error,
            unticked,
          },
          status,
        ),
      );
    };
    if (posted.lines.length === 0 || !Number.isSafeInteger(amountPence) || amountPence <= 0) {
      return refuse('The order form was incomplete; check the order below and place it again.', 400, true);
    }
    // Nothing is saved until the person has ticked both statements (decision 1220).
    const unticked = untickedStatements(req);
    if (unticked.length > 0) return refuse(undefined, 400, false, unticked);
    const { catalog } = await deps.readShop();
    const body: CreateCheckoutBody = {
      checkout_reference: reference,
      amount: penceToPounds(amountPence),
      currency: catalog.currency,
      merchant_code: catalog.merchantCode,
      description: `Order from ${SHOP_NAME}`,
      redirect_url: new URL(`/orders/${encodeURIComponent(reference)}`, context.config.publicBaseUrl).href,
      items: posted.lines,
      delivery: {
        name: delivery.name ?? '',
        email: delivery.email ?? '',
        ...(delivery.phone ? { phone: delivery.phone } : {}),
        line1: delivery.line1 ?? '',
        ...(delivery.line2 ? { line2: delivery.line2 } : {}),
        city: delivery.city ?? '',
        postcode: delivery.postcode ?? '',
        country: 'GB',
      },
      ...(posted.promoCode ? { promo_code: posted.promoCode } : {}),
      ...(waitChosen ? { wait_for_stock: true } : {}),
    };
    try {
      // The API's own schema first, so the form is held to exactly what POST /api/create-checkout accepts.
      context.validator.check(CreateCheckoutRequest, body, 'body');
      const placed = await placeOrder(context, body, await callerOf(req, res, context), { buyerConfirmed: true });
      setBasket(res, { lines: [] });
      rememberPlacedOrder(res, reference, body.delivery);
      res.redirect(303, placed.hosted_checkout_url ?? `/orders/${encodeURIComponent(reference)}`);
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      // Nothing was charged: prices or stock changed, or a field is wrong. A field problem keeps the
      // reference (nothing was saved); anything else starts a new attempt at the fresh price.
      const fieldProblem = error.code === 'invalid_request' && error.detail.startsWith('delivery.');
      await refuse(
        inFormWords(error.detail, FIELD_LABELS),
        fieldProblem ? 400 : HTTP_STATUS[error.kind],
        !fieldProblem,
      );
    }
  });

  /** A signed-in customer's name and email to start from. */
  async function signedInDelivery(req: Request, res: Response): Promise<DeliveryForm> {
    const caller = await callerOf(req, res, context);
    if (!caller.customer) return {};
    const { profile } = await context.clients.identity.getProfile({}, { customer: caller.customer });
    return {
      name: `${profile!.firstName} ${profile!.lastName}`.trim(),
      email: profile!.email,
      phone: profile!.phone ?? '',
    };
  }
}
