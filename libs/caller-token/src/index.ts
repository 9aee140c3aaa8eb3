/**
 * The internal caller token: the gateway, having resolved the session cookie, tells services
 * who the customer is with a short-lived EdDSA-signed JWT in gRPC metadata. Services verify it
 * with the public key and never take a user id for a customer-facing call from a message.
 */
import {
  TokenSigner,
  TokenVerifier,
  generateEd25519KeyPair,
  privateKeyFromPem,
  publicKeyFromPem,
  type Clock,
} from '@storefront/signed-token';

export const CALLER_TOKEN_METADATA = 'x-caller-token';
const ISSUER = 'storefront-gateway';
const AUDIENCE = 'storefront-services';

export interface CallerKeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
}

export async function generateCallerKeyPair(): Promise<CallerKeyPair> {
  const { privateKeyPem, publicKeyPem } = generateEd25519KeyPair();
  return { privateKeyPem, publicKeyPem };
}

export class CallerTokenSigner {
  private constructor(private readonly signer: TokenSigner) {}

  static async fromPem(privateKeyPem: string, now: Clock = Date.now): Promise<CallerTokenSigner> {
    return new CallerTokenSigner(new TokenSigner(privateKeyFromPem(privateKeyPem), now));
  }

  sign(userId: string): Promise<string> {
    return this.signer.sign({ issuer: ISSUER, audience: AUDIENCE, subject: userId });
  }
}

export class CallerTokenVerifier {
  private constructor(private readonly verifier: TokenVerifier) {}

  static async fromPem(publicKeyPem: string, now: Clock = Date.now): Promise<CallerTokenVerifier> {
    return new CallerTokenVerifier(new TokenVerifier(new Map([[ISSUER, publicKeyFromPem(publicKeyPem)]]), AUDIENCE, now));
  }

  /** The user id the token vouches for, or undefined when it is missing, forged or expired. */
  async verify(token: string | undefined): Promise<string | undefined> {
    return (await this.verifier.verify(token))?.subject;
  }
}
