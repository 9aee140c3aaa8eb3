/**
 * The console's staff accounts as an attacker meets them: a set-up link shows its secret (and QR code) only to the
 * browser that opened it first, a reset ends the member's sessions, a disabled member comes back only through an
 * owner and a new set-up, and every one of these is in identity's audit log.
 */
import { expect } from 'chai';
import { decodeQR } from 'qr/decode.js';
import type { Stack } from '@storefront/platform-testing';
import type { HttpClient } from '@storefront/testing';
import { startCheckoutStack } from '../../../checkout/test/support';
import {
  STAFF_PASSWORD,
  addStaff,
  completeSetup,
  identityOpsRun,
  postConsoleForm,
  signedInStaff,
  totpCode,
} from '../support/console';

/** What a phone's camera would read off the page's QR code: the SVG's squares drawn as pixels, then decoded. */
function scanQrCode(page: string): string {
  const svg = /<svg id="otpauth-qr"[^>]*viewBox="0 0 (\d+) \1"[\s\S]*?<path fill="#000" d="([^"]*)"/.exec(page);
  expect(svg, 'a QR code on the page').to.not.equal(null);
  const modules = Number(svg![1]);
  const scale = 4;
  const width = modules * scale;
  const data = new Uint8Array(width * width * 3).fill(255);
  for (const [, x, y] of svg![2]!.matchAll(/M(\d+) (\d+)h1v1h-1z/g))
    for (let dy = 0; dy < scale; dy += 1)
      for (let dx = 0; dx < scale; dx += 1)
        data.fill(
          0,
          ((Number(y) * scale + dy) * width + Number(x) * scale + dx) * 3,
          ((Number(y) * scale + dy) * width + Number(x) * scale + dx + 1) * 3,
        );
  return decodeQR({ width, height: width, data });
}

async function auditOf(stack: Stack, subject: string): Promise<Array<Record<string, string>>> {
  const { json } = await identityOpsRun(stack, ['audit']);
  return (json.entries as Array<Record<string, string>>).filter((entry) => entry.subject === subject);
}

async function expectSignedOut(client: HttpClient): Promise<void> {
  const home = await client.get<string>('/console');
  expect(home.status).to.equal(303);
  expect(home.headers.get('location')).to.equal('/console/login');
}

