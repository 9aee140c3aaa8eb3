/**
 * The shape every mail shares: a greeting and paragraphs, optional rows (an order's lines) and a
 * link, then the shop's name and the research-use-only line. The plain text and the HTML say the
 * same; every value is escaped in the HTML.
 */
import { sellerFacts, type Seller } from '@storefront/config';

export const SHOP_NAME = 'Storefront Research Supplies';
export const RESEARCH_USE_LINE =
  'All products are sold for laboratory research use only: not for human or animal consumption.';

export type MailBlock =
  { paragraph: string } | { rows: Array<[string, string]> } | { link: { label: string; url: string } };

export interface MailContent {
  subject: string;
  blocks: MailBlock[];
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => ENTITIES[char]!);

export function composeMail({ subject, blocks }: MailContent): { subject: string; text: string; html: string } {
  const text = blocks.map((block) => {
    if ('paragraph' in block) return block.paragraph;
    if ('rows' in block) return block.rows.map(([label, value]) => `${label}: ${value}`).join('\n');
    return `${block.link.label}: ${block.link.url}`;
  });
  const html = blocks.map((block) => {
    if ('paragraph' in block) return `<p>${escapeHtml(block.paragraph)}</p>`;
    if ('rows' in block)
      return `<table>${block.rows
        .map(
          ([label, value]) =>
            '<tr><th scope="row" ' +
            `align="left">${escapeHtml(label)}</th><td align="right">${escapeHtml(value)}</td></tr>`,
        )
        .join('')}</table>`;
    return `<p><a href="${escapeHtml(block.link.url)}">${escapeHtml(block.link.label)}</a></p>`;
  });
  return {
    subject,
    text: `${text.join('\n\n')}\n\n-- \n${SHOP_NAME}\n${RESEARCH_USE_LINE}\n`,
    html:
      '<!doctype html><html lang="en-GB"><head><meta ' +
      `charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>${html.join('')}` +
      `<hr><p><small>${escapeHtml(SHOP_NAME)}<br>${escapeHtml(RESEARCH_USE_LINE)}</small></p></body></html>`,
  };
}

/**
 * The mail as it leaves: after its footer, the seller's identity (decision 1296), its name and the address, e-mail,
 * company and VAT numbers set, read from the component's configuration when it sends, so every mail carries it.
 */
export function withSellerFooter<T extends { text: string; html: string }>(mail: T, seller: Seller): T {
  const line = [
    `Sold by ${seller.name}`,
    ...sellerFacts(seller).map(([label, value]) => (label === 'Address' ? value : `${label}: ${value}`)),
  ].join(' · ');
  return {
    ...mail,
    text: `${mail.text}${mail.text.endsWith('\n') ? '' : '\n'}${line}\n`,
    html: mail.html.replace('</body>', `<p><small>${escapeHtml(line)}</small></p></body>`),
  };
}
