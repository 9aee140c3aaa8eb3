/**
 * The console over HTTP: signed-out redirects, the one-time set-up link, login with password and
 * a TOTP or recovery code, the `svc_staff` cookie and what refuses it (a customer's session, a
 * disabled member, another site's form), logout, the audit export, caching, CSP and Markdown.
 */
import { expect } from 'chai';
import type { TestResponse } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { signUp, startCheckoutStack } from '../../checkout/test/support';
import { STAFF_PASSWORD, addStaff, completeSetup, identityOpsRun, postConsoleForm, signedInStaff, totpCode } from './support/console';

function expectConsolePage(res: TestResponse<string>): void {
  expect(res.headers.get('cache-control')).to.equal('private, no-store');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).to.include("default-src 'none'").and.not.include('unsafe-inline');
}

describe('the console: staff accounts, login and sessions', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack();
  });
  after(async () => stack?.stop());

  it('sends a signed-out visitor to the login page, which is private, CSP-bound and readable as Markdown', async () => {
    const client = stack.client();
    const home = await client.get<string>('/console');
    expect(home.status).to.equal(303);
    expect(home.headers.get('location')).to.equal('/console/login');
    const login = await client.get<string>('/console/login');
    expect(login.status).to.equal(200);
    expectConsolePage(login);
    expect(login.text).to.include('<label for="code">Authenticator code or recovery code</label>');
    const markdown = await client.get<string>('/console/login', { accept: 'text/markdown' });
    expect(markdown.headers.get('content-type')).to.match(/^text\/markdown/);
    expect(markdown.text).to.match(/^# Staff log in/m);
  });

  it('sets up an account once from its link: secret as text and otpauth URI, then recovery codes', async () => {
    const client = stack.client();
    const setupPath = await addStaff(stack, 'setup@shop.test');
    expect(setupPath).to.match(/^\/console\/setup\/[A-Za-z0-9_-]{43}$/);
    const page = await client.get<string>(setupPath);
    expectConsolePage(page);
    expect(page.text).to.match(/<code id="otpauth-uri">otpauth:\/\/totp\/[^<]*setup%40shop\.test\?secret=[A-Z2-7]+/);
    const { recoveryCodes } = await completeSetup(stack, client, setupPath);
    expect(recoveryCodes).to.have.length(10);
    const again = await client.get<string>(setupPath);
    expect(again.status).to.equal(404);
    expect(again.text).to.include('already used or expired');
    expect((await postConsoleForm(stack, client, setupPath, { password: STAFF_PASSWORD, code: '000000' })).status).to.equal(404);
  });

  it('refuses a set-up with a wrong code, keeping the link usable', async () => {
    const client = stack.client();
    const setupPath = await addStaff(stack, 'wrongcode@shop.test');
    await client.get<string>(setupPath);
    const refused = await postConsoleForm(stack, client, setupPath, { password: STAFF_PASSWORD, code: '12345x' });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.include('not the current code');
    await completeSetup(stack, client, setupPath);
  });

  it('logs in with password and TOTP into a Strict, HttpOnly, Secure cookie scoped to the console and admin API; a wrong code is refused', async () => {
    const client = stack.client();
    const { secret } = await completeSetup(stack, client, await addStaff(stack, 'login@shop.test', 'staff'));
    const wrong = String((Number(totpCode(secret, 1)) + 1) % 1_000_000).padStart(6, '0');
    const refused = await postConsoleForm(stack, client, '/console/login', { email: 'login@shop.test', password: STAFF_PASSWORD, code: wrong });
    expect(refused.status).to.equal(401);
    expect(refused.headers.getSetCookie()).to.deep.equal([]);
    const login = await postConsoleForm(stack, client, '/console/login', { email: 'login@shop.test', password: STAFF_PASSWORD, code: totpCode(secret, 1) });
    expect(login.status).to.equal(303);
    const cookies = login.headers.getSetCookie();
    expect(cookies.map((line) => line.replace(/=[^;]+;/, '=…;'))).to.deep.equal([
      'svc_staff=…; Path=/console; Max-Age=43200; HttpOnly; Secure; SameSite=Strict',
      'svc_staff=…; Path=/api/admin; Max-Age=43200; HttpOnly; Secure; SameSite=Strict',
    ]);
    const home = await client.get<string>('/console');
    expect(home.status).to.equal(200);
    expect(home.text).to.include('Signed in as login@shop.test (staff)');
  });

  it('takes a recovery code in place of a TOTP code, once', async () => {
    const client = stack.client();
    const { recoveryCodes } = await completeSetup(stack, client, await addStaff(stack, 'recover@shop.test'));
    const fields = { email: 'recover@shop.test', password: STAFF_PASSWORD, code: recoveryCodes[0]! };
    expect((await postConsoleForm(stack, client, '/console/login', fields)).status).to.equal(303);
    expect((await postConsoleForm(stack, stack.client(), '/console/login', fields)).status).to.equal(401);
  });

  it("treats a customer's session as nobody, under either cookie name", async () => {
    const customer = stack.client();
    await signUp(customer);
    const customerToken = /svc_sess=([^;]+)/.exec(customer.cookieHeader)![1]!;
    const home = await customer.get<string>('/console');
    expect(home.status).to.equal(303);
    expect(home.headers.get('location')).to.equal('/console/login');
    const disguised = await customer.get<string>('/console', { cookie: `svc_staff=${customerToken}` });
    expect(disguised.headers.get('location')).to.equal('/console/login');
  });

  it('refuses a form posted from another site', async () => {
    const client = stack.client();
    const refused = await postConsoleForm(stack, client, '/console/login', { email: 'x@shop.test', password: STAFF_PASSWORD, code: '123456' }, { origin: 'https://evil.example' });
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('A form must be sent from this site');
    const noOrigin = await postConsoleForm(stack, client, '/console/logout', {}, { origin: '', 'sec-fetch-site': 'cross-site' });
    expect(noOrigin.status).to.equal(403);
  });

  it("ends a disabled member's session at their next request", async () => {
    const client = stack.client();
    await signedInStaff(stack, client, 'leaver@shop.test');
    expect((await client.get<string>('/console')).status).to.equal(200);
    const { code } = await identityOpsRun(stack, ['staff', 'disable', 'leaver@shop.test']);
    expect(code).to.equal(0);
    const after = await client.get<string>('/console');
    expect(after.status).to.equal(303);
    expect(after.headers.get('location')).to.equal('/console/login');
  });

  it('logs out, and the audit export lists the login and logout with the address', async () => {
    const client = stack.client();
    await signedInStaff(stack, client, 'audit@shop.test');
    const logout = await postConsoleForm(stack, client, '/console/logout', {}, { 'x-forwarded-for': '203.0.113.50' });
    expect(logout.status).to.equal(303);
    expect((await client.get<string>('/console')).status).to.equal(303);
    const { json } = await identityOpsRun(stack, ['staff', 'audit']);
    const entries = (json.entries as Array<Record<string, string>>).filter((entry) => entry.staffEmail === 'audit@shop.test');
    expect(entries.map((entry) => entry.action)).to.deep.equal(['login', 'logout']);
    expect(entries[1]!.clientAddress).to.equal('203.0.113.50');
    expect(Date.parse(entries[0]!.at!)).to.be.closeTo(Date.now(), 60_000);
  });
});
