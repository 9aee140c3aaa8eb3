/**
 * The internal caller token: the gateway, having resolved the session cookie, tells services
 * who the customer is with a short-lived EdDSA-signed JWT in gRPC metadata. Services verify it
 * with the public key and never take a user id for a customer-facing call from a message.
 * A staff member of the console travels the same way in a token of its own (its own metadata
 * key and audience, so neither kind can pass for the other), naming the member and their role.
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
export const STAFF_TOKEN_METADATA = 'x-staff-token';
const ISSUER = 'storefront-gateway';
const AUDIENCE = 'storefront-services';
const STAFF_AUDIENCE = 'storefront-services-staff';

export const STAFF_ROLES = ['owner', 'staff'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

/**
 * A console staff member as the gateway vouches for them, with the address their request came from (for the audit log).
 */
export interface StaffIdentity {
  id: string;
  role: StaffRole;
  email: string;
  clientAddress: string;
}

/** The member as a JSON array in the subject: an email may contain any character a colon-separated form would need. */
const staffSubject = ({ id, role, email, clientAddress }: StaffIdentity) =>
  JSON.stringify([role, id, email, clientAddress]);

function parseStaffSubject(subject: string | undefined): StaffIdentity | undefined {
  if (subject === undefined) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(subject);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 4 || !fields.every((field) => typeof field === 'string'))
    return undefined;
  const [role, id, email, clientAddress] = fields as string[];
  return (STAFF_ROLES as readonly string[]).includes(role!) && id
    ? { id, role: role as StaffRole, email: email!, clientAddress: clientAddress! }
    : undefined;
}

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

  signStaff(staff: StaffIdentity): Promise<string> {
    return this.signer.sign({ issuer: ISSUER, audience: STAFF_AUDIENCE, subject: staffSubject(staff) });
  }
}

export class CallerTokenVerifier {
  private constructor(
    private readonly verifier: TokenVerifier,
    private readonly staffVerifier: TokenVerifier,
  ) {}

  static async fromPem(publicKeyPem: string, now: Clock = Date.now): Promise<CallerTokenVerifier> {
    const keys = new Map([[ISSUER, publicKeyFromPem(publicKeyPem)]]);
    return new CallerTokenVerifier(
      new TokenVerifier(keys, AUDIENCE, now),
      new TokenVerifier(keys, STAFF_AUDIENCE, now),
    );
  }

  /** The staff member a staff token vouches for, or undefined when it is missing, forged, expired or a customer's. */
  async verifyStaff(token: string | undefined): Promise<StaffIdentity | undefined> {
    return parseStaffSubject((await this.staffVerifier.verify(token))?.subject);
  }

  /** The user id the token vouches for, or undefined when it is missing, forged or expired. */
  async verify(token: string | undefined): Promise<string | undefined> {
    return (await this.verifier.verify(token))?.subject;
  }
}
