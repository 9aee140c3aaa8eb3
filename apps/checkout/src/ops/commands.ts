/**
 * Checkout's ops commands (dist/ops.js in the image, see main.ts): migrations, promo codes,
 * order look-ups and refunds, on checkout's own store; `orders show` also asks the payment
 * provider, and `orders refund` refunds through it with the console's own domain operation.
 */
import { createLogger } from '@storefront/logging';
import { AppError, invalidArgument } from '@storefront/errors';
import { migrationCommands, requiredOption, withStore, type OpsCommand, type OpsProgram } from '@storefront/lifecycle';
import { readCommon, type EnvReader } from '@storefront/config';
import { randomUUID } from 'node:crypto';
import { auditExportCommand, opsActor } from '@storefront/staff-audit';
import { readOrderNumbers, readProviderSettings, readPublicBaseUrl } from '../config';
import { CARRIER_MAX_LENGTH, OrderFulfilment, TRACKING_NUMBER_MAX_LENGTH } from '../domain/fulfilment';
import { FulfilmentStore } from '../stores/fulfilment';
import { Refunds } from '../domain/refunds';
import { refundMail } from '../domain/refund-mail';
import { RefundStore } from '../stores/refunds';
import { migrations } from '../migrations';
import { PromoAdmin } from '../stores/promo-admin';
import { CheckoutStore } from '../stores/checkout';
import type { Order } from '../domain/order';
import { SumUpApiProvider } from '../providers/sumup';
import { parsePromoTerms, type PromoCode, type PromoListing } from '../domain/promo';
import { formatPounds } from '../domain/pricing';
import { refundMessage } from '../messages';
import {
  GOV_UK_BANK_HOLIDAYS_URL,
  REPOSITORY_BANK_HOLIDAYS_FILE,
  bankHolidaysUrl,
  downloadBankHolidays,
  isUrl,
  replaceBankHolidays,
  replaceBankHolidaysFile,
} from '@storefront/dispatch-calendar';

/** `orders find` lists the newest this many. */
const FIND_LIMIT = 50;

const withCheckoutStore = <T>(env: EnvReader, work: (store: CheckoutStore) => Promise<T>) =>
  withStore(env, 'checkout', migrations, (db) => work(new CheckoutStore(db, readOrderNumbers(env))));
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
const pounds = (pence: number) => `£${(pence / 100).toFixed(2)}`;
const percent = (basisPoints: number) => `${basisPoints / 100}%`;

function promoView(promo: PromoCode | PromoListing) {
  return {
    code: promo.code,
    discountPercent: promo.discountBasisPoints / 100,
    activeFrom: iso(promo.activeFrom),
    activeUntil: iso(promo.activeUntil),
    maxRedemptions: promo.maxRedemptions ?? null,
    minOrderPence: promo.minGoodsPence ?? null,
    firstOrderOnly: promo.firstOrderOnly === true,
    usesPerAccount: promo.usesPerAccount ?? null,
    ...('redeemed' in promo
      ? {
          redeemed: promo.redeemed,
          held: promo.held,
          usableNow: promo.refusal === undefined,
          refusal: promo.refusal ?? null,
        }
      : {}),
  };
}

function describePromo(promo: PromoCode | PromoListing): string {
  const window = `${iso(promo.activeFrom)} – ${iso(promo.activeUntil) ?? 'no end'}`;
  const cap = promo.maxRedemptions === undefined ? 'no cap' : `cap ${promo.maxRedemptions}`;
  const conditions = [
    promo.minGoodsPence === undefined ? '' : `  goods from £${formatPounds(promo.minGoodsPence)}`,
    promo.firstOrderOnly ? '  first order only' : '',
    promo.usesPerAccount === undefined ? '' : `  ${promo.usesPerAccount} per account`,
  ].join('');
  const usage =
    'redeemed' in promo
      ? `, ${promo.redeemed} redeemed, ${promo.held} held by open orders, ${promo.refusal ?? 'usable now'}`
      : '';
  return `${promo.code}  ${percent(promo.discountBasisPoints)} off  ${window}  ${cap}${conditions}${usage}`;
}

