/**
 * The platform for checkout tests: every service in-process on the backend under test, the
 * sandbox provider over real HTTP, and a few test products whose prices sit on the pricing
 * edges (the £75 boundary, half-penny discounts) next to the demo catalog.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { type HttpClient, type TestResponse } from '@storefront/testing';
import { startStack, type ServiceName, type Stack, type StackOptions } from '@storefront/platform-testing';
import { parseCatalogFile } from '@storefront/inventory/src/catalog-file';
import { loyalty } from '@storefront/proto';
import type { Env } from '@storefront/config';
import { SANDBOX_API_KEY } from '@storefront/formats';
import type { Knex } from '@storefront/db';
import { AppError } from '@storefront/errors';
import type { PaymentSandbox } from '@storefront/payment-sandbox';
import type { Static } from '@storefront/gateway/src/kit/schema';
import type { OrderSummary as OrderSummarySchema } from '@storefront/gateway/src/application/orders';

export const EDGE_PRODUCT = 'edge-kit';
/** SKU → unit price in pence of the test products. `low` has 3 units in stock. */
export const EDGE_PRICES = {
  p7500: 7500,
  p7499: 7499,
  p8333: 8333,
  p8332: 8332,
  p1005: 1005,
  p1004: 1004,
  low: 1200,
} as const;
export const LOW_STOCK = 3;
export const sku = (size: keyof typeof EDGE_PRICES) => `${EDGE_PRODUCT}-${size}`;

export const PROVIDER_TIMEOUT_MS = 1500;

export const DELIVERY = {
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone: '+44 20 7946 0000',
  line1: '12 St James Square',
  city: 'London',
  postcode: 'SW1Y 4JH',
  country: 'GB',
};

export interface CheckoutResult {
  id: string;
  status: string;
  amount: number;
  currency: string;
  checkout_reference: string;
  hosted_checkout_url: string;
  order_saved: boolean;
  order: OrderSummary & { reservedUntil: string };
}

/** An order as the public API shows it in every answer that carries one: the gateway's schema, not a copy. */
export type OrderSummary = Omit<Static<typeof OrderSummarySchema>, 'reservedUntil'>;

export interface ErrorResult {
  success: false;
  error: string;
  detail: string;
}

/**
 * The reconciler's timer is slowed right down so each test runs a pass when it chooses;
 * the provider time-out is short so failure tests stay quick. Webhooks default to a refused
 * address unless a test names the gateway as return_url. The test client is a trusted proxy,
 * so each request can name its client address in X-Forwarded-For.
 */
export async function startCheckoutStack(
  env: Env = {},
  services?: ServiceName[],
  options: Pick<StackOptions, 'stores' | 'now' | 'layout'> = {},
): Promise<Stack> {
  const stack = await startStack({
    ...options,
    services,
    // PROMO_CACHE_MS=0: tests write codes straight to the store and check them at once.
    env: {
      RECONCILE_INTERVAL_MS: '3600000',
      PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
      PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      TRUSTED_PROXIES: '127.0.0.1',
      PROMO_CACHE_MS: '0',
      ...env,
    },
  });
  await stack.inventory!.store.importCatalog(
    parseCatalogFile({
      products: [
        {
          id: EDGE_PRODUCT,
          name: 'Pricing edge test kit',
          description: 'Test product',
          sizes: Object.entries(EDGE_PRICES).map(([size, pence]) => ({
            size,
            price: pence / 100,
            ...(size === 'low' ? { stock: LOW_STOCK } : {}),
          })),
        },
      ],
    }),
  );
  return stack;
}

/**
 * A second checkout server on the first stack's store, in front of the same inventory, loyalty and
 * provider, with its own gateway: another replica.
 */
export function startCheckoutReplica(
  first: Stack,
  env: Env = {},
  options: Pick<StackOptions, 'now'> = {},
): Promise<Stack> {
  return startStack({
    ...options,
    replicaOf: first,
    services: first.layout === 'split' ? ['checkout'] : undefined,
    env: {
      RECONCILE_INTERVAL_MS: '3600000',
      PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
      PUBLIC_BASE_URL: 'http://127.0.0.1:9',
      TRUSTED_PROXIES: '127.0.0.1',
      ...env,
    },
  });
}

/** A new stock-limited SKU with `units` on hand at `unitPence` a unit, so each test starts from a known stock. */
export async function limitedSku(stack: Stack, units: number, unitPence = 1000): Promise<string> {
  const id = `drop-${randomBytes(4).toString('hex')}`;
  await stack.inventory!.store.importCatalog(
    parseCatalogFile({
      products: [
        {
          id,
          name: 'Limited drop',
          description: 'Test product',
          sizes: [{ size: 'one', price: unitPence / 100, stock: units }],
        },
      ],
    }),
  );
  return `${id}-one`;
}

