/** The mails identity sends to console staff. */
import { composeMail, type Mail } from '@storefront/outbox';
import type { StaffMember } from '../stores/staff';

/**
 * Tells a member that codes were tried with their right password (decision 1122). `episode`
 * names the run of wrong codes, so the member hears of each run once.
 */
export function secondFactorGuessingMail(
  member: Pick<StaffMember, 'id' | 'email'>,
  episode: number,
  wrongCodes: number,
  at: number,
): Mail {
  return {
    key: `second-factor-guessing:${member.id}:${episode}`,
    to: member.email,
    ...composeMail({
      subject: 'Someone has your console password',
      blocks: [
        {
          paragraph:
            `By ${new Date(at).toUTCString()} the console had been given the right password ` +
            `of ${member.email} with ${wrongCodes} wrong codes, from addresses that have not logged in to it ` +
            'lately. Only the second factor kept them out.',
        },
        {
          paragraph:
            'Code attempts from new addresses are slowed down meanwhile. If this was not you, ask an ' +
            'owner now to reset your credentials, then set up a new password and authenticator.',
        },
      ],
    }),
  };
}
