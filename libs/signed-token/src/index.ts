/**
 * Short-lived EdDSA (Ed25519) JWTs between the platform's own processes, the machinery under
 * the caller token and the service token. The signer reuses a token for half its life so
 * signing stays off the hot path; the verifier caches verified tokens until they expire (in a
 * bounded cache) and refuses any token that lacks `iat`, claims to be issued in the future or
 * lives longer than MAX_LIFETIME_SECONDS, whatever its `exp` says.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { SignJWT, decodeJwt, jwtVerify } from 'jose';

const ALGORITHM = 'EdDSA';
const TOKEN_LIFETIME_SECONDS = 60;
// A token is reused for half its life, so a receiver always gets at least 30 s of validity.
const REUSE_MS = (TOKEN_LIFETIME_SECONDS / 2) * 1000;
const MAX_LIFETIME_SECONDS = 5 * 60;
// Clocks of two hosts may disagree by this much about `iat`.
const CLOCK_TOLERANCE_SECONDS = 5;
const CACHE_LIMIT = 10_000;

export type Clock = () => number;

export interface TokenClaims {
  issuer: string;
  audience: string;
  subject?: string;
}

export interface VerifiedToken {
  issuer: string;
  subject?: string;
}

export interface Ed25519KeyPair {
  privateKeyPem: string;
  publicKeyPem: string;
  /** The public key as base64 SPKI DER: one line, for lists in an environment variable. */
  publicKeyDer: string;
}

export function generateEd25519KeyPair(): Ed25519KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    publicKeyDer: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

/** Throws a message that never repeats the key: keys are secrets or look like them. */
export function privateKeyFromPem(pem: string): KeyObject {
  return ed25519(() => createPrivateKey(pem), 'an Ed25519 private key in PKCS8 PEM');
}

export function publicKeyFromPem(pem: string): KeyObject {
  return ed25519(() => createPublicKey(pem), 'an Ed25519 public key in SPKI PEM');
}

export function publicKeyFromDer(base64: string): KeyObject {
  const what = 'an Ed25519 public key as base64 SPKI DER';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) throw new Error(`not ${what}`);
  return ed25519(() => createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' }), what);
}

function ed25519(load: () => KeyObject, what: string): KeyObject {
  let key: KeyObject;
  try {
    key = load();
  } catch {
    throw new Error(`not ${what}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`not ${what}`);
  return key;
}

export class TokenSigner {
  private readonly cache = new BoundedCache<{ token: string; reuseUntil: number }>();

  constructor(
    private readonly key: KeyObject,
    private readonly now: Clock = Date.now,
  ) {}

  async sign(claims: TokenClaims): Promise<string> {
    const nowMs = this.now();
    const cacheKey = `${claims.issuer}\n${claims.audience}\n${claims.subject ?? ''}`;
    const cached = this.cache.get(cacheKey);
    if (cached && cached.reuseUntil > nowMs) return cached.token;
    const issuedAt = Math.floor(nowMs / 1000);
    const jwt = new SignJWT({})
      .setProtectedHeader({ alg: ALGORITHM })
      .setIssuer(claims.issuer)
      .setAudience(claims.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + TOKEN_LIFETIME_SECONDS);
    if (claims.subject !== undefined) jwt.setSubject(claims.subject);
    const token = await jwt.sign(this.key);
    this.cache.set(cacheKey, { token, reuseUntil: nowMs + REUSE_MS });
    return token;
  }
}

export class TokenVerifier {
  private readonly cache = new BoundedCache<{ verified: VerifiedToken; expiresAt: number }>();

  /** `keys`: the public key of each issuer this verifier believes; `audience`: who it verifies for. */
  constructor(
    private readonly keys: ReadonlyMap<string, KeyObject>,
    private readonly audience: string,
    private readonly now: Clock = Date.now,
  ) {}

  /** Issuer and subject of a valid token; undefined when it is missing, forged, expired or not for us. */
  async verify(token: string | undefined): Promise<VerifiedToken | undefined> {
    if (!token) return undefined;
    const nowMs = this.now();
    const cached = this.cache.get(token);
    if (cached) return cached.expiresAt > nowMs ? cached.verified : undefined;
    try {
      const issuer = decodeJwt(token).iss;
      const key = issuer === undefined ? undefined : this.keys.get(issuer);
      if (!key) return undefined;
      const { payload } = await jwtVerify(token, key, {
        issuer,
        audience: this.audience,
        algorithms: [ALGORITHM],
        currentDate: new Date(nowMs),
        requiredClaims: ['exp'],
        maxTokenAge: MAX_LIFETIME_SECONDS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
      const expiresAt = payload.exp! * 1000;
      // The tolerance is for iat only (jose checks it is present and not in the future): expiry
      // is exact, and the whole life is capped.
      if (expiresAt <= nowMs || payload.exp! - payload.iat! > MAX_LIFETIME_SECONDS) return undefined;
      const verified: VerifiedToken = {
        issuer: issuer!,
        ...(typeof payload.sub === 'string' ? { subject: payload.sub } : {}),
      };
      this.cache.set(token, { verified, expiresAt });
      return verified;
    } catch {
      return undefined;
    }
  }
}

/** A map that forgets everything when full: entries are cheap to recreate and live a minute. */
class BoundedCache<V> {
  private readonly entries = new Map<string, V>();

  get(key: string): V | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: V): void {
    if (this.entries.size >= CACHE_LIMIT) this.entries.clear();
    this.entries.set(key, value);
  }
}
