/**
 * "Email me when it is back" on a sold-out size: the product page's form posts here; the links of inventory's mails
 * lead to the confirm and unsubscribe pages. Each link opens a page with a button, so a link scanner that opens it
 * changes nothing; the unsubscribe button, and a mail client's one-click POST (RFC 8058), post the token without a
 * session.
 */
import express from 'express';
import { AppError, HTTP_STATUS } from '@storefront/errors';
import type { inventory } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { findSku, type ShopReader } from '../application/shop';
import {
  confirmBackInStock,
  subscribeBackInStock,
  unsubscribeBackInStock,
  type AlertOutcome,
} from '../application/back-in-stock';
import { clientAddress, sessionOf } from '../kit/customer-session';
import { field, formError, isFormRefusal } from '../kit/forms';
import { html } from '../kit/html';
import { notFoundPage } from '../kit/page-errors';
import type { PageAnswer, PageRoutes } from '../kit/respond';
import { productPage } from './product';

const OUTCOME_WORDS: Record<AlertOutcome, string> = {
  subscribed: 'We will email you once when it is back in stock.',
  already_subscribed: 'You had already asked: we will email you once when it is back in stock.',
  pending: 'Check your inbox: follow the link we sent to confirm the alert.',
  already_pending: 'You had already asked: follow the link we sent to confirm the alert.',
};

function outcomePage(product: inventory.Product, size: inventory.ProductSize, outcome: AlertOutcome): PageAnswer {
  return {
    title: 'Back-in-stock alert',
    description: `An alert for ${product.name} ${size.size}`,
    caching: 'private',
    main: html`<h1>${product.name} ${size.size}</h1><p role="status">${OUTCOME_WORDS[outcome]}</p>
<p><a href="/products/${product.id}">Back to ${product.name}</a></p>`,
  };
}

const ONCE_BACK = 'We will email you once when the size is back in stock.';
const NO_EMAIL = 'You will get no email about this size.';

function linkPage(kind: 'confirm' | 'unsubscribe', token: string, error?: string, status = 200): PageAnswer {
  const confirm = kind === 'confirm';
  const action = `/back-in-stock/${kind}?token=${encodeURIComponent(token)}`;
  return {
    title: confirm ? 'Confirm the alert' : 'Stop the alert',
    description: confirm ? 'Confirm a back-in-stock alert' : 'Stop a back-in-stock alert',
    caching: 'private',
    status,
    main: html`<h1>${confirm ? 'Confirm the alert' : 'Stop the alert'}</h1>${formError(error)}
<p>${confirm ? ONCE_BACK : 'We will not email you when the size is back.'}</p>
<form method="post" action="${action}"><button type="submit">${confirm ? 'Confirm' : 'Unsubscribe'}</button></form>`,
  };
}

function donePage(kind: 'confirm' | 'unsubscribe'): PageAnswer {
  const confirm = kind === 'confirm';
  const title = confirm ? 'Alert confirmed' : 'Alert stopped';
  return {
    title,
    description: confirm ? 'The back-in-stock alert is confirmed' : 'The back-in-stock alert is stopped',
    caching: 'private',
    main: html`<h1>${title}</h1><p role="status">${confirm ? ONCE_BACK : NO_EMAIL}</p>
<p><a href="/">All products</a></p>`,
  };
}

/** The words of a refused link: altered, expired, or ended since. */
const LINK_WORDS: Record<string, string> = {
  invalid_back_in_stock_link: 'This link is not valid: it may have been altered. Use the link in the email.',
  back_in_stock_link_expired: 'This link has expired: ask again on the product page.',
  back_in_stock_not_found: 'This alert has ended: ask again on the product page.',
};

export function registerBackInStockPages(
  { router, send, form }: PageRoutes,
  context: GatewayContext,
  readShop: ShopReader,
  dispatchWords: () => string,
): void {
  router.post('/back-in-stock', ...form, async (req, res) => {
    const shop = await readShop();
    const found = findSku(shop.catalog, field(req, 'sku'));
    if (!found)
      return send(req, res, {
        ...notFoundPage('That size is not in the catalog; choose one on a product page.'),
        status: 400,
      });
    const session = await sessionOf(req, res, context);
    try {
      const outcome = await subscribeBackInStock(context, {
        sku: found.size.sku,
        email: field(req, 'email'),
        ...(session ? { customer: session.userId } : {}),
        clientAddress: clientAddress(req),
      });
      await send(req, res, outcomePage(found.product, found.size, outcome));
    } catch (error) {
      if (!isFormRefusal(error)) throw error;
      const words: Record<string, string> = {
        invalid_email: session
          ? 'Enter an email address such as name@example.com, or leave it empty for your account’s.'
          : 'Enter your email address, such as name@example.com.',
        size_in_stock: `${found.product.name} ${found.size.size} is in stock: order it now.`,
      };
      await send(req, res, {
        ...productPage(found.product, shop, dispatchWords(), words[error.code] ?? error.detail),
        status: HTTP_STATUS[error.kind],
      });
    }
  });
}

/** The pages the alert's mails link to; served whether or not a storefront origin serves the shop's pages. */
export function registerBackInStockLinkPages({ router, send }: PageRoutes, context: GatewayContext): void {
  const tokenOf = (req: express.Request) => (typeof req.query.token === 'string' ? req.query.token : '');
  for (const kind of ['confirm', 'unsubscribe'] as const) {
    const act = kind === 'confirm' ? confirmBackInStock : unsubscribeBackInStock;
    router.get(`/back-in-stock/${kind}`, (req, res) => send(req, res, linkPage(kind, tokenOf(req))));
    // The token is the credential: no session and no same-site rule (a mail client's POST comes from no page of ours).
    router.post(`/back-in-stock/${kind}`, express.urlencoded({ extended: false, limit: 1024 }), async (req, res) => {
      const token = tokenOf(req);
      try {
        await act(context, token);
        await send(req, res, donePage(kind));
      } catch (error) {
        if (!(error instanceof AppError) || !(error.code in LINK_WORDS)) throw error;
        await send(req, res, linkPage(kind, token, LINK_WORDS[error.code], HTTP_STATUS[error.kind]));
      }
    });
  }
}
