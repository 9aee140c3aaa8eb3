/** The edge's cache of resized photos: bounded in bytes, the least recently used going first. */
import { expect } from 'chai';
import { VariantCache } from '../../src/catalog/media';

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
