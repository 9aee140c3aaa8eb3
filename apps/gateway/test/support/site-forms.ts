/** Forms as a browser on the shop's pages posts them, for the tests on a checkout stack. */
import type { HttpClient } from '@storefront/testing';
import { newClientAddress } from '../../../checkout/test/support';

/** startCheckoutStack's PUBLIC_BASE_URL: a browser on the shop's pages sends it as Origin. */
export const SITE = 'http://127.0.0.1:9';

/** A form posted from the shop's pages, from a client address of its own. */
export function postForm(client: HttpClient, path: string, fields: Record<string, string>) {
  return client.request<string>('POST', path, {
    body: new URLSearchParams(fields).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      origin: SITE,
      'x-forwarded-for': newClientAddress(),
    },
  });
}
