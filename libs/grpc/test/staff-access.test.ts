/**
 * The staff rule of an access table, as both transports apply it (callContext): a staff member of an admitted role,
 * vouched for by the gateway only.
 */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import type { RpcAccess } from '@storefront/grpc';
import { callContext, vouchesForStaff } from '../src/access';

const OWNERS_ONLY: RpcAccess = { callers: ['gateway'], customer: 'none', staff: { required: ['owner'] } };
const never = () => false;

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
}

describe('grpc access: calls for console staff', () => {
  it('hands the handler the staff member of an admitted role', () => {
    const context = callContext(OWNERS_ONLY, 'gateway', undefined, never, {
      id: 'staff-1',
      role: 'owner',
      email: 'staff-1@example.com',
      clientAddress: '192.0.2.1',
    });
    expect(context.staff).to.deep.equal({
      id: 'staff-1',
      role: 'owner',
      email: 'staff-1@example.com',
      clientAddress: '192.0.2.1',
    });
  });

  it('refuses a call without a staff member, and one whose role the rule does not list', () => {
    expect(refusal(() => callContext(OWNERS_ONLY, 'gateway', 'customer-1', never))).to.include({
      kind: 'unauthenticated',
      code: 'staff_unauthorized',
    });
    expect(
      refusal(() =>
        callContext(OWNERS_ONLY, 'gateway', undefined, never, {
          id: 'staff-2',
          role: 'staff',
          email: 'staff-2@example.com',
          clientAddress: '192.0.2.1',
        }),
      ),
    ).to.include({ kind: 'permission_denied', code: 'staff_role_refused' });
  });

  it('believes only the gateway about staff, and only where the rule asks for staff', () => {
    expect(vouchesForStaff(OWNERS_ONLY, 'gateway')).to.equal(true);
    expect(vouchesForStaff(OWNERS_ONLY, 'checkout')).to.equal(false);
    expect(vouchesForStaff({ callers: ['gateway'], customer: 'optional' }, 'gateway')).to.equal(false);
    expect(
      callContext({ callers: ['gateway'], customer: 'optional' }, 'gateway', undefined, never, {
        id: 'staff-1',
        role: 'owner',
        email: 'staff-1@example.com',
        clientAddress: '192.0.2.1',
      }).staff,
    ).to.equal(undefined);
  });
});