/** What checkout recorded of the order's reservation and points; both live in other services' stores. */
function orderView(order: Order) {
  return {
    reference: order.reference,
    id: order.id,
    status: order.status,
    createdAt: iso(order.createdAt),
    account: order.accountId ?? null,
    email: order.delivery.email,
    lines: order.lines,
    totals: {
      goodsPence: order.goodsPence,
      discountPence: order.discountPence,
      shippingPence: order.shippingPence,
      totalPence: order.totalPence,
    },
    promoCode: order.promoCode ?? null,
    provider: order.provider,
    providerCheckoutId: order.providerCheckoutId ?? null,
    reservation: { heldUntil: iso(order.reservedUntil) ?? null, settledAt: iso(order.stockSettledAt) ?? null },
    // Whether it waited for stock (waiting, served, unserved) and why it closed, when that says more than its status.
    stockWait: order.stockWait ?? null,
    closeReason: order.closeReason ?? null,
    points: order.accountId ? { awardedAt: iso(order.pointsAwardedAt) ?? null } : null,
    closedAt: iso(order.closedAt) ?? null,
    dispatch: order.dispatch
      ? {
          ...order.dispatch,
          dispatchedAt: iso(order.dispatch.dispatchedAt),
          deliveredAt: iso(order.dispatch.deliveredAt) ?? null,
        }
      : null,
    cancelledAt: iso(order.cancelledAt) ?? null,
  };
}

function describeOrder(view: ReturnType<typeof orderView>, payment: Record<string, unknown>): string {
  const reservation = view.reservation.settledAt
    ? `settled at ${view.reservation.settledAt}`
    : view.reservation.heldUntil
      ? `held until ${view.reservation.heldUntil}`
      : 'none';
  const points = !view.points
    ? 'guest order, none'
    : view.points.awardedAt
      ? `awarded at ${view.points.awardedAt}`
      : 'not awarded yet';
  return [
    `order ${view.reference} (${view.id})`,
    `  status       ${view.status}${view.closedAt ? `, closed at ${view.closedAt}` : ''}`,
    `  created      ${view.createdAt}`,
    `  customer     ${view.email}${view.account ? ` (account ${view.account})` : ' (guest)'}`,
    ...view.lines.map((line) => `  line         ${line.quantity} × ${line.sku} at ${pounds(line.unitPricePence)}`),
    `  total        ${pounds(view.totals.totalPence)} (goods ${pounds(view.totals.goodsPence)}, ` +
      `discount ${pounds(view.totals.discountPence)}, shipping ` +
      `${pounds(view.totals.shippingPence)})${view.promoCode ? ` with ${view.promoCode}` : ''}`,
    '  payment      ' +
      `${
        'status' in payment
          ? `${String(payment.status)} at ${view.provider} (read now, checkout ` + `${view.providerCheckoutId})`
          : String(payment.detail)
      }`,
    `  reservation  ${reservation}`,
    `  points       ${points}`,
  ].join('\n');
}

/** The payment provider this process is configured for. */
function opsProvider(env: EnvReader): SumUpApiProvider {
  const settings = readProviderSettings(env);
  return new SumUpApiProvider(settings.provider, settings.providerTimeoutMs, opsLogger(env));
}

const opsLogger = (env: EnvReader) => createLogger('checkout', readCommon(env).logLevel, process.stderr);

/**
 * The console's order operations on checkout's store. Stock and codes of a cancelled order, and
 * a payment found at a cancel, are settled by the running service's reconciler: the order is
 * made due at once.
 */
