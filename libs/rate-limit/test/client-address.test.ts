import { expect } from 'chai';
import { UNPARSABLE_ADDRESS_BUCKET, addressBucket } from '../src/client-address';

describe('rate-limit: the bucket of a client address', () => {
  it('keeps IPv4 in dotted decimal, however it arrives', () => {
    expect(addressBucket('198.51.100.7')).to.equal('198.51.100.7');
    expect(addressBucket(' 198.51.100.7 ')).to.equal('198.51.100.7');
    expect(addressBucket('0.0.0.0')).to.equal('0.0.0.0');
    expect(addressBucket('255.255.255.255')).to.equal('255.255.255.255');
  });

  it('reads IPv4-mapped IPv6 as the IPv4 address, in dotted or hex spelling and any case', () => {
    expect(addressBucket('::ffff:198.51.100.7')).to.equal('198.51.100.7');
    expect(addressBucket('::FFFF:198.51.100.7')).to.equal('198.51.100.7');
    expect(addressBucket('0:0:0:0:0:ffff:c633:6407')).to.equal('198.51.100.7');
    expect(addressBucket('::ffff:c633:6407')).to.equal('198.51.100.7');
  });

  it('counts IPv6 by its /64 in lower case, whatever the spelling of the address', () => {
    const bucket = '2001:db8:0:0::/64';
    for (const spelling of [
      '2001:db8::1',
      '2001:DB8::1',
      '2001:0db8:0000:0000:0000:0000:0000:0001',
      '2001:db8:0:0:ffff:ffff:ffff:ffff',
      '2001:db8::abcd:1',
      '2001:db8::1%eth0',
      '2001:db8::1%25en0',
      '2001:db8::192.0.2.1',
    ]) {
      expect(addressBucket(spelling), spelling).to.equal(bucket);
    }
    expect(addressBucket('2001:db8:0:1::1')).to.equal('2001:db8:0:1::/64');
    expect(addressBucket('fe80::1%en0')).to.equal('fe80:0:0:0::/64');
    expect(addressBucket('::1')).to.equal('0:0:0:0::/64');
    expect(addressBucket('::')).to.equal('0:0:0:0::/64');
  });

  it('puts anything that is not an address into one shared bucket', () => {
    for (const garbage of [
      '',
      '   ',
      'localhost',
      '198.51.100',
      '198.51.100.256',
      '198.051.100.7',
      '1.2.3.4.5',
      '2001:db8::1::2',
      '2001:db8:0:0:0:0:0:0:1',
      '2001:db8:0:0:0:0:1',
      '1:2:3:4:5:6:7:8::',
      '2001:db8::g',
      '2001:db8::12345',
      ':::1',
      '::ffff:198.51.100.7.1',
      '198.51.100.7::',
      '[2001:db8::1]',
      'unknown',
    ]) {
      expect(addressBucket(garbage), JSON.stringify(garbage)).to.equal(UNPARSABLE_ADDRESS_BUCKET);
    }
  });
});
