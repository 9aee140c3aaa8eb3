/** Sign-ups and logins whose gRPC call is gone (deadline passed, cancelled) by the time the hash is done. */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import type { identity } from '@storefront/proto';
import { rejection, sessionCountOf, startForSuite } from '@storefront/testing';
import { startIdentity, type IdentityHarness } from './support';

const PASSWORD = 'plum-tractor-42';
// About 0.2 s a hash, far beyond the short deadline below.
const SLOW_ARGON2 = { ARGON2_MEMORY_KIB: '65536', ARGON2_TIME_COST: '3', ARGON2_MAX_CONCURRENT: '1' };
const SHORT_DEADLINE_MS = 40;

const signUpRequest = (): identity.SignUpRequest => ({
  email: `late-${randomBytes(5).toString('hex')}@example.test`,
  password: PASSWORD,
  firstName: 'Ada',
  lastName: 'Lovelace',
  clientAddress: '192.0.2.1',
});

describe('identity: calls that end while their password is hashed', () => {
  let harness: IdentityHarness;
  startForSuite(
    () => startIdentity(SLOW_ARGON2),
    (started) => (harness = started),
  );

  // With one hash at a time, a call made afterwards finishes only after the abandoned one did.
  const afterEarlierHashes = () =>
    harness.client
      .logIn({ email: 'nobody@example.test', password: PASSWORD, clientAddress: '192.0.2.9' })
      .catch(() => undefined);

  it('opens no session for a login whose deadline passes during the hash', async () => {
    const { profile } = await harness.client.signUp(signUpRequest());
    expect(await sessionCountOf(harness.stores, harness.server.db, profile!.id)).to.equal(1);
    const late = await rejection(
      harness.client.logIn(
        { email: profile!.email, password: PASSWORD, clientAddress: '192.0.2.2' },
        { deadlineMs: SHORT_DEADLINE_MS },
      ),
    );
    expect(late).to.be.instanceOf(AppError).and.include({ kind: 'timeout' });
    await afterEarlierHashes();
    expect(await sessionCountOf(harness.stores, harness.server.db, profile!.id)).to.equal(1);
    // The same login with time to finish succeeds: only the late call was dropped.
    await harness.client.logIn({ email: profile!.email, password: PASSWORD, clientAddress: '192.0.2.2' });
    expect(await sessionCountOf(harness.stores, harness.server.db, profile!.id)).to.equal(2);
  });

  it('creates no account for a sign-up whose deadline passes during the hash', async () => {
    const request = signUpRequest();
    const late = await rejection(harness.client.signUp(request, { deadlineMs: SHORT_DEADLINE_MS }));
    expect(late).to.be.instanceOf(AppError).and.include({ kind: 'timeout' });
    await afterEarlierHashes();
    expect(await harness.server.db('users').where({ email: request.email }).first()).to.equal(undefined);
  });
});
