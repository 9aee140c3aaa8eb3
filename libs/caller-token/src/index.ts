/**
 * The internal caller token: the gateway, having resolved the session cookie, tells services
 * who the customer is with a short-lived EdDSA-signed JWT in gRPC metadata. Services verify it
 * with the public key and never take a user id for a customer-facing call from a message.
 */
import { SignJWT, jwtVerify, importPKCS8, importSPKI, generateKeyPair, exportPKCS8, exportSPKI } from 'jose';

export const CALLER_TOKEN_METADATA = 'x-caller-token';
const ISSUER = 'storefront-gateway';
const AUDIENCE = 'storefront-services';
const ALGORITHM = 'EdDSA';
const LIFETIME_SECONDS = 60;
// Tokens are reused for half their life so signing stays off the hot path.
const REUSE_SECONDS = LIFETIME_SECONDS / 2;
const CACHE_LIMIT = 10_000;

export interface CallerKeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
}

export async function generateCallerKeyPair(): Promise<CallerKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { crv: 'Ed25519', extractable: true });
  return { privateKeyPem: await exportPKCS8(privateKey), publicKeyPem: await exportSPKI(publicKey) };
}

type Clock = () => number;
type SigningKey = Awaited<ReturnType<typeof importPKCS8>>;
type VerifyingKey = Awaited<ReturnType<typeof importSPKI>>;

export class CallerTokenSigner {
  private readonly cache = new Map<string, { token: string; reuseUntil: number }>();

  private constructor(private readonly key: SigningKey, private readonly now: Clock) {}

  static async fromPem(privateKeyPem: string, now: Clock = Date.now): Promise<CallerTokenSigner> {
    return new CallerTokenSigner(await importPKCS8(privateKeyPem, ALGORITHM), now);
  }

  async sign(userId: string): Promise<string> {
    const nowMs = this.now();
    const cached = this.cache.get(userId);
    if (cached && cached.reuseUntil > nowMs) return cached.token;
    const issuedAt = Math.floor(nowMs / 1000);
    const token = await new SignJWT({})
      .setProtectedHeader({ alg: ALGORITHM })
      .setSubject(userId)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + LIFETIME_SECONDS)
      .sign(this.key);
    remember(this.cache, userId, { token, reuseUntil: nowMs + REUSE_SECONDS * 1000 });
    return token;
  }
}

export class CallerTokenVerifier {
  private readonly cache = new Map<string, { userId: string; expiresAt: number }>();

  private constructor(private readonly key: VerifyingKey, private readonly now: Clock) {}

  static async fromPem(publicKeyPem: string, now: Clock = Date.now): Promise<CallerTokenVerifier> {
    return new CallerTokenVerifier(await importSPKI(publicKeyPem, ALGORITHM), now);
  }

  /** The user id the token vouches for, or undefined when it is missing, forged or expired. */
  async verify(token: string | undefined): Promise<string | undefined> {
    if (!token) return undefined;
    const nowMs = this.now();
    const cached = this.cache.get(token);
    if (cached) return cached.expiresAt > nowMs ? cached.userId : undefined;
    try {
      const { payload } = await jwtVerify(token, this.key, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: [ALGORITHM],
        currentDate: new Date(nowMs),
      });
      if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') return undefined;
      remember(this.cache, token, { userId: payload.sub, expiresAt: payload.exp * 1000 });
      return payload.sub;
    } catch {
      return undefined;
    }
  }
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, value);
}