function withFulfilment<T>(env: EnvReader, work: (fulfilment: OrderFulfilment) => Promise<T>): Promise<T> {
  return withCheckoutStore(env, (store) => {
    const provider = opsProvider(env);
    return work(
      new OrderFulfilment({
        store,
        fulfilment: new FulfilmentStore(store.db),
        providers: new Map([[provider.name, provider]]),
        mailQueued: () => undefined,
        settle: (order) => store.markDueNow(order.id),
        logger: opsLogger(env),
        now: Date.now,
      }),
    );
  });
}

/** The provider's status now; a provider that cannot answer is reported, not fatal. */
async function livePayment(order: Order, env: EnvReader): Promise<Record<string, unknown>> {
  if (!order.providerCheckoutId) return { detail: 'no provider checkout was created for this order' };
  const settings = readProviderSettings(env);
  if (settings.provider.name !== order.provider)
    return {
      detail: `the order was paid through ${order.provider}, this process is configured for ${settings.provider.name}`,
    };
  const provider = opsProvider(env);
  try {
    const checkout = await provider.getCheckout(order.providerCheckoutId);
    return { status: checkout.status, amountPence: checkout.amountPence, currency: checkout.currency };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { error: error.code, detail: `the provider did not answer: ${error.detail}` };
  }
}

/** `--restock SKU:qty[,SKU:qty...]` as refund lines. */
function parseRestock(option: string | true | undefined): Array<{ sku: string; quantity: number }> {
  if (option === undefined) return [];
  const invalid = new AppError(
    'invalid_argument',
    'invalid_refund_lines',
    '--restock must be SKU:quantity, several separated by commas (e.g. bpc-157-10mg:1)',
  );
  if (typeof option !== 'string') throw invalid;
  return option.split(',').map((part) => {
    const match = /^(.+):(\d{1,2})$/.exec(part.trim());
    if (!match) throw invalid;
    return { sku: match[1]!, quantity: Number(match[2]) };
  });
}

/** Pounds as typed (12.50) to pence; anything else names the option. */
function parseRefundAmount(text: string): number {
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(text))
    throw new AppError(
      'invalid_argument',
      'invalid_amount',
      `--amount must be in pounds and pence, such as 12.50, got "${text}"`,
    );
  return Math.round(Number(text) * 100);
}

