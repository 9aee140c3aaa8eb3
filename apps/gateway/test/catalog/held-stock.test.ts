/**
 * The product page says when a size's units are held in other baskets and when the first comes back (decision 1082;
 * second review, finding 2), while /api/stock keeps its contract: a number per SKU.
 */
import { expect } from 'chai';
import { londonClock } from '@storefront/dispatch-calendar';
import type { Stack } from '@storefront/platform-testing';
import { completePayment, expectCheckout, limitedBody } from '../../../checkout/test/support';
import { addToBasket, heldSku, movableClock, startHeldStockStack } from '../support/held-stock';

// startCheckoutStack's PUBLIC_BASE_URL: a browser on the shop's pages sends it as Origin.
const SITE = 'http://127.0.0.1:9';

describe('gateway: held stock on the product page', () => {
  let stack: Stack;
  const clock = movableClock();
  before(async () => {
    stack = await startHeldStockStack(clock);
  });
  after(async () => {
    await stack?.stop();
  });

  const page = async (path: string) => {
    const res = await stack.client().get<string>(path);
    expect(res.status, res.text).to.equal(200);
    return res.text;
  };

  it('says how many units other baskets hold and when the first is back; the size can still be chosen', async () => {
    const { sku, productPath, firmUntil } = await heldSku(stack, clock, 3);
    const product = await page(productPath);
    expect(product).to.contain(`None free now: 3 held in other baskets, back by ${londonClock(firmUntil)}`);
    expect(product).to.match(new RegExp(`<input type="radio" name="sku" id="size-0" value="${sku}" checked>`));
    expect(product).to.not.match(/<button type="submit" disabled>Add to basket/);
    // The home page does not call it sold out.
    const home = await page('/');
    const card = new RegExp(`href="${productPath}">Limited drop</a></h3>\\s*<p>[^<]*</p>\\s*<p>([^\\n]*)</p>`).exec(
      home,
    );
    expect(card?.[1]).to.equal('£10.00 <span class="soldout">None free now: held in other baskets</span>');
    // The stock map keeps its contract: units available, a number per SKU.
    const stock = (await stack.client().get<Record<string, unknown>>('/api/stock')).body;
    expect(stock[sku]).to.equal(0);
    for (const units of Object.values(stock)) expect(units).to.be.a('number');
    // A buyer may put it in the basket, to take a hold as it yields or to pay and wait.
    await addToBasket(stack.client(), SITE, sku);

    clock.pastFirmPeriod();
    expect(await page(productPath)).to.contain('None free now: 3 held in other baskets, which an order can take now');
  });

  it('says when units are held for a buyer who has paid', async () => {
    const { sku, productPath, firmUntil } = await heldSku(stack, clock, 1);
    // Another buyer pays and waits for the held unit: it is owed to them, ahead of any new order.
    const waiting = await expectCheckout(stack.client(), limitedBody(sku, 1, { wait_for_stock: true }));
    expect(waiting.order).to.include({ waitingForStock: true });
    await completePayment(waiting.hosted_checkout_url, 'pay');
    await stack.checkout!.reconcileNow();
    expect(await page(productPath)).to.contain(
      `None free now: 1 held for a buyer who has paid; 1 held in another basket, back by ${londonClock(firmUntil)}`,
    );
  });
});
