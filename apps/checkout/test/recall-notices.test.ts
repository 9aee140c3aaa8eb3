/** The recall notice's request rules, each refusal naming its field, and the notice's words and links. */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { checkRecallRequest, recallNoticeKey, recallNoticeMail } from '../src/domain/recall-notices';
import type { Order } from '../src/domain/order';
import { DELIVERY } from './support';

const GOOD = { batchNumber: ' bpc-2611/a ', orderReferences: ['ref-1', 'ref-2', 'ref-1'], reason: ' Sterility ' };

function refusal(request: typeof GOOD): AppError {
  try {
    checkRecallRequest(request);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

describe('checkout recall notices', () => {
  it('takes the batch number in any case, each order once, and the reason trimmed', () => {
    expect(checkRecallRequest(GOOD)).to.deep.equal({
      batchNumber: 'BPC-2611/A',
      orderReferences: ['ref-1', 'ref-2'],
      reason: 'Sterility',
    });
  });

  for (const [name, change, code] of [
    ['a batch number with a space', { batchNumber: 'BPC 1' }, 'invalid_batch_number'],
    ['no orders', { orderReferences: [] }, 'invalid_order_references'],
    [
      '1001 orders',
      { orderReferences: Array.from({ length: 1001 }, (_, i) => `ref-${i}`) },
      'invalid_order_references',
    ],
    ['an empty reason', { reason: '  ' }, 'invalid_reason'],
    ['a reason of 501 characters', { reason: 'x'.repeat(501) }, 'invalid_reason'],
  ] as const) {
    it(`refuses ${name} (400 ${code})`, () => {
      expect(refusal({ ...GOOD, ...change } as typeof GOOD)).to.include({ kind: 'invalid_argument', code });
    });
  }

  it('mails the delivery address under one key per order and batch, with the reason and both links', () => {
    const order = { reference: 'ref-1', delivery: DELIVERY } as unknown as Order;
    const mail = recallNoticeMail(order, 'BPC-2611/A', 'Sterility', 'https://shop.test/');
    expect(mail).to.include({ key: recallNoticeKey('BPC-2611/A', 'ref-1'), to: DELIVERY.email });
    expect(mail.subject).to.equal('Recall of batch BPC-2611/A in your order ref-1');
    expect(mail.text)
      .to.contain('Why: Sterility')
      .and.contain('https://shop.test/certificates/BPC-2611%2FA')
      .and.contain('https://shop.test/orders/ref-1');
  });
});
