import { expect } from 'chai';
import { SignJWT, importPKCS8 } from 'jose';
import {
  CallerTokenSigner,
  CallerTokenVerifier,
  generateCallerKeyPair,
  type CallerKeyPair,
} from '@storefront/caller-token';

describe('caller token', () => {
  let keys: CallerKeyPair;
  let otherKeys: CallerKeyPair;
  before(async () => {
    [keys, otherKeys] = await Promise.all([generateCallerKeyPair(), generateCallerKeyPair()]);
  });

  it('round-trips the user id', async () => {
    const signer = await CallerTokenSigner.fromPem(keys.privateKeyPem);
    const verifier = await CallerTokenVerifier.fromPem(keys.publicKeyPem);
    expect(await verifier.verify(await signer.sign('user-1'))).to.equal('user-1');
  });

  it("round-trips a staff member and role, never taking a customer's token for a staff one or vice versa", async () => {
    const signer = await CallerTokenSigner.fromPem(keys.privateKeyPem);
    const verifier = await CallerTokenVerifier.fromPem(keys.publicKeyPem);
    const staffToken = await signer.signStaff({
      id: 'staff-1',
      role: 'owner',
      email: '"odd:name"@example.com',
      clientAddress: '192.0.2.1',
    });
    expect(await verifier.verifyStaff(staffToken)).to.deep.equal({
      id: 'staff-1',
      role: 'owner',
      email: '"odd:name"@example.com',
      clientAddress: '192.0.2.1',
    });
    expect(await verifier.verify(staffToken)).to.equal(undefined);
    expect(await verifier.verifyStaff(await signer.sign('owner:user-1'))).to.equal(undefined);
    const forger = await CallerTokenSigner.fromPem(otherKeys.privateKeyPem);
    expect(
      await verifier.verifyStaff(
        await forger.signStaff({
          id: 'staff-1',
          role: 'owner',
          email: 'staff-1@example.com',
          clientAddress: '192.0.2.1',
        }),
      ),
    ).to.equal(undefined);
  });

  it('rejects a token signed with another key, a tampered token and garbage', async () => {
    const forger = await CallerTokenSigner.fromPem(otherKeys.privateKeyPem);
    const signer = await CallerTokenSigner.fromPem(keys.privateKeyPem);
    const verifier = await CallerTokenVerifier.fromPem(keys.publicKeyPem);
    expect(await verifier.verify(await forger.sign('user-1'))).to.equal(undefined);
    const [header, , signature] = (await signer.sign('user-1')).split('.');
    const otherPayload = Buffer.from(JSON.stringify({ sub: 'admin' })).toString('base64url');
    expect(await verifier.verify(`${header}.${otherPayload}.${signature}`)).to.equal(undefined);
    expect(await verifier.verify('not-a-token')).to.equal(undefined);
    expect(await verifier.verify(undefined)).to.equal(undefined);
  });

  it('rejects an expired token, also once it was cached as valid', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const signer = await CallerTokenSigner.fromPem(keys.privateKeyPem, () => now);
    const verifier = await CallerTokenVerifier.fromPem(keys.publicKeyPem, () => now);
    const token = await signer.sign('user-1');
    expect(await verifier.verify(token)).to.equal('user-1');
    now += 61_000;
    expect(await verifier.verify(token)).to.equal(undefined);
  });

  it('rejects a token with another audience', async () => {
    const verifier = await CallerTokenVerifier.fromPem(keys.publicKeyPem);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject('user-1')
      .setIssuer('storefront-gateway')
      .setAudience('someone-else')
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(await importPKCS8(keys.privateKeyPem, 'EdDSA'));
    expect(await verifier.verify(token)).to.equal(undefined);
  });

  it('reuses a signed token for a while and signs a new one after', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const signer = await CallerTokenSigner.fromPem(keys.privateKeyPem, () => now);
    const first = await signer.sign('user-1');
    expect(await signer.sign('user-1')).to.equal(first);
    expect(await signer.sign('user-2')).to.not.equal(first);
    now += 31_000;
    expect(await signer.sign('user-1')).to.not.equal(first);
  });

  describe('lifetime cap', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const nowSeconds = now / 1000;
    async function tokenWith(claims: { iat?: number; exp: number }): Promise<string> {
      const jwt = new SignJWT({})
        .setProtectedHeader({ alg: 'EdDSA' })
        .setSubject('user-1')
        .setIssuer('storefront-gateway')
        .setAudience('storefront-services')
        .setExpirationTime(claims.exp);
      if (claims.iat !== undefined) jwt.setIssuedAt(claims.iat);
      return jwt.sign(await importPKCS8(keys.privateKeyPem, 'EdDSA'));
    }
    const verify = async (token: string) =>
      (await CallerTokenVerifier.fromPem(keys.publicKeyPem, () => now)).verify(token);

    it('accepts a token that lives five minutes', async () => {
      expect(await verify(await tokenWith({ iat: nowSeconds, exp: nowSeconds + 300 }))).to.equal('user-1');
    });

    it('refuses a token that lives longer than five minutes, whatever its exp says', async () => {
      expect(await verify(await tokenWith({ iat: nowSeconds, exp: nowSeconds + 301 }))).to.equal(undefined);
      expect(await verify(await tokenWith({ iat: nowSeconds - 10, exp: nowSeconds + 24 * 3600 }))).to.equal(undefined);
    });

    it('refuses a token without iat, and one issued in the future', async () => {
      expect(await verify(await tokenWith({ exp: nowSeconds + 60 }))).to.equal(undefined);
      expect(await verify(await tokenWith({ iat: nowSeconds + 3600, exp: nowSeconds + 3660 }))).to.equal(undefined);
    });
  });
});
