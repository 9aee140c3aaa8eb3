/**
 * The console's staff members page: every member listed for any staff member; an owner adds a member (the set-up link
 * shown once), resets one, and disables one after a confirmation; a staff member reads only; bad input is said on the
 * page with a 4xx; a form from another site changes nothing.
 */
import { expect } from 'chai';
import type { Stack } from '@storefront/platform-testing';
import type { HttpClient } from '@storefront/testing';
import { startCheckoutStack } from '../../../checkout/test/support';
import { completeSetup, postConsoleForm, signedInStaff } from '../support/console';

/** The row of the members table for `email`: its cells' text. */
function rowOf(page: string, email: string): string[] {
  const row = new RegExp(`<tr><th scope="row">${email.replace(/[.]/g, '\\.')}</th>(.*?)</tr>`).exec(page);
  expect(row, `a row for ${email}`).to.not.equal(null);
  return [...row![1]!.matchAll(/<td>(.*?)<\/td>/g)].map((cell) => cell[1]!);
}

const setupLinkOf = (page: string) => /<code id="setup-link">([^<]+)<\/code>/.exec(page)![1]!;

describe('the console: staff members page', () => {
  let stack: Stack;
  let owner: HttpClient;
  let clerk: HttpClient;
  before(async () => {
    stack = await startCheckoutStack();
    owner = stack.client();
    await signedInStaff(stack, owner, 'members-owner@shop.test', 'owner');
    clerk = stack.client();
    await signedInStaff(stack, clerk, 'members-clerk@shop.test', 'staff');
  });
  after(async () => stack?.stop());

  it('lets an owner add a member, whose set-up link is shown once and who is listed as set-up pending', async () => {
    const page = await owner.get<string>('/console/staff');
    expect(page.status).to.equal(200);
    expect(page.text).to.include('<h2>Add a staff member</h2>');
    expect(page.text).to.include('<label for="add-email">Email</label>');
    const [role, state, added, lastLogin] = rowOf(page.text, 'members-owner@shop.test');
    expect([role, state]).to.deep.equal(['owner', 'active']);
    expect(added).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} (GMT|BST)$/);
    expect(lastLogin).to.match(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} (GMT|BST)$/);

    const done = await postConsoleForm(stack, owner, '/console/staff/add', { email: 'New@Shop.test', role: 'staff' });
    expect(done.status, done.text).to.equal(200);
    expect(done.text).to.include('new@shop.test is added as staff.');
    const link = new URL(setupLinkOf(done.text));
    expect(link.pathname).to.match(/^\/console\/setup\/[\w-]{20,}$/);
    const listed = await owner.get<string>('/console/staff');
    expect(rowOf(listed.text, 'new@shop.test').slice(0, 2)).to.deep.equal(['staff', 'set-up pending']);
    expect(rowOf(listed.text, 'new@shop.test')[3]).to.equal('none recorded');
    expect(listed.text).to.not.include(link.pathname);

    // The link works for the new member.
    await completeSetup(stack, stack.client(), link.pathname);
    expect(rowOf((await owner.get<string>('/console/staff')).text, 'new@shop.test')[1]).to.equal('active');
  });

  it('says on the page what is wrong with a bad email, unknown role or taken email (4xx), keeping input', async () => {
    const cases: Array<[Record<string, string>, number, string]> = [
      [{ email: 'not an email', role: 'staff' }, 400, 'email must be a valid email address'],
      [{ email: 'someone@shop.test', role: 'admin' }, 400, 'role must be one of owner, staff'],
      [{ email: 'members-clerk@shop.test', role: 'owner' }, 409, 'members-clerk@shop.test is already a staff member'],
    ];
    for (const [fields, status, said] of cases) {
      const refused = await postConsoleForm(stack, owner, '/console/staff/add', fields);
      expect(refused.status, said).to.equal(status);
      expect(refused.text).to.include(said);
      expect(refused.text).to.include(`value="${fields.email}"`);
    }
    const unknown = await postConsoleForm(stack, owner, '/console/staff/disable', { email: 'nobody@shop.test' });
    expect(unknown.status).to.equal(404);
    expect(unknown.text).to.include('no staff member has the email nobody@shop.test');
  });

  it('disables a member only once confirmed; their session ends and the page says so after the redirect', async () => {
    const leaver = stack.client();
    await signedInStaff(stack, leaver, 'members-leaver@shop.test', 'staff');
    const page = await owner.get<string>('/console/staff');
    expect(page.text).to.include('<button type="submit">Disable members-leaver@shop.test</button>');
    // The owner is offered no way to disable themselves.
    expect(page.text).to.not.include('Disable members-owner@shop.test');

    const asked = await postConsoleForm(stack, owner, '/console/staff/disable', { email: 'members-leaver@shop.test' });
    expect(asked.status).to.equal(200);
    expect(asked.text).to.include('<h1>Disable members-leaver@shop.test?</h1>');
    expect(asked.text).to.include('<input type="hidden" name="confirm" value="yes">');
    expect((await leaver.get<string>('/console')).status, 'nothing done before the confirmation').to.equal(200);

    const done = await postConsoleForm(stack, owner, '/console/staff/disable', {
      email: 'members-leaver@shop.test',
      confirm: 'yes',
    });
    expect(done.status).to.equal(303);
    expect(done.headers.get('location')).to.equal('/console/staff?disabled=members-leaver%40shop.test');
    const after = await owner.get<string>(done.headers.get('location')!);
    expect(after.text).to.include(
      '<p role="status">members-leaver@shop.test is disabled: their sessions end at their next request.</p>',
    );
    expect(rowOf(after.text, 'members-leaver@shop.test')[1]).to.equal('disabled');
    expect(after.text).to.include('<button type="submit">Re-enable members-leaver@shop.test</button>');
    expect((await leaver.get<string>('/console')).status).to.equal(303);

    const again = await postConsoleForm(stack, owner, '/console/staff/disable', {
      email: 'members-leaver@shop.test',
      confirm: 'yes',
    });
    expect(again.status).to.equal(409);
    expect(again.text).to.include('members-leaver@shop.test is already disabled');
    const self = await postConsoleForm(stack, owner, '/console/staff/disable', {
      email: 'members-owner@shop.test',
      confirm: 'yes',
    });
    expect(self.status).to.equal(409);
    expect(self.text).to.include('You may not disable yourself');
  });

  it('resets a member: a new link, and their session ends', async () => {
    const forgetful = stack.client();
    await signedInStaff(stack, forgetful, 'members-forgetful@shop.test', 'staff');
    const done = await postConsoleForm(stack, owner, '/console/staff/reset', { email: 'members-forgetful@shop.test' });
    expect(done.status, done.text).to.equal(200);
    expect(done.text).to.include('<h1>Staff member reset</h1>');
    expect(new URL(setupLinkOf(done.text)).pathname).to.match(/^\/console\/setup\//);
    expect((await forgetful.get<string>('/console')).status).to.equal(303);
    expect(rowOf((await owner.get<string>('/console/staff')).text, 'members-forgetful@shop.test')[1]).to.equal(
      'set-up pending',
    );
  });

  it('shows a staff member the list read-only and refuses their changes (403)', async () => {
    const page = await clerk.get<string>('/console/staff');
    expect(page.status).to.equal(200);
    expect(rowOf(page.text, 'members-owner@shop.test').slice(0, 2)).to.deep.equal(['owner', 'active']);
    expect(page.text).to.not.include('<form method="post" action="/console/staff');
    expect(page.text).to.include('Only an owner adds, resets, disables or re-enables members.');
    for (const [path, said] of [
      ['/console/staff/add', 'Only an owner may add a staff member'],
      ['/console/staff/reset', 'Only an owner may reset a staff member'],
      ['/console/staff/disable', 'Only an owner may disable a staff member'],
    ] as const) {
      const refused = await postConsoleForm(stack, clerk, path, {
        email: 'members-owner@shop.test',
        role: 'staff',
        confirm: 'yes',
      });
      expect(refused.status, path).to.equal(403);
      expect(refused.text).to.include(said);
    }
    const asked = await postConsoleForm(stack, clerk, '/console/staff/disable', { email: 'members-owner@shop.test' });
    expect(asked.status).to.equal(403);
    expect(rowOf((await owner.get<string>('/console/staff')).text, 'members-owner@shop.test')[1]).to.equal('active');
  });

  it('refuses the forms posted from another site, changing nothing', async () => {
    for (const [path, fields] of [
      ['/console/staff/add', { email: 'planted@shop.test', role: 'owner' }],
      ['/console/staff/disable', { email: 'members-clerk@shop.test', confirm: 'yes' }],
      ['/console/staff/reset', { email: 'members-clerk@shop.test' }],
    ] as const) {
      const refused = await postConsoleForm(stack, owner, path, fields, { origin: 'https://evil.example' });
      expect(refused.status, path).to.equal(403);
      expect(refused.text).to.include('A form must be sent from this site');
    }
    const page = await owner.get<string>('/console/staff');
    expect(page.text).to.not.include('planted@shop.test');
    expect(rowOf(page.text, 'members-clerk@shop.test')[1]).to.equal('active');
  });
});
