/** The edge's cache of resized photos: bounded in bytes, the least recently used going first. */
import { expect } from 'chai';
import { VariantCache, oneAtATime } from '../../src/catalog/media';

describe('photo variant cache', () => {
  const bytes = (length: number) => Buffer.alloc(length);

  it('drops the least recently used variants once the bytes pass the bound', () => {
    const cache = new VariantCache(100);
    cache.set('a', bytes(40));
    cache.set('b', bytes(40));
    expect(cache.get('a')).to.have.length(40); // now b is the least recently used
    cache.set('c', bytes(40));
    expect(cache.get('b')).to.equal(undefined);
    expect(cache.get('a')).to.have.length(40);
    expect(cache.get('c')).to.have.length(40);
    expect(cache.size).to.deep.equal({ entries: 2, bytes: 80 });
  });

  it('keeps nothing larger than the bound, and counts a variant set twice once', () => {
    const cache = new VariantCache(100);
    cache.set('huge', bytes(101));
    cache.set('a', bytes(30));
    cache.set('a', bytes(30));
    expect(cache.get('huge')).to.equal(undefined);
    expect(cache.size).to.deep.equal({ entries: 1, bytes: 30 });
  });
});

describe('gateway media: variants drawn one at a time', () => {
  it('starts each work when the one before has ended, in the order given, a failure holding up none', async () => {
    const inTurn = oneAtATime();
    const started: string[] = [];
    const finish = new Map<string, () => void>();
    const work =
      (name: string, fails = false) =>
      () =>
        new Promise<string>((resolve, reject) => {
          started.push(name);
          finish.set(name, () => (fails ? reject(new Error(name)) : resolve(name)));
        });
    const first = inTurn(work('first', true));
    const second = inTurn(work('second'));
    const third = inTurn(work('third'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).to.deep.equal(['first']);
    finish.get('first')!();
    expect(await first.catch((error: Error) => error.message)).to.equal('first');
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).to.deep.equal(['first', 'second']);
    finish.get('second')!();
    await new Promise((resolve) => setImmediate(resolve));
    finish.get('third')!();
    expect(await Promise.all([second, third])).to.deep.equal(['second', 'third']);
  });
});
