/**
 * The console's staff RPCs: any staff member lists the members; only an owner adds, resets and disables one (a member
 * of another role is refused and the refusal recorded); nobody without a staff member is admitted; an owner may not
 * disable themselves, nor anyone the last owner who is not disabled; every change is in the audit log.
 */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import type { StaffIdentity } from '@storefront/caller-token';
import { startForSuite } from '@storefront/testing';
import { startIdentity, type IdentityHarness } from './support';

/** Who the ops command line acts as: an owner who is no member. */
const OPERATOR: StaffIdentity = { id: 'ops:operator', role: 'owner', email: 'operator', clientAddress: 'ops-cli' };

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'expected a refusal').to.be.instanceOf(AppError);
  return error as AppError;
}

describe('identity: the console staff RPCs', () => {
  let harness: IdentityHarness;
  startForSuite(
    () => startIdentity(),
    (started) => (harness = started),
  );

  const asMember = (staff: { id: string; email: string; role: string }, clientAddress: string): StaffIdentity => ({
    id: staff.id,
    email: staff.email,
    role: staff.role as StaffIdentity['role'],
    clientAddress,
  });
  const auditOf = async (query: { subject?: string; staffEmail?: string; action?: string }) => {
    const { page } = await harness.client.listStaffActions(
      {
        query: {
          staffEmail: '',
          action: '',
          subject: '',
          ...query,
          fromAt: 0,
          untilAt: 0,
          beforeAt: 0,
          beforeId: 0,
          limit: 10,
        },
      },
      { staff: OPERATOR },
    );
    return page!.actions.reverse();
  };
  const states = async (staff: StaffIdentity) =>
    (await harness.client.listStaff({}, { staff })).staff.map(
      ({ member, state }) => `${member!.email} ${member!.role} ${state}`,
    );

  it('lets an owner add, reset and disable members, and any staff member list them; each change audited', async () => {
    const added = await harness.client.addStaff({ email: 'Boss@Shop.test', role: 'owner' }, { staff: OPERATOR });
    expect(added.staff).to.deep.include({ email: 'boss@shop.test', role: 'owner' });
    expect(added.setupToken).to.have.length.greaterThan(20);
    expect(Date.parse(added.setupExpiresAt)).to.equal(harness.clock.ms + 24 * 60 * 60 * 1000);
    const owner = asMember(added.staff!, '192.0.2.1');
    const clerkAdded = await harness.client.addStaff({ email: 'clerk@shop.test', role: 'staff' }, { staff: owner });
    const clerk = asMember(clerkAdded.staff!, '192.0.2.2');
    await harness.client.addStaff({ email: 'leaver@shop.test', role: 'staff' }, { staff: owner });

    // A staff member reads the list, with when each was added; no login is recorded yet.
    const { staff: listed } = await harness.client.listStaff({}, { staff: clerk });
    expect(listed.map(({ member }) => member!.email)).to.deep.equal([
      'boss@shop.test',
      'clerk@shop.test',
      'leaver@shop.test',
    ]);
    for (const entry of listed) {
      expect(entry.state).to.equal('setup_pending');
      expect(entry.addedAt).to.equal(new Date(harness.clock.ms).toISOString());
      expect(entry.lastLoginAt).to.equal('');
    }

    const reset = await harness.client.resetStaff({ email: 'leaver@shop.test' }, { staff: owner });
    expect(reset.setupToken).to.not.equal('');
    const disabled = await harness.client.disableStaff({ email: 'LEAVER@shop.test' }, { staff: owner });
    expect(disabled.staff).to.deep.include({ email: 'leaver@shop.test' });
    expect(disabled.disabledAt).to.equal(new Date(harness.clock.ms).toISOString());
    expect(await states(owner)).to.deep.equal([
      'boss@shop.test owner setup_pending',
      'clerk@shop.test staff setup_pending',
      'leaver@shop.test staff disabled',
    ]);

    const audited = await auditOf({ subject: 'leaver@shop.test' });
    expect(audited.map(({ action, staffEmail }) => `${action} by ${staffEmail}`)).to.deep.equal([
      'staff_added by boss@shop.test',
      'staff_reset by boss@shop.test',
      'staff_disabled by boss@shop.test',
    ]);
  });

  it('refuses a change by a non-owner member (403), recording it, and anyone without a staff member', async () => {
    const { staff: added } = await harness.client.addStaff(
      { email: 'role-clerk@shop.test', role: 'staff' },
      { staff: OPERATOR },
    );
    const clerk = asMember(added!, '192.0.2.3');
    const before = await states(clerk);
    for (const change of [
      () => harness.client.addStaff({ email: 'new@shop.test', role: 'owner' }, { staff: clerk }),
      () => harness.client.resetStaff({ email: 'boss@shop.test' }, { staff: clerk }),
      () => harness.client.disableStaff({ email: 'boss@shop.test' }, { staff: clerk }),
    ]) {
      const refused = await refusal(change());
      expect(refused.kind).to.equal('permission_denied');
      expect(refused.code).to.equal('staff_role_refused');
      expect(refused.detail).to.match(/^Only an owner may (add|reset|disable) a staff member$/);
    }
    expect(await states(clerk)).to.deep.equal(before);
    const refusals = await auditOf({ staffEmail: 'role-clerk@shop.test', action: 'role_refused' });
    expect(refusals.map(({ subject, afterJson }) => `${subject} ${afterJson}`)).to.deep.equal([
      'new@shop.test {"refused":"staff_added"}',
      'boss@shop.test {"refused":"staff_reset"}',
      'boss@shop.test {"refused":"staff_disabled"}',
    ]);

    for (const call of [
      () => harness.client.listStaff({}),
      () => harness.client.listStaff({}, { customer: 'a-customer-id' }),
      () => harness.client.addStaff({ email: 'new@shop.test', role: 'staff' }, { customer: 'a-customer-id' }),
      () => harness.client.disableStaff({ email: 'role-clerk@shop.test' }),
    ])
      expect((await refusal(call())).code).to.equal('staff_unauthorized');
  });

  it('refuses an owner disabling themselves, and disabling the last owner who is not disabled', async () => {
    const { staff: added } = await harness.client.addStaff(
      { email: 'sole@shop.test', role: 'owner' },
      { staff: OPERATOR },
    );
    const sole = asMember(added!, '192.0.2.4');
    const self = await refusal(harness.client.disableStaff({ email: 'sole@shop.test' }, { staff: sole }));
    expect([self.kind, self.code, self.detail]).to.deep.equal([
      'conflict',
      'staff_disabling_self',
      'You may not disable yourself; another owner may disable you',
    ]);

    // boss@shop.test is the other owner not disabled: disabled, sole@shop.test is the last, whoever asks.
    await harness.client.disableStaff({ email: 'boss@shop.test' }, { staff: sole });
    const last = await refusal(harness.client.disableStaff({ email: 'sole@shop.test' }, { staff: OPERATOR }));
    expect([last.kind, last.code]).to.deep.equal(['conflict', 'last_owner']);
    expect(last.detail).to.equal(
      'sole@shop.test is the last owner who is not disabled; add or re-enable another owner first',
    );
    expect(await states(sole)).to.include('sole@shop.test owner setup_pending');

    await harness.client.reenableStaff({ email: 'boss@shop.test' }, { staff: sole });
    await harness.client.disableStaff({ email: 'sole@shop.test' }, { staff: OPERATOR });
    expect(await states(OPERATOR)).to.include('sole@shop.test owner disabled');
  });

  it('answers bad input with a 4xx naming what is wrong', async () => {
    const cases: Array<[() => Promise<unknown>, string, RegExp]> = [
      [
        () => harness.client.addStaff({ email: 'not an email', role: 'staff' }, { staff: OPERATOR }),
        'invalid_argument',
        /email/,
      ],
      [
        () => harness.client.addStaff({ email: 'x@shop.test', role: 'admin' }, { staff: OPERATOR }),
        'invalid_argument',
        /role must be one of owner, staff/,
      ],
      [
        () => harness.client.addStaff({ email: 'clerk@shop.test', role: 'staff' }, { staff: OPERATOR }),
        'conflict',
        /already a staff member/,
      ],
      [
        () => harness.client.disableStaff({ email: 'nobody@shop.test' }, { staff: OPERATOR }),
        'not_found',
        /nobody@shop.test/,
      ],
      [
        () => harness.client.resetStaff({ email: 'nobody@shop.test' }, { staff: OPERATOR }),
        'not_found',
        /nobody@shop.test/,
      ],
      [
        () => harness.client.disableStaff({ email: 'leaver@shop.test' }, { staff: OPERATOR }),
        'conflict',
        /already disabled/,
      ],
      [() => harness.client.resetStaff({ email: 'leaver@shop.test' }, { staff: OPERATOR }), 'conflict', /is disabled/],
    ];
    for (const [call, kind, message] of cases) {
      const refused = await refusal(call());
      expect(refused.kind, String(message)).to.equal(kind);
      expect(refused.detail).to.match(message);
    }
  });
});
