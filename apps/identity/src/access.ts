/** Who may call each identity RPC: only the gateway; profile RPCs act for its customer. */
import type { AccessTable } from '@storefront/grpc';
import type { identity } from '@storefront/proto';

export const IDENTITY_ACCESS: AccessTable<typeof identity.IdentityServiceService> = {
  signUp: { callers: ['gateway'], customer: 'none' },
  logIn: { callers: ['gateway'], customer: 'none' },
  logOut: { callers: ['gateway'], customer: 'none' },
  resolveSession: { callers: ['gateway'], customer: 'none' },
  getProfile: { callers: ['gateway'], customer: 'required' },
  updateProfile: { callers: ['gateway'], customer: 'required' },
};
