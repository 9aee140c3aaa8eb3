/** Who sells, as the configuration reads it and every page's footer and the terms name it. */
import { expect } from 'chai';
import { EnvReader } from '@storefront/config';
import { readGatewayConfig } from '../../src/config';
import { layout } from '../../src/kit/layout';
import { html } from '../../src/kit/html';
import { infoPage } from '../../src/catalog/info';

const POLICY = { freeShippingThresholdPence: 7500, shippingFeePence: 495, currency: 'GBP' };
const sellerOf = (env: Record<string, string>) => readGatewayConfig(new EnvReader(env)).seller;
const page = { title: 'Any', description: 'Any page', main: html`<h1>Any</h1>` };
const footerOf = (text: string) => /<footer>[\s\S]*<\/footer>/.exec(text)![0];

describe('gateway: the seller named on every page', () => {
  it('names the business, its address, e-mail, company and VAT numbers in the footer and the terms when set', () => {
    const seller = sellerOf({
      SELLER_NAME: 'Storefront Research Supplies Ltd',
      SELLER_ADDRESS: '1 Lab Lane, Cambridge, CB1 1AA',
      SELLER_EMAIL: 'hello@shop.example.com',
      COMPANY_NUMBER: '01234567',
      VAT_NUMBER: 'GB123456789',
    });
    const terms = infoPage('/terms', POLICY, '14:00', seller).main.text;
    for (const text of [footerOf(layout(page, seller)), terms]) {
      expect(text)
        .to.include('Storefront Research Supplies Ltd')
        .and.include('1 Lab Lane, Cambridge, CB1 1AA')
        .and.include('<a href="mailto:hello@shop.example.com">hello@shop.example.com</a>')
        .and.include('Company number: 01234567')
        .and.include('VAT number: GB123456789');
    }
  });

  it('reads company and VAT numbers without their spaces, and refuses ones that cannot be right', () => {
    expect(sellerOf({ VAT_NUMBER: 'gb 123 4567 89', COMPANY_NUMBER: 'sc123456' })).to.deep.include({
      vatNumber: 'GB123456789',
      companyNumber: 'SC123456',
    });
    expect(() => sellerOf({ VAT_NUMBER: '123456789' })).to.throw('VAT_NUMBER must look like GB123456789');
    expect(() => sellerOf({ COMPANY_NUMBER: '1234' })).to.throw('COMPANY_NUMBER must look like 01234567');
  });

  it('defaults the name to the shop and leaves out every detail not set', () => {
    const seller = sellerOf({});
    expect(seller).to.deep.equal({
      name: 'Storefront Research Supplies',
      address: undefined,
      email: undefined,
      companyNumber: undefined,
      vatNumber: undefined,
    });
    const footer = footerOf(layout(page, seller));
    expect(footer).to.include('<address class="seller">Storefront Research Supplies</address>');
    for (const text of [footer, infoPage('/terms', POLICY, '14:00', seller).main.text])
      expect(text).to.not.match(/Company number|VAT number|mailto:/);
  });
});