/** `quantity` of a SKU at £10.00 a unit (`limitedSku`'s default), plus £4.95 shipping under £75. */
export function limitedBody(stockSku: string, quantity: number, extra: Record<string, unknown> = {}) {
  const goods = 1000 * quantity;
  return checkoutBody((goods + (goods >= 7500 ? 0 : 495)) / 100, [{ sku: stockSku, quantity }], extra);
}

export const newReference = (label = 'order') => `${label}-${randomBytes(6).toString('hex')}`;

export function checkoutBody(
  amount: number,
  items: Array<{ sku: string; quantity: number }>,
  extra: Record<string, unknown> = {},
) {
  return {
    checkout_reference: newReference(),
    amount,
    currency: 'GBP',
    merchant_code: 'MSTOREFRONT',
    description: 'Research peptides',
    items,
    delivery: DELIVERY,
    ...extra,
  };
}

let clientsSoFar = 0;
/** A client address of its own (198.18.0.0/15, for tests) each time it is called. */
export function newClientAddress(): string {
  clientsSoFar += 1;
  return `198.18.${(clientsSoFar >> 8) & 0xff}.${clientsSoFar & 0xff}`;
}

/** Comes from a new client address unless `from` names one, so tests not about limits stand for many customers. */
export function createCheckout(
  client: HttpClient,
  body: unknown,
  from = newClientAddress(),
): Promise<TestResponse<CheckoutResult & ErrorResult>> {
  return client.post<CheckoutResult & ErrorResult>('/api/create-checkout', body, { 'x-forwarded-for': from });
}

export async function expectCheckout(client: HttpClient, body: unknown, from?: string): Promise<CheckoutResult> {
  const res = await createCheckout(client, body, from);
  expect(res.status, res.text).to.equal(200);
  return res.body;
}

/** Busy answers a sign-up may get on loaded cores before it is let through, each after its Retry-After. */
const SIGN_UP_BUSY_RETRIES = 3;

/**
 * Signs the client up (its cookie jar keeps the session) and answers the account id. A busy password hasher's 503
 * is retried after its Retry-After, as a client would: tests that run on busy cores sign up too.
 */
export async function signUp(client: HttpClient): Promise<string> {
  const body = {
    email: `buyer-${randomBytes(5).toString('hex')}@example.com`,
    password: 'correct horse battery',
    firstName: 'Grace',
    lastName: 'Hopper',
  };
  for (let busy = 0; ; busy += 1) {
    const res = await client.post<{ user: { profile: { id: string } } }>('/api/auth/signup', body);
    if (res.status === 503 && busy < SIGN_UP_BUSY_RETRIES) {
      await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
      continue;
    }
    expect(res.status, res.text).to.equal(200);
    return res.body.user.profile.id;
  }
}

/** Gives the signed-up customer enough points, redeems the 10% reward and answers its code. */
export async function redeemReward(stack: Stack, client: HttpClient, userId: string): Promise<string> {
  const rpc = stack.clientOf('loyalty', loyalty.LoyaltyServiceService, 'checkout');
  try {
    await rpc.awardPurchase({ orderNumber: '', orderId: `seed-${userId}`, userId, amountPence: 40_000 });
  } finally {
    rpc.close();
  }
  expect(
    (await client.post('/api/state/sync', { loyalty: { redeemedRewards: [{ rewardId: 'ten-percent-off' }] } })).status,
  ).to.equal(200);
  const me = await client.get<{ loyalty: { redeemedRewards: Array<{ code: string }> } }>('/api/auth/me');
  return me.body.loyalty.redeemedRewards[0]!.code;
}

export async function loyaltyPoints(client: HttpClient): Promise<number> {
  const res = await client.get<{ loyalty: { points: number } }>('/api/auth/me');
  expect(res.status, res.text).to.equal(200);
  return res.body.loyalty.points;
}

/** What a person does on the hosted page: press Pay or Decline. */
export async function completePayment(hostedCheckoutUrl: string, action: 'pay' | 'decline'): Promise<void> {
  const res = await fetch(hostedCheckoutUrl, {
    method: 'POST',
    body: new URLSearchParams({ action }),
    redirect: 'manual',
  });
  expect(res.status).to.be.oneOf([200, 303]);
}

/** Both buyer statements ticked, as a form posts them. */
export const STATEMENTS_TICKED: Record<string, string> = { research_use_only: 'yes', adult: 'yes' };

/**
 * What the person does for an order placed through the API: ticks both buyer statements on its order page (from the
 * shop's own origin, startCheckoutStack's PUBLIC_BASE_URL unless told, as a browser on the page posts it). `client`
 * must be able to read the order: its account's session for an account's order.
 */
