/**
 * Back-in-stock alerts (docs/inventory.md, decisions 1340-1342): a person asks to be mailed once when a sold-out,
 * stock-limited size is back. A signed-in customer's subscription is active at once; a guest's waits for the link
 * mailed to the address. Every mail carries a one-click unsubscribe link; the alert links straight to the size.
 */
import { invalidArgument } from '@storefront/errors';
import { normalisedEmail } from '@storefront/formats';
import { unsubscribableMail, type Mail } from '@storefront/outbox';

export type SubscriptionState = 'pending' | 'active' | 'mailed' | 'ended';

export interface Subscription {
  id: number;
  email: string;
  sku: string;
  state: SubscriptionState;
  consentVersion: string;
  /** Epoch milliseconds. */
  createdAt: number;
  confirmedAt?: number;
  mailedAt?: number;
  expiresAt: number;
}

/** What a subscription is about, as its mails name it. */
export interface SubscribedSize {
  productId: string;
  productName: string;
  size: string;
}

const DAY_MS = 24 * 3600_000;
/** A subscription not mailed by then ends (decision 1342). */
export const SUBSCRIPTION_LIFETIME_MS = 90 * DAY_MS;
/** How long a guest's confirmation link works. */
export const CONFIRM_LINK_LIFETIME_MS = 7 * DAY_MS;

export function subscriberEmail(raw: string): string {
  const email = normalisedEmail(raw);
  if (email === undefined) throw invalidArgument('email must be a valid email address', 'invalid_email');
  return email;
}

/** The payloads the two links sign: a confirmation names the subscription as it was made, so a re-made one voids it. */
export const confirmPayload = (subscription: Subscription) => `confirm.${subscription.id}.${subscription.createdAt}`;
export const unsubscribePayload = (subscription: Subscription) => `end.${subscription.id}`;

/** The subscription id and creation time a payload names, undefined when it is not one of `kind`. */
export function readPayload(payload: string, kind: 'confirm' | 'end'): { id: number; createdAt?: number } | undefined {
  const [prefix, id, createdAt, ...rest] = payload.split('.');
  if (prefix !== kind || rest.length > 0 || !/^[0-9]{1,12}$/.test(id ?? '')) return undefined;
  if (kind === 'end') return createdAt === undefined ? { id: Number(id) } : undefined;
  return /^[0-9]{1,15}$/.test(createdAt ?? '') ? { id: Number(id), createdAt: Number(createdAt) } : undefined;
}

export interface AlertLinks {
  base: string;
  confirmToken?: string;
  unsubscribeToken: string;
}

const url = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;
const unsubscribeUrl = (links: AlertLinks) =>
  url(links.base, `/back-in-stock/unsubscribe?token=${encodeURIComponent(links.unsubscribeToken)}`);

/** Where the alert leads: the product page, at the size. */
export const sizeUrl = (base: string, productId: string, sku: string) =>
  url(base, `/products/${encodeURIComponent(productId)}#size-${encodeURIComponent(sku)}`);

export function confirmationMail(subscription: Subscription, size: SubscribedSize, links: AlertLinks): Mail {
  const mail = unsubscribableMail(
    `back-in-stock-confirm:${subscription.id}:${subscription.createdAt}`,
    subscription.email,
    {
      subject: `Confirm your alert for ${size.productName} ${size.size}`,
      blocks: [
        {
          paragraph:
            `Someone, probably you, asked to be emailed once when ${size.productName} ${size.size} is back in stock. ` +
            'Confirm it with the link below within seven days; without it nothing more is sent.',
        },
        {
          link: {
            label: 'Confirm the alert',
            url: url(links.base, `/back-in-stock/confirm?token=${encodeURIComponent(links.confirmToken ?? '')}`),
          },
        },
      ],
    },
    unsubscribeUrl(links),
  );
  // The link gives the address's consent to the alert: staff never read it (decision 1305).
  return { ...mail, withholdBody: true };
}

export function alertMail(subscription: Subscription, size: SubscribedSize, links: AlertLinks): Mail {
  return unsubscribableMail(
    // The id padded, so the alerts of one restock are sent in the order people subscribed in (the outbox's key order).
    `back-in-stock:${String(subscription.id).padStart(12, '0')}:${subscription.createdAt}`,
    subscription.email,
    {
      subject: `${size.productName} ${size.size} is back in stock`,
      blocks: [
        {
          paragraph:
            `${size.productName} ${size.size} is back in stock. This is the one email you asked for; ` +
            'units are not held for you, so they may sell out again.',
        },
        {
          link: {
            label: `Order ${size.productName} ${size.size}`,
            url: sizeUrl(links.base, size.productId, subscription.sku),
          },
        },
      ],
    },
    unsubscribeUrl(links),
  );
}
