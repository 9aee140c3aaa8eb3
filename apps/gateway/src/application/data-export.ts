/**
 * A customer's data rights, access: everything the shop holds about the signed-in customer, as one JSON document
 * assembled from every component through its facade (docs/decisions/1240). Identity's part comes first, whole (and
 * records the request); the document is then written as it is read, loyalty's records and the orders a page at a time,
 * so no export is ever held in memory at once.
 */
import { isStoreOutage, storeUnavailable } from '@storefront/errors';
import { countAttempt, counterKey } from '@storefront/rate-limit';
import type { checkout, identity, inventory, loyalty } from '@storefront/proto';
import type { GatewayContext } from '../context';
import type { DownloadSink } from '../kit/download';
import { component, standaloneJsonSchema, StringEnum, Type, type Static } from '../kit/schema';
import { formatReceiptNumber } from '@storefront/formats';
import { penceToPounds as pounds } from '../kit/money';
import { orderDetailsView, OrderDetails } from './orders';
import { Profile, profileView } from './profile';

const time = (description?: string) => Type.String({ format: 'date-time', ...(description ? { description } : {}) });

const MarketingConsentRecord = component(
  'MarketingConsentRecord',
  Type.Object(
    {
      granted: Type.Boolean(),
      wordingVersion: Type.String({ description: 'The version of the wording the customer was shown' }),
      recordedAt: time(),
      source: StringEnum(['signup', 'account', 'unsubscribe']),
    },
    { additionalProperties: false },
  ),
);

const LOYALTY_RECORD_KINDS = ['account', 'ledgerEntry', 'redemption', 'refundReversal', 'referral'] as const;

