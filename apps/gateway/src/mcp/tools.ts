/**
 * The MCP tools. Each runs the same operation as its HTTP endpoint (same service calls, limits
 * and Error codes); input schemas come from the OpenAPI document where the HTTP API has the same
 * input, and arguments are checked by the same validator before anything is called.
 */
import { notFound } from '@storefront/errors';
import type { GatewayContext } from '../context';
import type { JsonSchema } from '../kit/api-docs';
import type { Caller } from '../kit/caller';
import { placeOrder, validatePromo, type CreateCheckoutBody } from '../application/place-order';
import { getOrder } from '../application/orders';
import { quoteOrder, type QuoteRequestBody } from '../application/quote-order';
import { catalogProductView, type CatalogProductView } from '../application/catalog';
import { batchCertificateView, lookUpBatch } from '../application/certificates';
import type { ApiSchemas } from './schemas';

export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  readOnly: boolean;
  /** Runs on arguments already valid against inputSchema; the result matches outputSchema. */
  run(args: Record<string, unknown>, caller: Caller): Promise<Record<string, unknown>>;
}

const SEARCH_INPUT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    text: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: "Words that must all appear in the product's id, name or description (case-insensitive)",
    },
    size: {
      type: 'string',
      minLength: 1,
      maxLength: 20,
      description: 'A size such as `5mg`: only products sold in that size, with only that size listed',
    },
  },
};

const PRODUCT_INPUT: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: {
    id: {
      type: 'string',
      minLength: 1,
      maxLength: 100,
      description: 'The product id (e.g. `bpc-157`) or one of its SKUs (e.g. `bpc-157-5mg`)',
    },
  },
};

const objectOf = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
});

