/** The hosted payment page: plain HTML, one form, no scripts and no external assets. */
import type { SandboxCheckout } from './checkouts';

const STATUS_TEXT: Record<SandboxCheckout['status'], string> = {
  PENDING: 'Awaiting payment',
  PAID: 'Payment successful',
  FAILED: 'Payment declined',
  EXPIRED: 'This payment link has expired',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function formatAmount(checkout: SandboxCheckout): string {
  return `${checkout.currency === 'GBP' ? '£' : `${escapeHtml(checkout.currency)} `}${checkout.amount.toFixed(2)}`;
}

export function renderHostedPage(checkout: SandboxCheckout, merchantCode: string): string {
  const action = `/pay/${encodeURIComponent(checkout.id)}`;
  const body =
    checkout.status === 'PENDING'
      ? `<form method="post" action="${action}">
  <button type="submit" name="action" value="pay" id="pay">Pay ${formatAmount(checkout)}</button>
  <button type="submit" name="action" value="decline" id="decline">Decline</button>
</form>`
      : `<p id="status" data-status="${checkout.status}">${STATUS_TEXT[checkout.status]}</p>${refundsOf(checkout)}`;
  const amount = `<strong id="amount">${formatAmount(checkout)}</strong>`;
  return page(
    `Pay ${formatAmount(checkout)}`,
    `<h1>Sandbox payment</h1>
<p>Merchant <strong>${escapeHtml(merchantCode)}</strong> asks for ${amount}.</p>
${checkout.description ? `<p id="description">${escapeHtml(checkout.description)}</p>` : ''}
<p>Reference <code>${escapeHtml(checkout.checkout_reference)}</code></p>
${body}
<p class="note">Sandbox: no card is charged. Pay marks the checkout PAID, Decline marks it FAILED.</p>`,
  );
}

/** The refunds of the checkout's payment, as the merchant made them. */
function refundsOf(checkout: SandboxCheckout): string {
  const events = checkout.transactions.flatMap((transaction) => transaction.events);
  if (events.length === 0) return '';
  const total = checkout.transactions.reduce((sum, transaction) => sum + transaction.refunded_amount, 0);
  return (
    `<p id="refunded" data-refunded="${total.toFixed(2)}">Refunded ` +
    `${formatAmount({ ...checkout, amount: total })} in ${events.length} refund${events.length === 1 ? '' : 's'}</p>`
  );
}

export function renderMessagePage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p id="status">${escapeHtml(message)}</p>`);
}

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1b; }
button { font-size: 1.1rem; padding: 0.6rem 1.2rem; margin-right: 0.5rem; cursor: pointer; }
#pay { background: #1a7f37; color: #fff; border: 0; border-radius: 4px; }
#decline { background: #fff; border: 1px solid #999; border-radius: 4px; }
.note { color: #666; font-size: 0.85rem; margin-top: 2rem; }
</style>
</head>
<body>
${content}
</body>
</html>
`;
}