const commands: OpsCommand[] = [
  {
    name: 'bank-holidays update',
    args: ['<file-or-url>'],
    summary:
      'replace the bank holidays dispatch dates skip with a GOV.UK bank-holidays.json (england-and-wales), ' +
      `a downloaded file or a URL such as ${GOV_UK_BANK_HOLIDAYS_URL}, after checking it; ` +
      "read by the shop's processes at their next start",
    async run({ args: [source], env }) {
      const target = env.optional('BANK_HOLIDAYS_FILE') ?? REPOSITORY_BANK_HOLIDAYS_FILE;
      let text: string | undefined;
      if (isUrl(source!)) {
        let url;
        try {
          url = bankHolidaysUrl(source!);
        } catch (error) {
          throw invalidArgument(`${(error as Error).message}; nothing changed`, 'bad_bank_holidays_url');
        }
        try {
          text = await downloadBankHolidays(url);
        } catch (error) {
          throw new AppError(
            'unavailable',
            'bank_holidays_unreachable',
            `${(error as Error).message}; nothing changed`,
          );
        }
      }
      let update;
      try {
        update =
          text === undefined ? replaceBankHolidaysFile(source!, target) : replaceBankHolidays(text, source!, target);
      } catch (error) {
        throw new AppError(
          'invalid_argument',
          'bad_bank_holidays_file',
          `${(error as Error).message}; nothing changed`,
        );
      }
      return {
        text:
          `${update.file} now lists ${update.holidays} bank holidays of England and Wales, up to ` +
          `${update.knownUntil}; restart the gateway and checkout to use them`,
        data: { ...update },
      };
    },
  },
  ...migrationCommands('checkout', migrations),
  auditExportCommand('checkout', migrations),
  {
    name: 'promo create',
    args: ['<code>'],
    summary: 'create a promo code (case-insensitive) with its discount, dates and optional redemption cap',
    options: {
      discount: { value: '<percent>', description: 'discount on the goods, e.g. 15 or 12.5% (required)' },
      from: {
        value: '<iso-date>',
        description: 'first moment it works, e.g. 2025-06-01 or 2025-06-01T09:00:00Z (default: now)',
      },
      until: { value: '<iso-date>', description: 'first moment it no longer works (default: no end)' },
      'max-redemptions': {
        value: '<n>',
        description: 'paid orders it may discount, open orders holding it included (default: no cap)',
      },
      'min-order': { value: '<pounds>', description: 'goods an order must reach before the discount, e.g. 50' },
      'first-order': { description: "only an account's first order may use it (the buyer signs in)" },
      'per-account': { value: '<n>', description: "how many of an account's orders may use it (the buyer signs in)" },
    },
    async run({ args: [code], options, env, actor }) {
      const text = (name: string) => (typeof options[name] === 'string' ? options[name] : undefined);
      const promo = parsePromoTerms(
        {
          code: code!,
          discount: requiredOption(options, 'discount'),
          from: text('from'),
          until: text('until'),
          maxRedemptions: text('max-redemptions'),
          minOrder: text('min-order'),
          firstOrderOnly: options['first-order'] !== undefined,
          usesPerAccount: text('per-account'),
        },
        Date.now(),
      );
      const created = await withCheckoutStore(env, (store) => new PromoAdmin(store.db).create(promo, opsActor(actor)));
      return { text: `created ${describePromo(created)}`, data: { promo: promoView(created) } };
    },
  },
  {
    name: 'promo expire',
    args: ['<code>'],
    summary: 'end a promo code now for new orders (open orders keep the price they were given)',
    async run({ args: [code], env, actor }) {
      const expired = await withCheckoutStore(env, (store) => new PromoAdmin(store.db).expire(code!, opsActor(actor)));
      return { text: `expired ${describePromo(expired)}`, data: { promo: promoView(expired) } };
    },
  },
  {
    name: 'promo list',
    summary: 'every promo code with its terms, paid redemptions, holds of open orders and whether it works now',
    async run({ env }) {
      const promos = await withCheckoutStore(env, (store) => new PromoAdmin(store.db).list());
      return {
        text: promos.length ? promos.map(describePromo).join('\n') : 'no promo codes',
        data: { promos: promos.map(promoView) },
      };
    },
  },
  {
    name: 'orders show',
    args: ['<reference>'],
    summary:
      'one order by its checkout reference: lines, totals, ' +
      "the provider's payment status read now, reservation and points",
    async run({ args: [reference], env }) {
      const order = await withCheckoutStore(env, (store) => store.findByReference(reference!));
      if (!order) throw new AppError('not_found', 'order_not_found', `no order has checkout reference "${reference}"`);
      const view = orderView(order);
      const payment = await livePayment(order, env);
      return { text: describeOrder(view, payment), data: { order: { ...view, payment } } };
    },
  },
  {
    name: 'orders find',
    summary: `orders delivered to an email address, newest first (at most ${FIND_LIMIT})`,
    options: { email: { value: '<address>', description: 'delivery email, any letter case (required)' } },
    async run({ options, env }) {
      const email = requiredOption(options, 'email');
      const orders = await withCheckoutStore(env, (store) => store.ordersWithEmail(email, FIND_LIMIT));
      const text = orders.length
        ? orders
            .map((order) => `${order.reference}  ${order.status}  ${pounds(order.totalPence)}  ${iso(order.createdAt)}`)
            .join('\n')
        : `no orders for ${email}`;
      return { text, data: { orders: orders.map(orderView) } };
    },
  },
  {
    name: 'orders dispatch',
    args: ['<reference>'],
    summary:
      'dispatch a paid order with its carrier and tracking number; the running service then records ' +
      'its batches as shipped and mails the customer once (repeating it changes nothing)',
    options: {
      carrier: { value: '<name>', description: `the carrier, up to ${CARRIER_MAX_LENGTH} characters (required)` },
      tracking: {
        value: '<number>',
        description:
          'the tracking number: letters, digits, spaces, dashes, up to ' + `${TRACKING_NUMBER_MAX_LENGTH} (required)`,
      },
    },
    async run({ args: [reference], options, env, actor }) {
      const order = await withFulfilment(env, (fulfilment) =>
        fulfilment.dispatch(
          reference!,
          requiredOption(options, 'carrier'),
          requiredOption(options, 'tracking'),
          opsActor(actor),
        ),
      );
      return {
        text:
          `order ${order.reference} ${order.status} with ${order.dispatch!.carrier}, tracking ` +
          `${order.dispatch!.trackingNumber}`,
        data: { order: orderView(order) },
      };
    },
  },
  {
    name: 'orders delivered',
    args: ['<reference>'],
    summary: 'mark a dispatched order delivered',
    async run({ args: [reference], env, actor }) {
      const order = await withFulfilment(env, (fulfilment) => fulfilment.markDelivered(reference!, opsActor(actor)));
      return { text: `order ${order.reference} ${order.status}`, data: { order: orderView(order) } };
    },
  },
  {
    name: 'orders cancel',
    args: ['<reference>'],
    summary:
      'cancel an unpaid order: its payment link stops taking payments; the running service gives its ' +
      'stock and code back at its next reconcile pass',
    async run({ args: [reference], env, actor }) {
      const order = await withFulfilment(env, (fulfilment) => fulfilment.cancel(reference!, opsActor(actor)));
      return { text: `order ${order.reference} ${order.status}`, data: { order: orderView(order) } };
    },
  },
  {
    name: 'orders refund',
    args: ['<reference>'],
    summary:
      'refund a paid order through the payment provider, in full or in part, as the actor; the ' +
      'running service returns the stock and reverses the points',
    options: {
      amount: { value: '<pounds>', description: 'what to give back, e.g. 12.50 (required)' },
      reason: { value: '<text>', description: "why, up to 200 characters; the customer's mail shows it (required)" },
      restock: { value: '<sku:qty,...>', description: 'lines whose units go back to stock (default: none)' },
      key: {
        value: '<key>',
        description: 'idempotency key: the same key asks about the same refund again (default: a new one)',
      },
    },
    async run({ args: [reference], options, env, actor }) {
      const settings = readProviderSettings(env);
      const publicBaseUrl = readPublicBaseUrl(env);
      const logger = createLogger('checkout', readCommon(env).logLevel, process.stderr);
      const request = {
        checkoutReference: reference!,
        amountPence: parseRefundAmount(requiredOption(options, 'amount')),
        reason: requiredOption(options, 'reason'),
        lines: parseRestock(options.restock),
        idempotencyKey: typeof options.key === 'string' ? options.key : randomUUID(),
      };
      const { refund } = await withCheckoutStore(env, (store) =>
        new Refunds({
          store,
          refunds: new RefundStore(store.db),
          providers: new Map([
            [settings.provider.name, new SumUpApiProvider(settings.provider, settings.providerTimeoutMs, logger)],
          ]),
          logger,
          now: Date.now,
          refundMail: (order, made) => refundMail(order, made, publicBaseUrl),
          // The running service's mail sender finds the queued mail.
          mailQueued: () => undefined,
          inFlightMs: 2 * settings.providerTimeoutMs,
        }).refundOrder(request, opsActor(actor)),
      );
      const text =
        `refund ${refund.id} of ${pounds(refund.amountPence)} for order ${reference}: ` +
        `${refund.state} (key ${request.idempotencyKey})`;
      return { text, data: { refund: refundMessage(refund), idempotencyKey: request.idempotencyKey } };
    },
  },
];

export const checkoutOps: OpsProgram = { app: 'checkout', commands };
