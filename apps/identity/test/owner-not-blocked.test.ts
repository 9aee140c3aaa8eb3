/**
 * Strangers cannot block the owner of an account (second review, findings 5 and 6), through
 * identity's API on the backend under test (its limits in memory on SQLite, in Redis on MySQL):
 * reset requests count per address and email and per email, and an address that logged in to the
 * account lately is never refused for the email's sake; one mistyped password from it during an
 * attack does not lock it out (decisions 1120, 1121).
 */
import { expect } from 'chai';
import { rejection, startForSuite } from '@storefront/testing';
import { startIdentity, type IdentityHarness } from './support';

const PASSWORD = 'plum-tractor-42';
const OWNER_ADDRESS = '203.0.113.5';
const HOUR = 3600 * 1000;

describe('identity: strangers cannot block the owner', () => {
  let harness: IdentityHarness;
  startForSuite(
    () =>
      startIdentity({
        PASSWORD_RESETS_PER_ADDRESS_MAX: '1000',
        PASSWORD_RESETS_PER_ADDRESS_AND_EMAIL_MAX: '2',
        PASSWORD_RESETS_PER_ACCOUNT_MAX: '4',
        LOGIN_FAILURES_PER_ACCOUNT_MAX: '3',
        LOGIN_FAILURES_PER_ADDRESS_MAX: '1000',
        LOGIN_BACKOFF_FREE_FAILURES: '3',
        SIGNUPS_PER_ADDRESS_MAX: '1000',
      }),
    (started) => (harness = started),
  );

  let customers = 0;
  async function ownerWhoLoggedIn(): Promise<string> {
    customers += 1;
    const email = `owner${customers}-${Date.now()}@example.test`;
    await harness.client.signUp({
      email,
      password: PASSWORD,
      firstName: 'Ada',
      lastName: 'Lovelace',
      clientAddress: OWNER_ADDRESS,
    });
    await harness.client.logIn({ email, password: PASSWORD, clientAddress: OWNER_ADDRESS });
    return email;
  }

  /** 'ok' or the error code of a reset request. */
  const askReset = async (email: string, clientAddress: string): Promise<string> =>
    harness.client.requestPasswordReset({ email, clientAddress }).then(
      () => 'ok',
      async (error: unknown) => (await rejection(Promise.reject(error))).code,
    );

  it('lets the owner ask for a reset after strangers from several addresses used up the email, and limits each stranger per email', async () => {
    const email = await ownerWhoLoggedIn();
    const ghost = `ghost${customers}-${Date.now()}@example.test`;
    for (const target of [email, ghost]) {
      const answers: string[] = [];
      for (const stranger of ['198.51.100.1', '198.51.100.2', '198.51.100.3'])
        for (let i = 0; i < 3; i += 1) answers.push(await askReset(target, stranger));
      // Two per stranger, four from strangers together: a registered email and an unknown one alike.
      expect(answers, target).to.deep.equal([
        'ok',
        'ok',
        'too_many_attempts',
        'ok',
        'ok',
        'too_many_attempts',
        'too_many_attempts',
        'too_many_attempts',
        'too_many_attempts',
      ]);
    }
    expect(await askReset(email, OWNER_ADDRESS)).to.equal('ok');
    expect(await askReset(email, OWNER_ADDRESS)).to.equal('ok');
    // The owner's address is limited for the email like anyone's.
    expect(await askReset(email, OWNER_ADDRESS)).to.equal('too_many_attempts');
    harness.clock.advance(HOUR);
    expect(await askReset(email, '198.51.100.1')).to.equal('ok');
  });

  it("counts the address an account was signed up from as the owner's for resets", async () => {
    customers += 1;
    const email = `signed-up${customers}-${Date.now()}@example.test`;
    await harness.client.signUp({
      email,
      password: PASSWORD,
      firstName: 'Ada',
      lastName: 'Lovelace',
      clientAddress: '203.0.113.50',
    });
    for (const stranger of ['198.51.100.21', '198.51.100.22', '198.51.100.23', '198.51.100.24'])
      expect(await askReset(email, stranger)).to.equal('ok');
    expect(await askReset(email, '198.51.100.25')).to.equal('too_many_attempts');
    expect(await askReset(email, '203.0.113.50')).to.equal('ok');
  });

  it("lets the owner's address log in after one mistyped password while attackers keep the account over its limit", async () => {
    const email = await ownerWhoLoggedIn();
    for (const attacker of ['198.51.100.11', '198.51.100.12', '198.51.100.13', '198.51.100.14'])
      expect(
        await rejection(harness.client.logIn({ email, password: 'wrong-password', clientAddress: attacker })),
      ).to.include({
        code: 'invalid_credentials',
      });
    expect(
      await rejection(harness.client.logIn({ email, password: 'plum-tractor-24', clientAddress: OWNER_ADDRESS })),
    ).to.include({
      code: 'invalid_credentials',
    });
    expect(
      (await harness.client.logIn({ email, password: PASSWORD, clientAddress: OWNER_ADDRESS })).profile!.email,
    ).to.equal(email);
    expect(
      await rejection(harness.client.logIn({ email, password: PASSWORD, clientAddress: '198.51.100.11' })),
    ).to.include({
      kind: 'rate_limited',
    });
  });
});
