/**
 * Marketing consent, apart from the account (docs/decisions/1241): identity records each grant and withdrawal with
 * the version of the wording shown (MARKETING_CONSENT); here it is set, read for the account page, and withdrawn by an
 * unsubscribe link's token.
 */
import { MARKETING_CONSENT } from '@storefront/formats';
import type { identity } from '@storefront/proto';
import type { GatewayContext } from '../context';
import { component, Type, type Static } from '../kit/schema';

export const MarketingConsentState = component(
  'MarketingConsentState',
  Type.Object(
    {
      success: Type.Literal(true),
      granted: Type.Boolean(),
      wordingVersion: Type.String({ description: 'The version of the wording the record was made under' }),
      recordedAt: Type.String({ format: 'date-time' }),
    },
    {
      example: {
        success: true,
        granted: false,
        wordingVersion: MARKETING_CONSENT.version,
        recordedAt: '2026-11-28T12:00:00.000Z',
      },
    },
  ),
);

type Context = Pick<GatewayContext, 'clients'>;

function stateOf(consent: identity.MarketingConsent): Static<typeof MarketingConsentState> {
  return {
    success: true,
    granted: consent.granted,
    wordingVersion: consent.wordingVersion,
    recordedAt: consent.recordedAt,
  };
}

export async function setMarketingConsent(
  { clients }: Context,
  customer: string,
  granted: boolean,
): Promise<Static<typeof MarketingConsentState>> {
  const { consent } = await clients.identity.setMarketingConsent({ granted }, { customer });
  return stateOf(consent!);
}

/** Whether the customer wants marketing mails now: never asked is no. */
export async function wantsMarketing({ clients }: Context, customer: string): Promise<boolean> {
  const { consent } = await clients.identity.getMarketingConsent({}, { customer });
  return consent?.granted ?? false;
}

/** One click from a marketing mail, without a session: 400 `invalid_unsubscribe_token` for a forged one. */
export async function unsubscribe({ clients }: Context, token: string): Promise<void> {
  await clients.identity.unsubscribe({ token });
}
