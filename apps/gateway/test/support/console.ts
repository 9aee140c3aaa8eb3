/**
 * The console as a staff member meets it: added with identity's ops command (the function the
 * image's `ops identity staff add` runs), set up from the printed link, logged in with a code
 * from the authenticator, which here is otplib reading the secret off the set-up page.
 */
import { expect } from 'chai';
import { generateSync } from 'otplib';
import { identityOps } from '@storefront/identity';
import type { OpsProgram } from '@storefront/lifecycle';
import type { Stack } from '@storefront/platform-testing';
import { newClientAddress } from '../../../checkout/test/support';
import { opsEnvFor, runOpsJson, type HttpClient, type TestResponse } from '@storefront/testing';

export const STAFF_PASSWORD = 'a long staff passphrase';

/** Runs a component's `ops <args> --json` in-process on the stack's stores, as `actor`. */
export function opsRun(stack: Stack, program: OpsProgram, args: string[], actor = 'operator') {
  return runOpsJson(program, args, opsEnvFor(stack.stores, program.app, stack.env), actor);
}

/** Runs `ops identity <args> --json` in-process. */
export function identityOpsRun(stack: Stack, args: string[]) {
  return opsRun(stack, identityOps, args);
}

/** `staff add`: the printed set-up link's path on this site. */
export async function addStaff(stack: Stack, email: string, role: 'owner' | 'staff' = 'owner'): Promise<string> {
  const { code, json } = await identityOpsRun(stack, ['staff', 'add', email, '--role', role]);
  expect(code, JSON.stringify(json)).to.equal(0);
  return new URL(json.setupLink as string).pathname;
}

/** The authenticator's code `stepsAhead` 30-second steps from now (one step either side is accepted). */
export function totpCode(secret: string, stepsAhead = 0): string {
  return generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + stepsAhead * 30 });
}

/** A form as the console's own pages post it. */
export function postConsoleForm(
  stack: Stack,
  client: HttpClient,
  path: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<TestResponse<string>> {
  return client.request<string>('POST', path, {
    body: new URLSearchParams(fields).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      // What a browser on the console's pages sends: the site's origin, when the stack names one.
      ...(stack.env.PUBLIC_BASE_URL ? { origin: new URL(stack.env.PUBLIC_BASE_URL).origin } : {}),
      'x-forwarded-for': newClientAddress(),
      ...headers,
    },
  });
}

/** Opens the set-up link, reads the secret, sets the password and confirms with the current code. */
export async function completeSetup(
  stack: Stack,
  client: HttpClient,
  setupPath: string,
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const page = await client.get<string>(setupPath);
  expect(page.status, page.text).to.equal(200);
  const secret = /<code id="totp-secret">([A-Z2-7]+)<\/code>/.exec(page.text)![1]!;
  const done = await postConsoleForm(stack, client, setupPath, { password: STAFF_PASSWORD, code: totpCode(secret) });
  expect(done.status, done.text).to.equal(200);
  const recoveryCodes = [...done.text.matchAll(/<li><code>([A-Z0-9-]+)<\/code><\/li>/g)].map((match) => match[1]!);
  return { secret, recoveryCodes };
}

/** A staff member added, set up and logged in on `client` (its svc_staff cookie set); the next TOTP step is spent. */
export async function signedInStaff(
  stack: Stack,
  client: HttpClient,
  email: string,
  role: 'owner' | 'staff' = 'owner',
): Promise<{ secret: string; recoveryCodes: string[] }> {
  const setup = await completeSetup(stack, client, await addStaff(stack, email, role));
  const login = await postConsoleForm(stack, client, '/console/login', {
    email,
    password: STAFF_PASSWORD,
    code: totpCode(setup.secret, 1),
  });
  expect(login.status, login.text).to.equal(303);
  return setup;
}
