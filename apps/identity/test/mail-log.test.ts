/**
 * Identity's mail log (decision 1305): a staff member sees that a sign-up's address confirmation and a password reset
 * were mailed, never their text, whose link acts for the customer, before sending or after.
 */
import { expect } from 'chai';
import { startForSuite } from '@storefront/testing';
import { startIdentity, type IdentityHarness } from './support';

const STAFF = { id: 'staff-1', role: 'staff' as const, email: 'staff@shop.test', clientAddress: '192.0.2.9' };
const EMAIL = 'withheld@example.test';

describe('identity: the mail log', () => {
  let harness: IdentityHarness;
  startForSuite(
    () => startIdentity(),
    (started) => (harness = started),
  );

  it('lists the confirmation and reset mails, and withholds their text whether sent or not', async () => {
    await harness.client.signUp({
      email: EMAIL,
      password: 'a long enough password',
      firstName: 'Wil',
      lastName: 'Held',
      clientAddress: '192.0.2.1',
    });
    await harness.client.requestPasswordReset({ email: EMAIL, clientAddress: '192.0.2.1' });
    const kinds = async () => {
      const { page } = await harness.client.listMailLog(
        { query: { recipient: EMAIL, beforeQueuedAt: 0, beforeKey: '', limit: 0 } },
        { staff: STAFF },
      );
      return page!.mails;
    };
    const withheld = async () => {
      for (const entry of await kinds()) {
        const { mail } = await harness.client.getMailForStaff({ key: entry.key }, { staff: STAFF });
        expect(mail, entry.kind).to.deep.include({ text: '', bodyState: 'withheld' });
      }
    };
    expect((await kinds()).map((entry) => entry.kind).sort()).to.deep.equal(['email-verification', 'password-reset']);
    await withheld();
    await harness.server.sendMailNow();
    expect((await kinds()).map((entry) => entry.status)).to.deep.equal(['sent', 'sent']);
    await withheld();
  });
});
