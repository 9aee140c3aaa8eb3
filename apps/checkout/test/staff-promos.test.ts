/**
 * Promo codes changed by staff: a change drops this replica's cached definitions (a read begun
 * before the change cannot put the old list back), and the ops command line's create and expire
 * are recorded in the staff audit log under the operator who ran them.
 */
import { expect } from 'chai';
import { ManualClock, opsEnvFor, runOpsJson } from '@storefront/testing';
import type { Stack } from '@storefront/platform-testing';
import { PromoDefinitions } from '../src/domain/promo-definitions';
import type { PromoCode } from '../src/domain/promo';
import { checkoutOps } from '../src/ops/commands';
import { startCheckoutStack } from './support';

const WELCOME: PromoCode = { code: 'WELCOME10', discountBasisPoints: 1000, activeFrom: 0 };
const SUMMER: PromoCode = { code: 'SUMMER15', discountBasisPoints: 1500, activeFrom: 0 };

describe('checkout: promo codes changed by staff', () => {
  it('reads the store again after forget(), and a read begun before it does not store the old codes', async () => {
    const clock = new ManualClock();
    let stored = [WELCOME];
    let releaseSlowRead: () => void = () => undefined;
    let slow = false;
    const definitions = new PromoDefinitions(
      async () => {
        const snapshot = stored;
        if (slow) await new Promise<void>((resolve) => (releaseSlowRead = resolve));
        return snapshot;
      },
      60_000,
      clock.now,
    );
    expect(await definitions.find('SUMMER15')).to.equal(undefined);

    clock.advance(60_000);
    slow = true;
    const before = definitions.find('SUMMER15');
    slow = false;
    stored = [WELCOME, SUMMER];
    definitions.forget();
    expect(await definitions.find('SUMMER15')).to.equal(SUMMER);
    releaseSlowRead();
    expect(await before).to.equal(undefined);
    expect(await definitions.find('SUMMER15'), 'the older read did not replace the newer').to.equal(SUMMER);
  });

  describe('the ops command line', () => {
    let stack: Stack;
    before(async () => {
      stack = await startCheckoutStack();
    });
    after(async () => stack?.stop());

    const ops = (args: string[]) =>
      runOpsJson(checkoutOps, args, opsEnvFor(stack.stores, 'checkout', stack.env), 'ops-owner');

    it('records promo create and expire as the operator, with before and after', async () => {
      const code = `OPS${Date.now().toString(36).toUpperCase()}`;
      expect((await ops(['promo', 'create', code, '--discount', '15', '--max-redemptions', '4'])).code).to.equal(0);
      expect((await ops(['promo', 'expire', code])).code).to.equal(0);
      const rows = await stack.checkout!.db('staff_actions').where({ subject: code }).orderBy('id');
      expect(rows.map((row) => [row.action, row.staff_id, row.staff_email, row.client_address])).to.deep.equal([
        ['promo_created', 'ops:ops-owner', 'ops-owner', 'ops-cli'],
        ['promo_expired', 'ops:ops-owner', 'ops-owner', 'ops-cli'],
      ]);
      expect(rows[0].before_json).to.equal(null);
      expect(JSON.parse(rows[0].after_json)).to.include({
        code,
        discountBasisPoints: 1500,
        maxRedemptions: 4,
        activeUntil: null,
      });
      expect(JSON.parse(rows[1].before_json)).to.include({ activeUntil: null });
      expect(JSON.parse(rows[1].after_json).activeUntil).to.be.a('string');

      const refused = await ops(['promo', 'create', code, '--discount', '20']);
      expect(refused.json).to.include({ success: false, error: 'promo_exists' });
      expect(await stack.checkout!.db('staff_actions').where({ subject: code }).count({ n: '*' }).first()).to.satisfy(
        (row: { n: unknown }) => Number(row.n) === 2,
      );
    });
  });
});
