/** The sold-out board (decision 1346): which refusals it repeats, for how long, and what forgets them. */
import { expect } from 'chai';
import { AppError } from '@storefront/errors';
import { ManualClock } from '@storefront/testing';
import { SOLD_OUT_MEMORY_MS, SoldOutBoard } from '../src/domain/sold-out-board';

const refusal = new AppError('conflict', 'out_of_stock', 'Not enough stock for a-1mg (0 available)');
const lines = (...pairs: Array<[string, number]>) => pairs.map(([sku, quantity]) => ({ sku, quantity }));

describe('checkout: the sold-out board', () => {
  it('repeats a refusal to orders of as many units or more of the size, for SOLD_OUT_MEMORY_MS', () => {
    const clock = new ManualClock();
    const board = new SoldOutBoard(clock.now);
    board.remember(lines(['a-1mg', 2]), refusal);
    expect(board.refusalFor(lines(['a-1mg', 2]))).to.equal(refusal);
    expect(board.refusalFor(lines(['b-1mg', 1], ['a-1mg', 1], ['a-1mg', 1]))).to.equal(refusal);
    expect(board.refusalFor(lines(['a-1mg', 1]))).to.equal(undefined);
    expect(board.refusalFor(lines(['b-1mg', 5]))).to.equal(undefined);
    clock.advance(SOLD_OUT_MEMORY_MS - 1);
    expect(board.refusalFor(lines(['a-1mg', 3]))).to.equal(refusal);
    clock.advance(1);
    expect(board.refusalFor(lines(['a-1mg', 3]))).to.equal(undefined);
  });

  it('keeps the refusal of fewer units, learns nothing from an order of several sizes, forgets a size reserved', () => {
    const clock = new ManualClock();
    const board = new SoldOutBoard(clock.now);
    board.remember(lines(['a-1mg', 1]), refusal);
    board.remember(lines(['a-1mg', 4]), new AppError('conflict', 'out_of_stock', 'later'));
    expect(board.refusalFor(lines(['a-1mg', 1]))).to.equal(refusal);
    board.remember(lines(['b-1mg', 1], ['c-1mg', 1]), refusal);
    expect(board.refusalFor(lines(['b-1mg', 9]))).to.equal(undefined);
    board.forget(lines(['a-1mg', 1]));
    expect(board.refusalFor(lines(['a-1mg', 1]))).to.equal(undefined);
  });
});
