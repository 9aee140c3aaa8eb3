/** Identity's part of the customer's data rights: marketing consent, unsubscribe links, the export, data requests. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { MARKETING_CONSENT } from '@storefront/formats';
import { enqueueMail } from '@storefront/outbox';
import type { identity } from '@storefront/proto';
import { recordStaffAction } from '@storefront/staff-audit';
import { rejection, startForSuite } from '@storefront/testing';
import { oneMonthAfter } from '../src/domain/account-data';
import { marketingMail } from '../src/domain/marketing-consent';
import { startIdentity, type IdentityHarness } from './support';

const MINUTE = 60_000;
const OWNER = { id: 'staff-1', email: 'owner@example.test', role: 'owner', clientAddress: '192.0.2.50' } as const;
let counter = 0;
const signUpRequest = (marketingConsent?: boolean): identity.SignUpRequest => ({
  email: `rights${(counter += 1)}-${process.pid}@example.test`,
  password: 'plum-tractor-42',
  firstName: 'Ada',
  lastName: 'Lovelace',
  clientAddress: '192.0.2.9',
  ...(marketingConsent === undefined ? {} : { marketingConsent }),
});

describe('identity: data rights', () => {
  let harness: IdentityHarness;
  startForSuite(
    () => startIdentity({ SIGNUPS_PER_ADDRESS_MAX: '1000', PUBLIC_BASE_URL: 'https://shop.example' }),
    (started) => (harness = started),
  );
  const as = (customer: string) => ({ customer });
  const iso = (ms: number) => new Date(ms).toISOString();

  async function newAccount(marketingConsent?: boolean) {
    const { profile } = await harness.client.signUp(signUpRequest(marketingConsent));
    return profile!.id;
  }

  it('records a ticked sign-up box, and each toggle after it, with the wording version and the time', async () => {
    const signedUpAt = harness.clock.now();
    const userId = await newAccount(true);
    harness.clock.advance(MINUTE);
    await harness.client.setMarketingConsent({ granted: false }, as(userId));
    harness.clock.advance(MINUTE);
    const { consent } = await harness.client.setMarketingConsent({ granted: true }, as(userId));
    expect(consent).to.deep.equal({
      granted: true,
      wordingVersion: MARKETING_CONSENT.version,
      recordedAt: iso(signedUpAt + 2 * MINUTE),
      source: 'account',
    });
    const { marketingConsents } = await harness.client.exportAccountData({}, as(userId));
    expect(marketingConsents.map(({ granted, recordedAt, source }) => [granted, recordedAt, source])).to.deep.equal([
      [true, iso(signedUpAt), 'signup'],
      [false, iso(signedUpAt + MINUTE), 'account'],
      [true, iso(signedUpAt + 2 * MINUTE), 'account'],
    ]);
  });

  it('records nothing for an unticked box: the customer was never asked, and gets no marketing', async () => {
    const userId = await newAccount();
    expect((await harness.client.getMarketingConsent({}, as(userId))).consent).to.equal(undefined);
    expect((await harness.client.exportAccountData({}, as(userId))).marketingConsents).to.deep.equal([]);
  });

  it("withdraws consent by a marketing mail's link, without a session; refuses a forged or altered token", async () => {
    const userId = await newAccount(true);
    const url = new URL(await harness.server.marketingConsents.unsubscribeUrl(userId));
    expect(url.origin + url.pathname).to.equal('https://shop.example/unsubscribe');
    const token = url.searchParams.get('token')!;
    const otherId = await newAccount(true);
    const forged = [
      `${otherId}.${token.split('.')[1]}`,
      `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`,
      `${userId}.`,
      'not-a-token',
      '',
    ];
    for (const bad of forged) {
      const refused = await rejection(harness.client.unsubscribe({ token: bad }));
      expect(refused, bad).to.include({ code: 'invalid_unsubscribe_token' });
    }
    expect((await harness.client.getMarketingConsent({}, as(otherId))).consent?.granted).to.equal(true);

    const { consent } = await harness.client.unsubscribe({ token });
    expect(consent).to.include({ granted: false, source: 'unsubscribe' });
    // A second click records nothing more.
    await harness.client.unsubscribe({ token });
    const { marketingConsents } = await harness.client.exportAccountData({}, as(userId));
    expect(marketingConsents.map((entry) => entry.source)).to.deep.equal(['signup', 'unsubscribe']);
  });

  it('exports the sessions, mails sent and staff actions naming the account, and lists the request', async () => {
    const startedAt = harness.clock.now();
    const { profile } = await harness.client.signUp(signUpRequest());
    const userId = profile!.id;
    await harness.client.logIn({ email: profile!.email, password: 'plum-tractor-42', clientAddress: '192.0.2.9' });
    await recordStaffAction(
      harness.server.db,
      OWNER,
      { action: 'customer_viewed', subject: userId, after: { note: 'checked' } },
      startedAt,
    );
    await harness.server.sendMailNow();

    const exported = await harness.client.exportAccountData({}, as(userId));
    expect(exported.profile).to.include({ id: userId, email: profile!.email });
    expect(exported.sessions).to.have.length(2);
    expect(exported.sessions[0]!.createdAt).to.equal(iso(startedAt));
    expect(exported.mails.map((mail) => mail.subject)).to.deep.equal(['Confirm your email address']);
    expect(exported.mails[0]!.sentAt).to.not.equal('');
    expect(exported.staffActions).to.have.length(1);
    expect(exported.staffActions[0]).to.include({
      action: 'customer_viewed',
      subject: userId,
      afterJson: '{"note":"checked"}',
    });

    const ended = await harness.client.logIn({
      email: profile!.email,
      password: 'plum-tractor-42',
      clientAddress: '192.0.2.9',
    });
    await harness.client.logOut({ sessionToken: ended.session!.token });
    expect((await harness.client.exportAccountData({}, as(userId))).sessions).to.have.length(2);
  });

  it('marketing mails carry List-Unsubscribe and its one-click header to the mail sent', async () => {
    const userId = await newAccount(true);
    const unsubscribeUrl = await harness.server.marketingConsents.unsubscribeUrl(userId);
    const to = `news-${process.pid}@example.test`;
    const mail = marketingMail(
      `news:${userId}`,
      to,
      { subject: 'New in the shop', blocks: [{ paragraph: 'Three new peptides.' }] },
      unsubscribeUrl,
    );
    expect(mail.headers).to.deep.equal({
      'List-Unsubscribe': `<${unsubscribeUrl}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
    await enqueueMail(harness.server.db, mail, harness.clock.now());
    await harness.server.sendMailNow();
    const sent = readdirSync(mailboxDir(harness)).find((name) => name.includes(`news_${userId}`));
    expect(sent, 'the marketing mail in the mailbox').to.be.a('string');
    // The header block, folded lines unfolded.
    const head = readFileSync(path.join(mailboxDir(harness), sent!), 'utf8')
      .split('\n\n')[0]!
      .replace(/\n\s+/g, ' ');
    expect(head).to.contain(`List-Unsubscribe: <${unsubscribeUrl}>`);
    expect(head).to.contain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
  });

  it('lists data requests for the console, each due one calendar month after it was made', async () => {
    const userId = await newAccount();
    const madeAt = harness.clock.now();
    await harness.client.exportAccountData({}, as(userId));
    const { requests } = await harness.client.listDataRequestsForStaff({ limit: 200 }, { staff: OWNER });
    const mine = requests.filter((request) => request.accountId === userId);
    expect(mine).to.deep.equal([
      {
        accountId: userId,
        email: mine[0]!.email,
        kind: 'export',
        requestedAt: iso(madeAt),
        dueAt: iso(oneMonthAfter(madeAt)),
        completedAt: iso(madeAt),
      },
    ]);
    expect(iso(oneMonthAfter(Date.UTC(2026, 0, 31, 10)))).to.equal('2026-02-28T10:00:00.000Z');
    expect(iso(oneMonthAfter(Date.UTC(2028, 0, 31)))).to.equal('2028-02-29T00:00:00.000Z');
    expect(iso(oneMonthAfter(Date.UTC(2026, 11, 15)))).to.equal('2027-01-15T00:00:00.000Z');
  });
});

function mailboxDir(harness: IdentityHarness): string {
  return path.join(harness.stores.dataDir, 'mailbox');
}
