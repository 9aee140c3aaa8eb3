/**
 * SumUp's checkout API over a small JSON client (decision 0987), pointed at the configured API
 * base. The sandbox provider speaks the same API, so the same adapter serves both; only the
 * base URL, key and merchant code differ.
 */
import { AppError } from '@storefront/errors';
import type { Logger } from '@storefront/logging';
import type { ProviderConfig } from '../config';
import { ProviderHttpClient, ProviderTimeout } from './provider-http';
import {
  PROVIDER_STATUSES,
  type ProviderName,
  ProviderRefusal,
  type NewProviderCheckout,
  type PaymentProvider,
  type ProviderCheckout,
  type ProviderStatus,
} from '../domain/payment-provider';

const DUPLICATED_CHECKOUT = 'DUPLICATED_CHECKOUT';

export class SumUpApiProvider implements PaymentProvider {
  readonly name: ProviderName;
  // Never retries: a blind retry of a create could outlive the request; retries stay with the caller.
  private readonly client: ProviderHttpClient;

  constructor(
    config: ProviderConfig,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {
    this.name = config.name;
    this.client = new ProviderHttpClient(config.apiBase, config.apiKey, timeoutMs);
  }

  async createCheckout(checkout: NewProviderCheckout): Promise<ProviderCheckout> {
    try {
      const created = await this.expectOk('POST', '/v0.1/checkouts', {
        checkout_reference: checkout.reference,
        amount: checkout.amountPence / 100,
        currency: checkout.currency,
        merchant_code: checkout.merchantCode,
        description: checkout.description,
        return_url: checkout.returnUrl,
        redirect_url: checkout.redirectUrl,
        valid_until: checkout.validUntil.toISOString(),
        hosted_checkout: { enabled: true },
      });
      return this.parse(created);
    } catch (error) {
      if (!isDuplicate(error)) throw this.translate('create', error);
    }
    // The provider already has a checkout for this reference: an earlier attempt created it
    // and its answer was lost. SumUp's 409 carries no id, so look it up by reference.
    const earlier = await this.findCheckout(checkout.reference);
    if (!earlier) {
      this.logger.error(
        { reference: checkout.reference },
        'the payment provider reported a duplicate checkout it then could not list',
      );
      throw new AppError(
        'provider_unavailable',
        'provider_unavailable',
        `The payment provider reported a checkout for reference ${checkout.reference} that it then ` +
          'could not find; try again with the same checkout_reference',
      );
    }
    const mismatch = adoptionMismatch(earlier, checkout);
    if (mismatch) {
      this.logger.error(
        { reference: checkout.reference, checkoutId: earlier.id, status: earlier.status, mismatch },
        'the provider checkout of an earlier attempt cannot be taken over',
      );
      throw new AppError(
        'provider_unavailable',
        'provider_checkout_mismatch',
        `The payment provider already holds checkout ${earlier.id} for reference ` +
          `${checkout.reference}, but ${mismatch}; the order needs an operator's attention`,
      );
    }
    this.logger.info(
      { reference: checkout.reference, checkoutId: earlier.id },
      'recovered the provider checkout of an earlier attempt',
    );
    return earlier;
  }

  async findCheckout(reference: string): Promise<ProviderCheckout | undefined> {
    const listed = await this.expectOk(
      'GET',
      `/v0.1/checkouts?checkout_reference=${encodeURIComponent(reference)}`,
    ).catch((error: unknown) => {
      throw this.translate('list', error);
    });
    const found = (Array.isArray(listed) ? (listed as unknown[]) : []).find(
      (candidate) => (candidate as Record<string, unknown> | null)?.checkout_reference === reference,
    );
    return found === undefined ? undefined : this.parse(found);
  }

  async getCheckout(id: string): Promise<ProviderCheckout> {
    try {
      return this.parse(await this.expectOk('GET', `/v0.1/checkouts/${encodeURIComponent(id)}`));
    } catch (error) {
      if (error instanceof ProviderErrorAnswer && error.status === 404)
        throw new AppError(
          'not_found',
          'provider_checkout_not_found',
          `The payment provider does not know checkout ${id}`,
        );
      throw this.translate('get', error);
    }
  }

  async deactivateCheckout(id: string): Promise<ProviderCheckout> {
    try {
      return this.parse(await this.expectOk('DELETE', `/v0.1/checkouts/${encodeURIComponent(id)}`));
    } catch (error) {
      // Already paid or closed: the current state is the answer.
      if (error instanceof ProviderErrorAnswer && error.status === 409) return this.getCheckout(id);
      throw this.translate('deactivate', error);
    }
  }

  async refundTransaction(transactionId: string, amountPence: number): Promise<void> {
    const res = await this.client
      .send('POST', `/v0.1/me/refund/${encodeURIComponent(transactionId)}`, { amount: amountPence / 100 })
      .catch((error: unknown) => {
        throw this.translate('refund', error);
      });
    if (isOk(res.status)) return;
    if (res.status >= 400 && res.status < 500 && res.status !== 429) {
      const code = providerCode(res.body) ?? `HTTP_${res.status}`;
      this.logger.warn({ transactionId, status: res.status, code }, 'the payment provider refused a refund');
      throw new ProviderRefusal(code, 'refund', res.status);
    }
    throw new AppError(
      'provider_unavailable',
      'provider_unavailable',
      `The payment provider failed (${res.status}) on the refund; its outcome is checked before anything is sent again`,
    );
  }

  async refundedPence(transactionId: string): Promise<number> {
    const res = await this.client
      .send('GET', `/v0.1/me/transactions?id=${encodeURIComponent(transactionId)}`)
      .catch((error: unknown) => {
        throw this.translate('transaction', error);
      });
    if (!isOk(res.status) || typeof res.body !== 'object' || res.body === null) {
      throw new AppError(
        'provider_unavailable',
        'provider_unavailable',
        `The payment provider could not show transaction ${transactionId} (${res.status})`,
      );
    }
    return refundedOf(res.body as Record<string, unknown>);
  }

  /** The body of a 2xx answer; any other status is a ProviderErrorAnswer carrying the provider's error body. */
  private async expectOk(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await this.client.send(method, path, body);
    if (!isOk(res.status)) throw new ProviderErrorAnswer(res.status, res.body);
    return res.body;
  }

  private parse(body: unknown): ProviderCheckout {
    const raw = body as Record<string, unknown> | undefined;
    const id = raw?.id;
    const status = raw?.status;
    const amount = raw?.amount;
    if (typeof id !== 'string' || !PROVIDER_STATUSES.includes(status as ProviderStatus) || typeof amount !== 'number') {
      throw new AppError(
        'provider_unavailable',
        'provider_unavailable',
        'The payment provider sent a checkout without id, status or amount',
      );
    }
    return {
      id,
      reference: String(raw!.checkout_reference ?? ''),
      status: status as ProviderStatus,
      amountPence: Math.round(amount * 100),
      currency: String(raw!.currency ?? ''),
      raw: raw!,
    };
  }

  /** Every provider failure becomes a 502-kind AppError whose detail is safe to show. */
  private translate(operation: string, error: unknown): AppError {
    if (error instanceof AppError) return error;
    if (error instanceof ProviderErrorAnswer) {
      const message = providerMessage(error.body);
      if (error.status >= 500 || error.status === 429) {
        return new AppError(
          'provider_unavailable',
          'provider_unavailable',
          `The payment provider failed (${error.status}) on ${operation}; try again with the same checkout_reference`,
        );
      }
      this.logger.error({ operation, status: error.status, message }, 'the payment provider refused a request');
      return new AppError(
        'provider_unavailable',
        'provider_rejected',
        `The payment provider refused the ${operation} (${error.status})${message ? `: ${message}` : ''}`,
      );
    }
    if (error instanceof ProviderTimeout) {
      return new AppError(
        'provider_unavailable',
        'provider_unavailable',
        `The payment provider did not answer the ${operation} within ${this.timeoutMs} ms; try again ` +
          'with the same checkout_reference',
      );
    }
    return new AppError(
      'provider_unavailable',
      'provider_unavailable',
      `The payment provider could not be reached for the ${operation}; try again with the same checkout_reference`,
    );
  }
}

/** A non-2xx answer of a call that expects a checkout. */
class ProviderErrorAnswer extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`the payment provider answered ${status}`);
  }
}

