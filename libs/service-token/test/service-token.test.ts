import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { expect } from 'chai';
import { SignJWT } from 'jose';
import { ConfigError, EnvReader } from '@storefront/config';
import {
  ServiceTokenSigner,
  ServiceTokenVerifier,
  generateServiceKeyPair,
  readServiceTokenPrivateKey,
  readServiceTokenPublicKeys,
} from '@storefront/service-token';

describe('service token', () => {
  const gateway = generateServiceKeyPair();
  const checkout = generateServiceKeyPair();
  const stranger = generateServiceKeyPair();
  const start = Date.parse('2026-01-01T00:00:00Z');
  const publicKeys = { gateway: gateway.publicKeyDer, checkout: checkout.publicKeyDer };

  it('names the calling service to the audience it was signed for', async () => {
    const verifier = new ServiceTokenVerifier('loyalty', publicKeys);
    expect(
      await verifier.callerOf(await new ServiceTokenSigner('gateway', gateway.privateKeyPem).tokenFor('loyalty')),
    ).to.equal('gateway');
    expect(
      await verifier.callerOf(await new ServiceTokenSigner('checkout', checkout.privateKeyPem).tokenFor('loyalty')),
    ).to.equal('checkout');
  });

  it('refuses no token, garbage, another audience, a name signed by another service’s or an unknown key', async () => {
    const verifier = new ServiceTokenVerifier('loyalty', publicKeys);
    expect(await verifier.callerOf(undefined)).to.equal(undefined);
    expect(await verifier.callerOf('not-a-token')).to.equal(undefined);
    expect(
      await verifier.callerOf(await new ServiceTokenSigner('gateway', gateway.privateKeyPem).tokenFor('inventory')),
    ).to.equal(undefined);
    // checkout's key claiming to be the gateway, and a key nobody configured.
    expect(
      await verifier.callerOf(await new ServiceTokenSigner('gateway', checkout.privateKeyPem).tokenFor('loyalty')),
    ).to.equal(undefined);
    expect(
      await verifier.callerOf(await new ServiceTokenSigner('gateway', stranger.privateKeyPem).tokenFor('loyalty')),
    ).to.equal(undefined);
    expect(
      await new ServiceTokenVerifier('loyalty', { gateway: gateway.publicKeyDer }).callerOf(
        await new ServiceTokenSigner('checkout', checkout.privateKeyPem).tokenFor('loyalty'),
      ),
    ).to.equal(undefined);
  });

  it('refuses an expired token, also once it was cached as valid', async () => {
    let now = start;
    const token = await new ServiceTokenSigner('gateway', gateway.privateKeyPem, () => now).tokenFor('loyalty');
    const verifier = new ServiceTokenVerifier('loyalty', publicKeys, () => now);
    expect(await verifier.callerOf(token)).to.equal('gateway');
    now += 60_000;
    expect(await verifier.callerOf(token)).to.equal(undefined);
    expect(await new ServiceTokenVerifier('loyalty', publicKeys, () => now).callerOf(token)).to.equal(undefined);
  });

  it('refuses a correctly signed token that lives longer than five minutes', async () => {
    const iat = start / 1000;
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA' })
      .setIssuer('gateway')
      .setAudience('loyalty')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(createPrivateKey(gateway.privateKeyPem));
    expect(await new ServiceTokenVerifier('loyalty', publicKeys, () => start).callerOf(token)).to.equal(undefined);
  });

  it('reuses a token per audience for half its life, then signs a new one', async () => {
    let now = start;
    const signer = new ServiceTokenSigner('gateway', gateway.privateKeyPem, () => now);
    const first = await signer.tokenFor('loyalty');
    expect(await signer.tokenFor('loyalty')).to.equal(first);
    expect(await signer.tokenFor('inventory')).to.not.equal(first);
    now += 29_000;
    expect(await signer.tokenFor('loyalty')).to.equal(first);
    now += 2_000;
    expect(await signer.tokenFor('loyalty')).to.not.equal(first);
  });

  describe('configuration', () => {
    const env = (vars: Record<string, string>) => new EnvReader(vars);
    const list = `gateway=${gateway.publicKeyDer}, checkout=${checkout.publicKeyDer}`;

    it('reads the public keys and insists on one for every admitted caller', () => {
      expect(
        readServiceTokenPublicKeys(env({ SERVICE_TOKEN_PUBLIC_KEYS: list }), ['gateway', 'checkout']),
      ).to.deep.equal(publicKeys);
      expect(() =>
        readServiceTokenPublicKeys(env({ SERVICE_TOKEN_PUBLIC_KEYS: `gateway=${gateway.publicKeyDer}` }), [
          'gateway',
          'checkout',
        ]),
      ).to.throw(ConfigError, 'SERVICE_TOKEN_PUBLIC_KEYS needs a key for checkout');
      expect(() => readServiceTokenPublicKeys(env({}), ['gateway'])).to.throw(
        ConfigError,
        'SERVICE_TOKEN_PUBLIC_KEYS needs a key for gateway',
      );
    });

    it('names the variable and the entry at fault, never the key', () => {
      const bad = (value: string) => () => readServiceTokenPublicKeys(env({ SERVICE_TOKEN_PUBLIC_KEYS: value }), []);
      expect(bad(`gatewy=${gateway.publicKeyDer}`)).to.throw(
        ConfigError,
        /^SERVICE_TOKEN_PUBLIC_KEYS entries must be <service>=<base64 key>.*"gatewy"$/,
      );
      expect(bad(gateway.publicKeyDer)).to.throw(ConfigError, 'SERVICE_TOKEN_PUBLIC_KEYS entries must be');
      expect(bad(`${list},gateway=${gateway.publicKeyDer}`)).to.throw(
        ConfigError,
        'SERVICE_TOKEN_PUBLIC_KEYS names gateway twice',
      );
      expect(bad('gateway=bm90IGEga2V5')).to.throw(
        ConfigError,
        'SERVICE_TOKEN_PUBLIC_KEYS entry gateway is not an Ed25519 public key as base64 SPKI DER',
      );
      const x25519 = generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
      expect(bad(`gateway=${x25519}`)).to.throw(
        ConfigError,
        'SERVICE_TOKEN_PUBLIC_KEYS entry gateway is not an Ed25519 public key',
      );
    });

    it('reads this process’s private key, refusing anything but an Ed25519 PKCS8 PEM without echoing it', () => {
      expect(readServiceTokenPrivateKey(env({ SERVICE_TOKEN_PRIVATE_KEY: gateway.privateKeyPem }))).to.equal(
        gateway.privateKeyPem.trim(),
      );
      expect(() => readServiceTokenPrivateKey(env({}))).to.throw(
        ConfigError,
        'SERVICE_TOKEN_PRIVATE_KEY is required but not set',
      );
      const secretLooking = '-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----';
      let message = '';
      try {
        readServiceTokenPrivateKey(env({ SERVICE_TOKEN_PRIVATE_KEY: secretLooking }));
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).to.equal('SERVICE_TOKEN_PRIVATE_KEY is not an Ed25519 private key in PKCS8 PEM');
      expect(() => readServiceTokenPrivateKey(env({ SERVICE_TOKEN_PRIVATE_KEY: gateway.publicKeyPem }))).to.throw(
        ConfigError,
        'is not an Ed25519 private key',
      );
    });
  });
});