export function buildTools(context: GatewayContext, schemas: ApiSchemas): McpTool[] {
  const { clients, config } = context;
  const product = schemas.component('CatalogProduct');

  const catalog = async (): Promise<CatalogProductView[]> =>
    (await clients.inventory.getCatalog({})).products.map((entry) => catalogProductView(entry, config.publicBaseUrl));

  return [
    {
      name: 'search_products',
      title: 'Search the catalog',
      description:
        'Products whose id, name or description contain every word of `text`, optionally only those ' +
        'sold in `size`; with neither, the whole catalog. Prices in GBP; `inStock` is live.',
      inputSchema: SEARCH_INPUT,
      outputSchema: objectOf({ products: { type: 'array', items: product } }),
      readOnly: true,
      async run(args) {
        const words = typeof args.text === 'string' ? args.text.toLowerCase().split(/\s+/).filter(Boolean) : [];
        const size = typeof args.size === 'string' ? args.size.toLowerCase() : undefined;
        const products = (await catalog())
          .filter((candidate) => {
            const haystack = `${candidate.id} ${candidate.name} ${candidate.description}`.toLowerCase();
            return words.every((word) => haystack.includes(word));
          })
          .map((candidate) =>
            size === undefined
              ? candidate
              : { ...candidate, sizes: candidate.sizes.filter((entry) => entry.size.toLowerCase() === size) },
          )
          .filter((candidate) => candidate.sizes.length > 0);
        return { products };
      },
    },
    {
      name: 'get_product',
      title: 'One product with live stock',
      description:
        'A product with its sizes, GBP prices, stock flags and the batch each size is sold from now ' +
        '(`batch`: number, HPLC purity, ' +
        'test date and `certificateUrl`, the certificate of analysis), and `stock`: the units ' +
        'available now of each of its stock-limited SKUs.',
      inputSchema: PRODUCT_INPUT,
      outputSchema: objectOf({ product, stock: schemas.component('StockMap') }),
      readOnly: true,
      async run(args) {
        const id = String(args.id);
        const [products, { available }] = await Promise.all([catalog(), clients.inventory.getStock({})]);
        const found = products.find(
          (candidate) => candidate.id === id || candidate.sizes.some((entry) => entry.sku === id),
        );
        if (!found) throw notFound(`No product or SKU ${id} in the catalog`, 'product_not_found');
        const stock = Object.fromEntries(
          found.sizes.filter((entry) => entry.stockLimited).map((entry) => [entry.sku, available[entry.sku] ?? 0]),
        );
        return { product: found, stock };
      },
    },
    {
      name: 'get_certificate',
      title: "A batch's certificate of analysis",
      description:
        'GET /api/certificates/{batch_number} as a tool: the product and size of the batch with that ' +
        'number (printed on the vial), ' +
        'its HPLC purity, test date, laboratory, whether it was recalled, and `certificateUrl`, the ' +
        'certificate PDF (null when on ' +
        'request). Same answer and per-address limit.',
      inputSchema: schemas.parameters('/api/certificates/{batch_number}', 'get'),
      outputSchema: schemas.component('BatchCertificate'),
      readOnly: true,
      run: async (args, caller) =>
        batchCertificateView(
          await lookUpBatch(context, String(args.batch_number), caller.clientAddress),
          config.publicBaseUrl,
        ),
    },
    {
      name: 'validate_promo',
      title: 'Check a discount code',
      description:
        "Whether a promo code, or a reward code of the session's account, is valid now; never consumes it. Same " +
        'answer and limits as GET /api/validate-promo.',
      inputSchema: schemas.parameters('/api/validate-promo', 'get'),
      outputSchema: schemas.component('PromoValidationResult'),
      readOnly: true,
      run: (args, caller) => validatePromo(context, String(args.code), caller),
    },
    {
      name: 'quote_order',
      title: 'Price a basket and its dispatch date',
      description:
        "POST /api/quote as a tool: the server's goods, discount, shipping and total in pence for `items` and an " +
        'optional `promo_code` (a code that does not apply is named in `promo_refusal` and left out), and when an ' +
        'order placed now would be dispatched and delivered. Saves and holds nothing. Send `total_pence / 100` as ' +
        '`amount` to prepare_checkout.',
      inputSchema: schemas.component('QuoteRequest'),
      outputSchema: schemas.component('OrderQuote'),
      readOnly: true,
      run: (args, caller) => quoteOrder(context, args as unknown as QuoteRequestBody, caller),
    },
    {
      name: 'prepare_checkout',
      title: 'Prepare a checkout and its payment link',
      description:
        'POST /api/create-checkout as a tool, with the same fields: saves a server-priced order, reserves its ' +
        "stock and answers the provider's checkout with `hosted_checkout_url`, the link a person opens to pay by " +
        'card. `amount` must equal the server total (see the field description); retry an uncertain call with the ' +
        'same arguments and `checkout_reference`. With a session, the paid order earns the account loyalty points. ' +
        'Then hand the link to the person and follow the order with get_order_status. The order is held, and not ' +
        'sent, until the person confirms on its order page (where paying returns them) that the products are for ' +
        'laboratory research use only and that they are 18 or over; no tool can confirm for them.',
      inputSchema: schemas.component('CreateCheckoutRequest'),
      outputSchema: schemas.component('CheckoutResult'),
      readOnly: false,
      run: (args, caller) => placeOrder(context, args as unknown as CreateCheckoutBody, caller),
    },
    {
      name: 'get_order_status',
      title: 'Follow an order',
      description:
        'GET /api/orders/{checkout_reference} as a tool: the order status (`pending_payment`, `paid`, `failed`, ' +
        '`expired`, `cancelled`, `dispatched`, `delivered`, `partially_refunded`, `refunded`), items, totals, ' +
        "while unpaid the payment link, and once sent the `dispatch` (carrier, tracking number for the account's " +
        "own order, dates) and each line's `batches` with their certificate links, once refunded the `refunded` " +
        "amount. An account's order needs that account's session.",
      inputSchema: schemas.parameters('/api/orders/{checkout_reference}', 'get'),
      outputSchema: schemas.component('OrderDetails'),
      readOnly: true,
      run: (args, caller) => getOrder(context, String(args.checkout_reference), caller),
    },
  ];
}