function isOk(status: number): boolean {
  return status >= 200 && status < 300;
}

/**
 * Why the checkout an earlier attempt left at the provider cannot stand for this one, if it
 * cannot: only a checkout still open for payment, of the same amount and currency for the
 * same merchant, is the one this order would have created.
 */
function adoptionMismatch(earlier: ProviderCheckout, wanted: NewProviderCheckout): string | undefined {
  if (earlier.status !== 'PENDING') return `it is ${earlier.status}, not PENDING`;
  if (earlier.amountPence !== wanted.amountPence || earlier.currency !== wanted.currency) {
    return (
      `it is for ${formatMoney(earlier.amountPence, earlier.currency)}, not ` +
      `${formatMoney(wanted.amountPence, wanted.currency)}`
    );
  }
  const merchantCode = earlier.raw.merchant_code;
  if (merchantCode !== wanted.merchantCode)
    return `it is for merchant ${String(merchantCode)}, not ${wanted.merchantCode}`;
  return undefined;
}

function formatMoney(pence: number, currency: string): string {
  return `${(pence / 100).toFixed(2)} ${currency}`;
}

/** A transaction's refunded total in pence: its `refunded_amount`, or else the sum of its successful REFUND events. */
function refundedOf(transaction: Record<string, unknown>): number {
  if (typeof transaction.refunded_amount === 'number') return Math.round(transaction.refunded_amount * 100);
  const events = Array.isArray(transaction.events) ? (transaction.events as Array<Record<string, unknown>>) : [];
  return events
    .filter((event) => event.type === 'REFUND' && event.status !== 'FAILED' && typeof event.amount === 'number')
    .reduce((sum, event) => sum + Math.round((event.amount as number) * 100), 0);
}

/** The provider's error code, never its text: `{error_code}` or problem JSON's `type`/`title`. */
function providerCode(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { error_code: code, title } = body as Record<string, unknown>;
  const found = typeof code === 'string' ? code : typeof title === 'string' ? title : undefined;
  return found?.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
}

function isDuplicate(error: unknown): boolean {
  if (!(error instanceof ProviderErrorAnswer) || error.status !== 409) return false;
  const body = error.body as { error_code?: unknown } | undefined;
  return typeof body === 'object' && body !== null && body.error_code === DUPLICATED_CHECKOUT;
}

/** SumUp errors come as `{error_code, message}` or RFC 9457 problem JSON. */
function providerMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { message, detail, title, error_code: code } = body as Record<string, unknown>;
  const text = [code, message ?? detail ?? title].filter((part) => typeof part === 'string').join(': ');
  return text === '' ? undefined : text.slice(0, 200);
}
