/**
 * Failed logins slow the address that fails, not the account's owner (decision 0860): a
 * progressive delay per account and client address, a per-account limit that only refuses
 * addresses that have failed for the account, on the backend under test.
 */
import { expect } from 'chai';
import { rejection, startForSuite, withBusyCores } from '@storefront/testing';
import { startIdentity, type IdentityHarness } from './support';

const PASSWORD = 'plum-tractor-42';
const MINUTE = 60 * 1000;

let customers = 0;
async function newCustomer(harness: IdentityHarness): Promise<string> {
  customers += 1;
  const email = `backoff${customers}-${Date.now()}@example.test`;
  await harness.client.signUp({
    email,
    password: PASSWORD,
    firstName: 'Ada',
    lastName: 'Lovelace',
    clientAddress: '192.0.2.1',
  });
  return email;
}

describe('identity: progressive login delay per account and address', () => {
  let harness: IdentityHarness;
  startForSuite(
    () =>
      startIdentity({
        // High account and address limits: only the delay of one address for one account is in play.
        LOGIN_FAILURES_PER_ACCOUNT_MAX: '1000',
        LOGIN_FAILURES_PER_ADDRESS_MAX: '1000',
        LOGIN_BACKOFF_FREE_FAILURES: '3',
        LOGIN_BACKOFF_BASE_SECONDS: '60',
        LOGIN_BACKOFF_MAX_SECONDS: '240',
        SIGNUPS_PER_ADDRESS_MAX: '1000',
      }),
    (started) => (harness = started),
  );

  const attempt = (email: string, password: string, clientAddress: string) =>
    harness.client.logIn({ email, password, clientAddress });
  const failsWith = async (email: string, password: string, clientAddress: string) =>
    rejection(attempt(email, password, clientAddress));

  it('makes an address failing for an account wait longer after each failure, then checks it again', async () => {
    const email = await newCustomer(harness);
    const attacker = '198.51.100.10';
    for (let i = 0; i < 3; i += 1)
      expect(await failsWith(email, 'wrong-password', attacker)).to.include({ code: 'invalid_credentials' });

    const waits: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      const limited = await failsWith(email, 'wrong-password', attacker);
      expect(limited).to.include({ kind: 'rate_limited', code: 'too_many_attempts' });
      // Hammering during the wait is refused again and does not lengthen it.
      expect((await failsWith(email, 'wrong-password', attacker)).retryAfterSeconds).to.equal(
        limited.retryAfterSeconds,
      );
      waits.push(limited.retryAfterSeconds!);
      harness.clock.advance(limited.retryAfterSeconds! * 1000 - 1000);
      expect(await failsWith(email, PASSWORD, attacker)).to.include({ kind: 'rate_limited', retryAfterSeconds: 1 });
      harness.clock.advance(1000);
      expect(await failsWith(email, 'wrong-password', attacker)).to.include({ code: 'invalid_credentials' });
    }
    expect(waits).to.deep.equal([60, 120, 240, 240]);
  });

  it('lets the owner log in from another address while one address is made to wait', async () => {
    const email = await newCustomer(harness);
    for (let i = 0; i < 3; i += 1) await failsWith(email, 'wrong-password', '198.51.100.20');
    expect(await failsWith(email, PASSWORD, '198.51.100.20')).to.include({ kind: 'rate_limited' });
    expect((await attempt(email, PASSWORD, '203.0.113.5')).profile!.email).to.equal(email);
    // The owner's success does not release the attacking address.
    expect(await failsWith(email, 'wrong-password', '198.51.100.20')).to.include({ kind: 'rate_limited' });
  });

  it('forgives an address its failures for the account once it logs in', async () => {
    const email = await newCustomer(harness);
    const owner = '203.0.113.30';
    for (let i = 0; i < 2; i += 1) await failsWith(email, 'wrong-password', owner);
    expect((await attempt(email, PASSWORD, owner)).profile!.email).to.equal(email);
    for (let i = 0; i < 3; i += 1)
      expect(await failsWith(email, 'wrong-password', owner)).to.include({ code: 'invalid_credentials' });
    expect(await failsWith(email, 'wrong-password', owner)).to.include({ kind: 'rate_limited', retryAfterSeconds: 60 });
  });

  it('delays an unknown email the same way, so a 429 reveals nothing', async () => {
    const known = await newCustomer(harness);
    const unknown = `nobody-${Date.now()}@example.test`;
    for (const email of [known, unknown]) {
      const answers: string[] = [];
      for (let i = 0; i < 4; i += 1) {
        const error = await failsWith(email, 'wrong-password', '198.51.100.40');
        answers.push(`${error.code}:${error.retryAfterSeconds ?? ''}`);
      }
      expect(answers, email).to.deep.equal([
        'invalid_credentials:',
        'invalid_credentials:',
        'invalid_credentials:',
        'too_many_attempts:60',
      ]);
    }
  });

  it('checks at most the free failures of parallel guesses from one address', async () => {
    const email = await newCustomer(harness);
    const answers = await withBusyCores(() =>
      Promise.all(Array.from({ length: 12 }, () => failsWith(email, 'wrong-password', '198.51.100.50'))),
    );
    const checked = answers.filter((error) => error.code === 'invalid_credentials').length;
    expect(checked).to.be.within(1, 3);
    expect(answers.filter((error) => error.code === 'too_many_attempts')).to.have.length(12 - checked);
  });
});

describe('identity: the per-account limit refuses only addresses that failed for the account', () => {
  let harness: IdentityHarness;
  startForSuite(
    () =>
      startIdentity({
        LOGIN_FAILURES_PER_ACCOUNT_MAX: '4',
        LOGIN_FAILURES_PER_ADDRESS_MAX: '1000',
        LOGIN_BACKOFF_FREE_FAILURES: '5',
        SIGNUPS_PER_ADDRESS_MAX: '1000',
      }),
    (started) => (harness = started),
  );

  const attempt = (email: string, password: string, clientAddress: string) =>
    harness.client.logIn({ email, password, clientAddress });
  const failsWith = async (email: string, password: string, clientAddress: string) =>
    rejection(attempt(email, password, clientAddress));

  it('refuses attacking addresses past the account limit while a clean one logs in, till the window ends', async () => {
    const email = await newCustomer(harness);
    const attackers = ['198.51.100.61', '198.51.100.62', '198.51.100.63'];
    for (const address of attackers) {
      for (let i = 0; i < 2; i += 1) await failsWith(email, 'wrong-password', address);
    }
    for (const address of attackers) {
      const limited = await failsWith(email, PASSWORD, address);
      expect(limited, address).to.include({ kind: 'rate_limited', code: 'too_many_attempts' });
      expect(limited.retryAfterSeconds).to.be.within(1, 15 * 60);
    }
    // The owner, from an address that has not failed for the account, is checked and let in.
    expect((await attempt(email, PASSWORD, '203.0.113.60')).profile!.email).to.equal(email);
    // A new address gets its password checked once; after a failure it is refused like the others.
    expect(await failsWith(email, 'wrong-password', '198.51.100.64')).to.include({ code: 'invalid_credentials' });
    expect(await failsWith(email, 'wrong-password', '198.51.100.64')).to.include({ kind: 'rate_limited' });

    harness.clock.advance(15 * MINUTE);
    expect(await failsWith(email, 'wrong-password', attackers[0]!)).to.include({ code: 'invalid_credentials' });
    expect((await attempt(email, PASSWORD, attackers[1]!)).profile!.email).to.equal(email);
  });
});
