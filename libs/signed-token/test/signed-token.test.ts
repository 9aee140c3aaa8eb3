/** The token machinery under caller and service tokens: reuse, audience, issuer keys and the lifetime cap. */
import { expect } from 'chai';
import { SignJWT } from 'jose';
import {
  TokenSigner,
  TokenVerifier,
  generateEd25519KeyPair,
  privateKeyFromPem,
  publicKeyFromDer,
  publicKeyFromPem,
} from '@storefront/signed-token';

describe('signed-token', () => {
  const issuerKeys = generateEd25519KeyPair();
  const privateKey = privateKeyFromPem(issuerKeys.privateKeyPem);
  const keys = new Map([['gateway', publicKeyFromDer(issuerKeys.publicKeyDer)]]);
  const claims = { issuer: 'gateway', audience: 'identity', subject: 'user-1' };

  it('verifies a signed token for its audience and reuses it for half its 60 s life', async () => {
    let now = 1_700_000_000_000;
    const signer = new TokenSigner(privateKey, () => now);
    const verifier = new TokenVerifier(keys, 'identity', () => now);
    const first = await signer.sign(claims);
    expect(await verifier.verify(first)).to.deep.equal({ issuer: 'gateway', subject: 'user-1' });

    now += 29_000;
    expect(await signer.sign(claims)).to.equal(first);
    now += 2_000;
    expect(await signer.sign(claims)).to.not.equal(first);
    now += 30_000;
    expect(await verifier.verify(first), 'expired after 60 s').to.equal(undefined);
  });

  it('refuses another audience, an unknown issuer and a key that is not the issuer’s', async () => {
    const signer = new TokenSigner(privateKey);
    const token = await signer.sign(claims);
    expect(await new TokenVerifier(keys, 'loyalty').verify(token)).to.equal(undefined);
    expect(await new TokenVerifier(new Map(), 'identity').verify(token)).to.equal(undefined);
    const otherKey = publicKeyFromPem(generateEd25519KeyPair().publicKeyPem);
    expect(await new TokenVerifier(new Map([['gateway', otherKey]]), 'identity').verify(token)).to.equal(undefined);
    expect(await new TokenVerifier(keys, 'identity').verify(undefined)).to.equal(undefined);
  });

  it('refuses a token that claims to live longer than five minutes, whatever its exp says', async () => {
    const issuedAt = Math.floor(Date.now() / 1000);
    const sign = (lifetimeSeconds: number) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'EdDSA' })
        .setIssuer('gateway')
        .setAudience('identity')
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + lifetimeSeconds)
        .sign(privateKey);
    const verifier = new TokenVerifier(keys, 'identity');
    expect(await verifier.verify(await sign(300))).to.deep.equal({ issuer: 'gateway' });
    expect(await verifier.verify(await sign(301))).to.equal(undefined);
  });

  it('names the expected key form and never repeats the key when one does not parse', () => {
    expect(() => publicKeyFromDer('not base64!')).to.throw('not an Ed25519 public key as base64 SPKI DER');
    expect(() => privateKeyFromPem('-----BEGIN PRIVATE KEY-----\nsecret\n-----END PRIVATE KEY-----')).to.throw(
      /^not an Ed25519 private key in PKCS8 PEM$/,
    );
  });
});