export async function confirmOnOrderPage(
  client: HttpClient,
  reference: string,
  origin = 'http://127.0.0.1:9',
): Promise<void> {
  const res = await client.request<string>('POST', `/orders/${encodeURIComponent(reference)}/confirm`, {
    body: new URLSearchParams(STATEMENTS_TICKED).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin,
      'x-forwarded-for': newClientAddress(),
    },
  });
  expect(res.status, res.text).to.equal(303);
}

/** A 429 `too_many_attempts` Error whose Retry-After is whole seconds, at most `maxRetryAfterSeconds`. */
export function expectLimited(res: TestResponse<unknown>, maxRetryAfterSeconds: number): void {
  expect(res.status, res.text).to.equal(429);
  const body = res.body as ErrorResult;
  expect(body).to.deep.include({ success: false, error: 'too_many_attempts' });
  expect(body.detail).to.be.a('string').and.not.empty;
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter), `Retry-After ${res.headers.get('retry-after')}`).to.equal(true);
  expect(retryAfter).to.be.within(1, maxRetryAfterSeconds);
}

/** The sandbox's own record of a provider checkout, read from its API: its status and payment transactions. */
export async function providerCheckout(
  stack: Stack,
  id: string,
): Promise<{ status: string; transactions: Array<{ id: string; refunded_amount: number }> }> {
  const res = await fetch(`${stack.paymentSandbox!.url}/v0.1/checkouts/${id}`, {
    headers: { authorization: `Bearer ${SANDBOX_API_KEY}` },
  });
  return (await res.json()) as { status: string; transactions: Array<{ id: string; refunded_amount: number }> };
}

export async function stockOf(client: HttpClient, stockSku: string): Promise<number> {
  const res = await client.get<Record<string, number>>('/api/stock');
  return res.body[stockSku]!;
}

/** The count of rows in a checkout table, straight from the store. */
export async function countRows(stack: Stack, table: string, where: Record<string, string> = {}): Promise<number> {
  const row = await stack.checkout!.db(table).where(where).count({ n: '*' }).first();
  return Number(row?.n ?? 0);
}

/** Polls `condition` every 100 ms until it holds and answers how long that took; fails after `withinMs`. */
export async function eventually(
  condition: () => Promise<boolean>,
  withinMs = 5000,
  what = 'condition',
): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await condition()) return Date.now() - started;
    if (Date.now() - started > withinMs) throw new Error(`${what} not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface Backlog {
  createdAt: number;
  reservedUntil: number;
  label: string;
  /** Gives each order a pending checkout at the provider. */
  sandbox?: PaymentSandbox;
}

/** Open orders written straight into the store as a long backlog. */
export async function insertOpenOrders(db: Knex, count: number, options: Backlog): Promise<string[]> {
  const rows = Array.from({ length: count }, (_, index) => {
    const reference = `${options.label}-${index}-${randomUUID().slice(0, 8)}`;
    const checkout = options.sandbox?.prepareCheckout({
      checkout_reference: reference,
      amount: 10,
      currency: 'GBP',
      merchant_code: 'MSTOREFRONT',
    });
    return {
      id: randomUUID(),
      reference,
      fingerprint: 'backlog',
      status: 'pending_payment',
      provider: 'sandbox',
      provider_checkout_id: checkout?.id ?? null,
      provider_checkout_json: checkout ? JSON.stringify(checkout) : null,
      currency: 'GBP',
      goods_pence: 505,
      discount_pence: 0,
      shipping_pence: 495,
      total_pence: 1000,
      discount_basis_points: 0,
      delivery_name: DELIVERY.name,
      delivery_email: DELIVERY.email,
      delivery_line1: DELIVERY.line1,
      delivery_city: DELIVERY.city,
      delivery_postcode: DELIVERY.postcode,
      delivery_country: DELIVERY.country,
      reserved_until: options.reservedUntil,
      created_at: options.createdAt,
      updated_at: options.createdAt,
    };
  });
  for (let start = 0; start < rows.length; start += 500) {
    const chunk = rows.slice(start, start + 500);
    await db('orders').insert(chunk);
    await db('order_lines').insert(
      chunk.map((row) => ({ order_id: row.id, position: 0, sku: 'bpc-157-10mg', quantity: 1, unit_price_pence: 505 })),
    );
  }
  return rows.map((row) => row.id);
}

/** The number people read the order by (`SRS-10234`), as its mails and pages show it. */
export async function orderNumberOf(stack: Stack, reference: string): Promise<string> {
  return (await stack.checkout!.store.findByReference(reference))!.number;
}

/** The AppError a call was refused with; fails the test if the call succeeds or throws anything else. */
export async function refusal(call: Promise<unknown>): Promise<AppError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused');
}