describe('the console: staff credentials, sessions and their audit', () => {
  let stack: Stack;
  before(async () => {
    stack = await startCheckoutStack();
  });
  after(async () => stack?.stop());

  it('shows the set-up secret and its QR code only to the browser that opened the link first', async () => {
    const setupPath = await addStaff(stack, 'first-browser@shop.test');
    const first = stack.client();
    const page = await first.get<string>(setupPath);
    expect(page.status).to.equal(200);
    const uri = /<code id="otpauth-uri">([^<]+)<\/code>/.exec(page.text)![1]!.replaceAll('&amp;', '&');
    expect(scanQrCode(page.text)).to.equal(uri);
    const binding = page.headers.getSetCookie().find((line) => line.startsWith('svc_setup='));
    expect(binding).to.match(new RegExp(`; Path=${setupPath}; Max-Age=3600; HttpOnly; Secure; SameSite=Lax$`));

    // A link preview, a forwarded mail, another browser: no secret, and told to ask for a new link.
    const preview = stack.client();
    const refused = await preview.get<string>(setupPath);
    expect(refused.status).to.equal(409);
    expect(refused.text).to.include('ask an owner for a new link').and.not.include('totp-secret');
    expect(refused.text).to.not.include('otpauth-qr');
    const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(page.text)![1]!;
    const stolen = await postConsoleForm(stack, preview, setupPath, {
      password: STAFF_PASSWORD,
      code: totpCode(secret),
    });
    expect(stolen.status).to.equal(409);

    // The first browser still sees the same secret and finishes.
    expect((await first.get<string>(setupPath)).text).to.include(`<code id="totp-secret">${secret}</code>`);
    const done = await postConsoleForm(stack, first, setupPath, { password: STAFF_PASSWORD, code: totpCode(secret) });
    expect(done.status, done.text).to.equal(200);
  });

  it("ends a member's console session when their credentials are reset, not one the new set-up made", async () => {
    const client = stack.client();
    await signedInStaff(stack, client, 'reset-session@shop.test', 'staff');
    expect((await client.get<string>('/console')).status).to.equal(200);
    const reset = await identityOpsRun(stack, ['staff', 'reset', 'reset-session@shop.test']);
    expect(reset.code).to.equal(0);
    await expectSignedOut(client);
    const { secret } = await completeSetup(stack, stack.client(), new URL(reset.json.setupLink as string).pathname);
    const again = stack.client();
    const login = await postConsoleForm(stack, again, '/console/login', {
      email: 'reset-session@shop.test',
      password: STAFF_PASSWORD,
      code: totpCode(secret, 1),
    });
    expect(login.status).to.equal(303);
    expect((await again.get<string>('/console')).status).to.equal(200);
    expect((await auditOf(stack, 'reset-session@shop.test')).map((entry) => entry.action)).to.deep.equal([
      'staff_added',
      'setup_completed',
      'login',
      'staff_reset',
      'setup_completed',
      'login',
    ]);
  });

  it('lets an owner re-enable a disabled member from the console; staff are refused, and it is recorded', async () => {
    const owner = stack.client();
    await signedInStaff(stack, owner, 'reenabling-owner@shop.test', 'owner');
    const clerk = stack.client();
    await signedInStaff(stack, clerk, 'reenabling-clerk@shop.test', 'staff');
    const leaver = stack.client();
    const old = await signedInStaff(stack, leaver, 'returning@shop.test', 'staff');
    expect((await identityOpsRun(stack, ['staff', 'disable', 'returning@shop.test'])).code).to.equal(0);
    await expectSignedOut(leaver);

    const form = await owner.get<string>('/console/staff');
    expect(form.status).to.equal(200);
    expect(form.text).to.include('<label for="email">Email of the disabled member</label>');
    const refused = await postConsoleForm(stack, clerk, '/console/staff/enable', { email: 'returning@shop.test' });
    expect(refused.status).to.equal(403);
    expect(refused.text).to.include('Only an owner may re-enable a staff member');

    const done = await postConsoleForm(stack, owner, '/console/staff/enable', { email: 'returning@shop.test' });
    expect(done.status, done.text).to.equal(200);
    const link = /<code id="setup-link">([^<]+)<\/code>/.exec(done.text)![1]!;
    const notDisabled = await postConsoleForm(stack, owner, '/console/staff/enable', { email: 'returning@shop.test' });
    expect(notDisabled.status).to.equal(409);

    // Nothing old comes back: the old session, password and recovery codes are refused; the new set-up works.
    await expectSignedOut(leaver);
    const oldLogin = await postConsoleForm(stack, stack.client(), '/console/login', {
      email: 'returning@shop.test',
      password: STAFF_PASSWORD,
      code: old.recoveryCodes[0]!,
    });
    expect(oldLogin.status).to.equal(401);
    const { secret } = await completeSetup(stack, stack.client(), new URL(link).pathname);
    const back = await postConsoleForm(stack, stack.client(), '/console/login', {
      email: 'returning@shop.test',
      password: STAFF_PASSWORD,
      code: totpCode(secret, 1),
    });
    expect(back.status).to.equal(303);

    const entries = await auditOf(stack, 'returning@shop.test');
    expect(entries.map(({ action, staffEmail }) => `${action} by ${staffEmail}`)).to.deep.equal([
      'staff_added by operator',
      'setup_completed by returning@shop.test',
      'login by returning@shop.test',
      'staff_disabled by operator',
      'role_refused by reenabling-clerk@shop.test',
      'staff_reenabled by reenabling-owner@shop.test',
      'login_failed by returning@shop.test',
      'setup_completed by returning@shop.test',
      'login by returning@shop.test',
    ]);
  });

  it('ops: `staff enable` re-enables a disabled member with a new link; each ops change is in /console/audit', async () => {
    const owner = stack.client();
    await signedInStaff(stack, owner, 'audit-reader@shop.test', 'owner');
    await addStaff(stack, 'ops-made@shop.test', 'owner');
    expect((await identityOpsRun(stack, ['staff', 'enable', 'ops-made@shop.test'])).json).to.include({
      success: false,
      error: 'staff_not_disabled',
    });
    expect((await identityOpsRun(stack, ['staff', 'disable', 'ops-made@shop.test'])).code).to.equal(0);
    const enabled = await identityOpsRun(stack, ['staff', 'enable', 'ops-made@shop.test']);
    expect(enabled.code, JSON.stringify(enabled.json)).to.equal(0);
    const { secret } = await completeSetup(stack, stack.client(), new URL(enabled.json.setupLink as string).pathname);
    expect(secret).to.match(/^[A-Z2-7]+$/);

    const res = await owner.get<{ actions: Array<Record<string, string>> }>(
      '/api/admin/audit?subject=ops-made@shop.test',
    );
    expect(res.status).to.equal(200);
    expect(
      res.body.actions.map(({ action, staffEmail, component }) => `${component} ${action} by ${staffEmail}`),
    ).to.deep.equal([
      'identity setup_completed by ops-made@shop.test',
      'identity staff_reenabled by operator',
      'identity staff_disabled by operator',
      'identity staff_added by operator',
    ]);
  });

  it('records a recovery-code login as such', async () => {
    const client = stack.client();
    const { recoveryCodes } = await completeSetup(stack, client, await addStaff(stack, 'by-recovery@shop.test'));
    const login = await postConsoleForm(stack, client, '/console/login', {
      email: 'by-recovery@shop.test',
      password: STAFF_PASSWORD,
      code: recoveryCodes[0]!,
    });
    expect(login.status).to.equal(303);
    expect((await auditOf(stack, 'by-recovery@shop.test')).map((entry) => entry.action)).to.deep.equal([
      'staff_added',
      'setup_completed',
      'login_recovery_code',
    ]);
  });
});