export const DataExport = component(
  'DataExport',
  Type.Object(
    {
      exportedAt: time(),
      profile: Profile,
      marketingConsents: Type.Array(MarketingConsentRecord, {
        description: 'Every grant and withdrawal, oldest first',
      }),
      sessions: Type.Array(Type.Object({ createdAt: time(), expiresAt: time() }, { additionalProperties: false }), {
        description: 'Live sessions: their times (no address is kept with a session)',
      }),
      mails: Type.Array(
        Type.Object(
          {
            subject: Type.String(),
            createdAt: time('When the mail was queued'),
            sentAt: Type.Optional(time('When it was sent; absent while it waits')),
          },
          { additionalProperties: false },
        ),
        {
          description:
            "Mails sent to the account's address and about its orders, oldest first: subject and times (bodies are " +
            'not kept once sent)',
        },
      ),
      staffActions: Type.Array(
        Type.Object(
          {
            at: time(),
            role: Type.String({ description: "The staff member's role" }),
            action: Type.String(),
            before: Type.Optional(Type.Unknown({ description: 'The record before the action' })),
            after: Type.Optional(Type.Unknown({ description: 'The record after the action' })),
          },
          { additionalProperties: false },
        ),
        {
          description: "Staff actions on the account and its orders, newest first (not the staff member's own details)",
        },
      ),
      receipts: Type.Array(
        Type.Object(
          {
            number: Type.String({ description: 'As printed on it, e.g. R-000123' }),
            orderReference: Type.String(),
            orderNumber: Type.String(),
            issuedAt: Type.Optional(time('When the payment was confirmed (the date of supply)')),
            total: Type.Number({ description: 'What was paid, in pounds' }),
            url: Type.String({ description: 'Where the receipt is read, as a page or (with .pdf) a PDF' }),
          },
          { additionalProperties: false },
        ),
        { description: 'The receipts issued for the paid orders, by number' },
      ),
      returns: Type.Array(
        Type.Object(
          {
            orderReference: Type.String(),
            orderNumber: Type.String(),
            lines: Type.Array(
              Type.Object(
                { sku: Type.String(), quantity: Type.Integer({ minimum: 1 }) },
                { additionalProperties: false },
              ),
            ),
            state: StringEnum(['requested', 'refunded', 'refused'] as const),
            requestedAt: time(),
            decidedAt: Type.Optional(time('When the shop refunded or refused it')),
            refusedReason: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        { description: 'The returns of the orders, oldest first' },
      ),
      backInStockAlerts: Type.Array(
        Type.Object(
          {
            sku: Type.String(),
            state: StringEnum(['pending', 'active', 'mailed', 'ended'] as const),
            consentVersion: Type.String({ description: 'The wording the person agreed to' }),
            createdAt: time(),
            confirmedAt: Type.Optional(time()),
            expiresAt: time(),
          },
          { additionalProperties: false },
        ),
        { description: "Back-in-stock alerts asked for with the account's address, oldest first" },
      ),
      loyalty: Type.Array(
        Type.Object(
          {
            kind: StringEnum(LOYALTY_RECORD_KINDS),
            record: Type.Object({}, { additionalProperties: true, description: "The record in loyalty's words" }),
          },
          { additionalProperties: false },
        ),
        { description: 'The loyalty account, then every ledger entry, redemption, refund reversal and referral' },
      ),
      orders: Type.Array(OrderDetails, {
        description: 'Every order the account placed, newest first, with lines, delivery, dispatch and refunds',
      }),
    },
    {
      additionalProperties: false,
      description: 'Everything the shop holds about the signed-in customer (docs/schemas/data-export.schema.json)',
    },
  ),
);

/** Where the document's JSON Schema is kept, from the repository's root. */
export const DATA_EXPORT_SCHEMA_FILE = 'docs/schemas/data-export.schema.json';

/** The document's JSON Schema on its own, as the repository keeps it. */
export function dataExportJsonSchema(): Record<string, unknown> {
  return standaloneJsonSchema(DataExport, 'https://storefront.invalid/schemas/data-export.schema.json');
}

type ExportContext = Pick<GatewayContext, 'clients' | 'config' | 'counters' | 'now'>;

/**
 * Counts the export against DATA_EXPORTS_PER_ACCOUNT (429 past it) and reads identity's part: until then nothing is
 * written, so a refusal is an ordinary error answer. The returned writer streams the document.
 */
export async function startDataExport(
  context: ExportContext,
  customer: string,
): Promise<(sink: DownloadSink) => Promise<void>> {
  try {
    await countAttempt(
      context.counters,
      [{ key: counterKey('data-export', customer), limit: context.config.dataExportsPerAccount }],
      context.now(),
      'data exports for this account',
    );
  } catch (error) {
    if (isStoreOutage(error)) throw storeUnavailable('gateway');
    throw error;
  }
  const [identityPart, orderRecords] = await Promise.all([
    context.clients.identity.exportAccountData({}, { customer }),
    context.clients.checkout.exportOrderRecords({}, { customer }),
  ]);
  // Inventory knows the alerts by address, not by account.
  const { subscriptions } = await context.clients.inventory.listBackInStockOf({ email: identityPart.profile!.email });
  return (sink) =>
    writeDataExport(
      context,
      customer,
      { ...identityPart, ...mergedRecords(identityPart, orderRecords) },
      orderRecords,
      subscriptions,
      sink,
    );
}

/**
 * Identity's mails and staff actions on the account with checkout's on its orders: mails oldest first, actions newest.
 */
function mergedRecords(
  account: identity.ExportAccountDataResponse,
  orders: checkout.ExportOrderRecordsResponse,
): Pick<identity.ExportAccountDataResponse, 'mails' | 'staffActions'> {
  return {
    mails: [...account.mails, ...orders.mails].sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
    staffActions: [...account.staffActions, ...orders.staffActions].sort((a, b) => b.at - a.at),
  };
}

async function writeDataExport(
  { clients, now }: ExportContext,
  customer: string,
  held: identity.ExportAccountDataResponse,
  { receipts, returns }: checkout.ExportOrderRecordsResponse,
  subscriptions: inventory.BackInStockSubscription[],
  sink: DownloadSink,
): Promise<void> {
  const head: Omit<Static<typeof DataExport>, 'loyalty' | 'orders'> = {
    exportedAt: new Date(now()).toISOString(),
    profile: profileView(held.profile!),
    marketingConsents: held.marketingConsents.map((consent) => ({
      granted: consent.granted,
      wordingVersion: consent.wordingVersion,
      recordedAt: consent.recordedAt,
      source: consent.source,
    })),
    sessions: held.sessions.map(({ createdAt, expiresAt }) => ({ createdAt, expiresAt })),
    mails: held.mails.map(({ subject, createdAt, sentAt }) => ({ subject, createdAt, ...(sentAt ? { sentAt } : {}) })),
    staffActions: held.staffActions.map((action) => ({
      at: new Date(action.at).toISOString(),
      role: action.role,
      action: action.action,
      ...(action.beforeJson ? { before: JSON.parse(action.beforeJson) as unknown } : {}),
      ...(action.afterJson ? { after: JSON.parse(action.afterJson) as unknown } : {}),
    })),
    receipts: receipts.map((receipt) => ({
      number: formatReceiptNumber(receipt.receiptNumber),
      orderReference: receipt.orderReference,
      orderNumber: receipt.orderNumber,
      ...(receipt.issuedAt ? { issuedAt: receipt.issuedAt } : {}),
      total: pounds(receipt.totalPence),
      url: `/orders/${encodeURIComponent(receipt.orderReference)}/receipt`,
    })),
    returns: returns.map((found) => ({
      orderReference: found.orderReference,
      orderNumber: found.orderNumber,
      lines: found.lines.map(({ sku, quantity }) => ({ sku, quantity })),
      state: found.state as 'requested' | 'refunded' | 'refused',
      requestedAt: found.requestedAt,
      ...(found.decidedAt ? { decidedAt: found.decidedAt } : {}),
      ...(found.refusedReason ? { refusedReason: found.refusedReason } : {}),
    })),
    backInStockAlerts: subscriptions.map((alert) => ({
      sku: alert.sku,
      state: alert.state as 'pending' | 'active' | 'mailed' | 'ended',
      consentVersion: alert.consentVersion,
      createdAt: alert.createdAt,
      ...(alert.confirmedAt ? { confirmedAt: alert.confirmedAt } : {}),
      expiresAt: alert.expiresAt,
    })),
  };
  // The head without its closing brace, then the paged sections.
  await sink(`${JSON.stringify(head).slice(0, -1)},"loyalty":[`);
  await writePages(sink, async (cursor) => {
    const page = await clients.loyalty.exportAccountData({ limit: 500, cursor }, { customer });
    return { items: page.items.flatMap(loyaltyRecord), next: page.nextCursor };
  });
  await sink('],"orders":[');
  await writePages(sink, async (cursor) => {
    const page = await clients.checkout.listOrders({ limit: 50, cursor }, { customer });
    return { items: page.orders.map(orderDetailsView), next: page.nextCursor };
  });
  await sink(']}');
}

/** Writes every page's items as members of the array already opened, following the cursor to its end. */
async function writePages(
  sink: DownloadSink,
  page: (cursor: string) => Promise<{ items: unknown[]; next: string }>,
): Promise<void> {
  let cursor = '';
  let first = true;
  do {
    const { items, next } = await page(cursor);
    if (items.length > 0) await sink(`${first ? '' : ','}${items.map((item) => JSON.stringify(item)).join(',')}`);
    first &&= items.length === 0;
    cursor = next;
  } while (cursor);
}

function loyaltyRecord({ item }: loyalty.LoyaltyDataItem) {
  return item ? [{ kind: item.$case, record: item.value }] : [];
}
