/**
 * What a buyer confirms before an order of research-use-only products may leave the shop, and the
 * version of that wording. The checkout page and the order page show these statements; checkout
 * records the version with the confirmation. Change the wording only with a new version.
 */
export const BUYER_CONFIRMATION_VERSION = 'buyer-confirmation-v1';

/** The statements, each a checkbox the buyer ticks: form field name and its label. */
export const BUYER_CONFIRMATION_STATEMENTS = [
  { name: 'research_use_only', label: 'These products are for laboratory research use only' },
  { name: 'adult', label: 'I am 18 or over' },
] as const;

/** A paid order whose buyer has not confirmed within this long is cancelled and refunded in full. */
export const BUYER_CONFIRMATION_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
