/** The short pages every shop owes its customers: research-use terms, delivery, returns, privacy. */
import { html, prose, type Html } from '../kit/html';
import { INFO_PAGES, RESEARCH_USE_NOTICE, SHOP_NAME } from '../kit/layout';
import type { PageAnswer } from '../kit/respond';
import { type ShopView } from '../application/shop';
import { formatPence } from '../kit/money';
import type { Seller } from '@storefront/config';
import { sellerAddress } from '../kit/seller';

type InfoPath = (typeof INFO_PAGES)[number]['path'];

/** What a page says may depend on the shipping policy, the dispatch cut-off ("14:00") and who sells. */
const BODIES: Record<InfoPath, (policy: ShopView['policy'], cutoff: string, seller: Seller) => Html> = {
  '/terms': (_policy, _cutoff, seller) => html`<h2>Who sells</h2>
${sellerAddress(seller)}
<h2>Research use only</h2>
<p>${RESEARCH_USE_NOTICE}</p>
<p>${prose(
    html`By placing an order you confirm that you are 18 or over,`,
    html`that you buy for research carried out by qualified people in a suitable laboratory,`,
    html`and that you will store, handle and dispose of the products as their safety information says.`,
  )}</p>
<p>We may cancel and refund an order when we believe a product is meant for human or animal use.</p>`,
  '/delivery': (policy, cutoff) => html`<p>We deliver to addresses in the United Kingdom only.</p>
<ul><li>${prose(
    html`Orders placed before ${cutoff} UK time on a working day`,
    html`(Monday to Friday, except bank holidays in England and Wales)`,
    html`leave the same day; later orders leave on the next working day.`,
  )}</li>
<li>${prose(
    html`Delivery is expected on the working day after dispatch.`,
    html`Product, basket and checkout pages say when an order placed now leaves,`,
    html`and your order confirmation gives the dates.`,
  )}</li>
<li>${prose(
    html`Shipping is free on orders of ${formatPence(policy.freeShippingThresholdPence)} and over after any discount;`,
    html`below that it costs ${formatPence(policy.shippingFeePence)}.`,
  )}</li>
<li>${prose(
    html`Every batch is verified at 99% purity or better by HPLC;`,
    html`its certificate of analysis comes with the order.`,
  )}</li></ul>`,
  '/returns': () => html`<h2>Before dispatch</h2>
<p>${prose(
    html`Until your order is dispatched you can cancel it on its order page`,
    html`(the link is in your order confirmation email).`,
    html`We refund the whole payment, delivery included, to the card you paid with, and send nothing.`,
  )}</p>
<h2>After delivery: your 14-day right to cancel</h2>
<p>${prose(
    html`You may cancel within 14 days of the day your order is delivered, without giving a reason:`,
    html`reply to your order confirmation email saying which items you are returning,`,
    html`then send them back within 14 days of telling us.`,
    html`We refund the price of the returned items within 14 days of receiving them,`,
    html`and the standard delivery charge you paid when the whole order comes back.`,
    html`You pay the cost of sending them back.`,
  )}</p>
<h2>Sealed goods</h2>
<p>${prose(
    html`Vials are sealed for health protection and hygiene reasons.`,
    html`Once a seal is broken, or a product reconstituted, after delivery,`,
    html`it can no longer be returned under the right to cancel;`,
    html`unopened vials in their original sealed packaging can.`,
  )}</p>
<h2>Faulty or wrong items</h2>
<p>${prose(
    html`If a product arrives damaged, faulty or is not what you ordered, tell us within 30 days of delivery:`,
    html`we replace it or refund it in full, delivery included, and pay for its return.`,
    html`This does not affect your statutory rights.`,
  )}</p>`,
  '/privacy': () => html`<p>${prose(
    html`${SHOP_NAME} keeps the details you give us (name, email, phone, delivery address)`,
    html`to deliver your orders and run your account, and nothing more.`,
  )}</p>
<h2>What we keep, why and for how long</h2>
<ul><li>${prose(
    html`Your account (name, email, phone) and its sessions: to sign you in and show your orders,`,
    html`for as long as you keep the account; sessions and sign-in records go after 90 days.`,
  )}</li>
<li>${prose(
    html`Orders, payments and refunds: to deliver and account for them, six years, as UK accounting law requires.`,
    html`The delivery details of an order placed without an account are erased two years after it was placed;`,
    html`those of an account's orders when the account is closed.`,
  )}</li>
<li>${prose(
    html`Emails we send you: their text is deleted once sent;`,
    html`the record that one was sent (address, subject, time) after 30 days.`,
  )}</li>
<li>Your loyalty points and their history: to give you your rewards, for as long as you keep the account.</li>
<li>${prose(
    html`Your marketing choice, each time you make or change it, with the wording you agreed to:`,
    html`to send marketing emails only with your consent.`,
  )}</li>
<li>Card payments are taken on the payment provider's page; we never see or store card numbers.</li>
<li>${prose(
    html`We use three cookies: the session cookie that keeps you signed in for 30 days,`,
    html`the basket cookie that remembers what you are buying, and, for a week after you order as a guest,`,
    html`one that lets this browser alone show the delivery details on the order's page. None tracks you elsewhere.`,
  )}</li></ul>
<h2>Your rights</h2>
<ul><li>${prose(
    html`Access: download everything we hold about you from <a href="/account">your account</a> ("Download my data"),`,
    html`at any time, as one file.`,
  )}</li>
<li>${prose(
    html`Erasure: close your account yourself ("Close my account" on <a href="/account">your account</a> page),`,
    html`or ask us to. Your name, email, phone, addresses and emails are erased everywhere in the shop;`,
    html`we keep only what the law requires for the books`,
    html`(order totals, VAT and refunds, and the sums of your points),`,
    html`under no name. A last email confirms it. It cannot be done while an order is unpaid or a refund pending.`,
    html`You may sign up again later with the same email, as a new customer.`,
  )}</li>
<li>Rectification: correct your name and phone on your account page, or ask us to correct anything else.</li>
<li>${prose(
    html`Objection to marketing: marketing emails are sent only if you ask for them;`,
    html`stop them with the switch on your account page or the unsubscribe link in any of them, in one click.`,
  )}</li>
<li>We answer every request within one month.</li>
<li>${prose(
    html`Complaint: if you are unhappy with how we use your data,`,
    html`you can complain to the Information Commissioner's Office at`,
    html`<a href="https://ico.org.uk/make-a-complaint/">ico.org.uk</a>.`,
  )}</li></ul>`,
};

export function infoPage(path: InfoPath, policy: ShopView['policy'], cutoff: string, seller: Seller): PageAnswer {
  const { title } = INFO_PAGES.find((page) => page.path === path)!;
  return {
    title,
    description: `${title} at ${SHOP_NAME}`,
    caching: 'public',
    main: html`<h1>${title}</h1>${BODIES[path](policy, cutoff, seller)}`,
  };
}
