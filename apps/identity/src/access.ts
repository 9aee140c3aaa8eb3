/** Who may call each identity RPC: only the gateway; profile RPCs act for its customer. */
import { accessTable } from '@storefront/grpc';
import { identity } from '@storefront/proto';

export const IDENTITY_ACCESS = accessTable(identity.IdentityServiceService, [
  {
    callers: ['gateway'],
    customer: 'none',
    rpcs: [
      'signUp',
      'logIn',
      'logOut',
      'resolveSession',
      'requestPasswordReset',
      'resetPassword',
      'verifyEmail',
      // The token of the link is in the message: one click from a mail, without a session.
      'unsubscribe',
    ],
  },
  // The console's staff: the set-up token, credentials or staff session is in the message.
  {
    callers: ['gateway'],
    customer: 'none',
    rpcs: ['getStaffSetup', 'completeStaffSetup', 'staffLogIn', 'staffLogOut', 'resolveStaffSession'],
  },
  {
    callers: ['gateway'],
    customer: 'required',
    rpcs: [
      'getProfile',
      'updateProfile',
      'changePassword',
      'requestEmailChange',
      'getMarketingConsent',
      'setMarketingConsent',
      'exportAccountData',
      'closeAccount',
    ],
  },
  // The console: an owner closes a customer's account at their request (audited).
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner'] }, rpcs: ['closeAccountForStaff'] },
  // The edge drives each erasure through the other components until all confirmed (decision 1300).
  { callers: ['gateway'], customer: 'none', rpcs: ['listPendingErasures', 'recordErasureStep'] },
  // The console's audit log: any staff member reads it.
  { callers: ['gateway'], customer: 'none', staff: { required: ['owner', 'staff'] }, rpcs: ['listStaffActions'] },
  // The console's mail log: any staff member reads it, as they read customers (decision 1305).
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['listMailLog', 'getMailForStaff'],
  },
  // The console's staff page: any staff member lists the members; for adding, resetting, disabling and re-enabling
  // one, the roster refuses (and records) any role but owner itself.
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['listStaff', 'addStaff', 'resetStaff', 'disableStaff', 'reenableStaff'],
  },
  // The console: any staff member looks a customer up.
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['findCustomerForStaff', 'getCustomerForStaff', 'searchCustomersForStaff', 'listDataRequestsForStaff'],
  },
  // The console's exports: any staff member exports the customers, recorded first (decision 1315).
  {
    callers: ['gateway'],
    customer: 'none',
    staff: { required: ['owner', 'staff'] },
    rpcs: ['listCustomersForStaff', 'recordCustomersExport'],
  },
]);
