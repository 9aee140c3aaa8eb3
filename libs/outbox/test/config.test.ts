/**
 * The mail settings read from the environment: sent-mail rows are kept two years unless the owner says otherwise
 * (decision 1323), and a period outside its bounds stops the process with a line naming the variable.
 */
import { expect } from 'chai';
import { EnvReader } from '@storefront/config';
import { readMailConfig } from '../src/config';

const DAY_MS = 24 * 3600 * 1000;

describe('outbox: mail settings', () => {
  it('keeps sent-mail rows 730 days by default and MAIL_RETENTION_DAYS when set', () => {
    expect(readMailConfig(new EnvReader({}), '/data').delivery.sentRetentionMs).to.equal(730 * DAY_MS);
    const set = readMailConfig(new EnvReader({ MAIL_RETENTION_DAYS: '30' }), '/data');
    expect(set.delivery.sentRetentionMs).to.equal(30 * DAY_MS);
  });

  it('refuses a retention period outside 1 to 3650 days, naming the variable', () => {
    expect(() => readMailConfig(new EnvReader({ MAIL_RETENTION_DAYS: '0' }), '/data')).to.throw(/MAIL_RETENTION_DAYS/);
  });

  it("keeps sent mails' text 30 days by default, MAIL_BODY_RETENTION_DAYS when set, never past their rows", () => {
    expect(readMailConfig(new EnvReader({}), '/data').delivery.bodyRetentionMs).to.equal(30 * DAY_MS);
    expect(readMailConfig(new EnvReader({ MAIL_BODY_RETENTION_DAYS: '0' }), '/data').delivery.bodyRetentionMs).to.equal(
      0,
    );
    expect(readMailConfig(new EnvReader({ MAIL_RETENTION_DAYS: '7' }), '/data').delivery.bodyRetentionMs).to.equal(
      7 * DAY_MS,
    );
    expect(() =>
      readMailConfig(new EnvReader({ MAIL_RETENTION_DAYS: '7', MAIL_BODY_RETENTION_DAYS: '8' }), '/data'),
    ).to.throw(/MAIL_BODY_RETENTION_DAYS/);
  });
});
