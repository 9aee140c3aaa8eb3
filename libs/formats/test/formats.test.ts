import { expect } from 'chai';
import {
  CODE_ALPHABET,
  PLAIN_TEXT_PATTERN,
  checkCatalogEntry,
  hasControlCharacters,
  isWellFormedSessionToken,
  randomCode,
} from '../src';

describe('formats', () => {
  it('draws codes of the asked length from the unambiguous alphabet only', () => {
    const codes = Array.from({ length: 200 }, () => randomCode(12));
    expect(codes.every((code) => code.length === 12 && [...code].every((c) => CODE_ALPHABET.includes(c)))).to.equal(
      true,
    );
    expect(CODE_ALPHABET).to.not.match(/[01OIL]/);
    expect(new Set(codes).size).to.equal(codes.length);
  });

  it('finds C0 and C1 control characters, DEL and the line separators, and nothing else; the pattern agrees', () => {
    const plainText = new RegExp(PLAIN_TEXT_PATTERN, 'u');
    for (const bad of [
      'a\u0000b',
      'tab\there',
      'line\n',
      'Royal Mail\r\nBcc: x@example.com',
      'del\u007f',
      'nel\u0085',
      'c1\u009f',
      'ls\u2028',
      'ps\u2029',
    ]) {
      expect(hasControlCharacters(bad), JSON.stringify(bad)).to.equal(true);
      expect(plainText.test(bad), JSON.stringify(bad)).to.equal(false);
    }
    for (const good of ['order-2026-0001', 'Zoë Brontë', '€ 12', '', 'non\u00a0breaking']) {
      expect(hasControlCharacters(good), good).to.equal(false);
      expect(plainText.test(good), good).to.equal(true);
    }
  });

  it('takes 43 base64url characters as a session token, nothing else', () => {
    expect(isWellFormedSessionToken('A'.repeat(42) + '_')).to.equal(true);
    for (const bad of ['A'.repeat(42), 'A'.repeat(44), 'A'.repeat(42) + '=', 'A'.repeat(42) + '+'])
      expect(isWellFormedSessionToken(bad)).to.equal(false);
  });

  it('checks a catalog entry: a slug id used once, a name that is not blank', () => {
    const seen = new Set<string>();
    const problems: string[] = [];
    checkCatalogEntry({ id: 'bpc-157', name: 'BPC-157' }, 'products[0]', seen, problems);
    checkCatalogEntry({ id: 'bpc-157', name: ' ' }, 'products[1]', seen, problems);
    checkCatalogEntry({ id: 'Not A Slug', name: 'x' }, 'products[2]', seen, problems);
    expect(problems).to.deep.equal([
      'products[1].id "bpc-157" appears twice',
      'products[1].name must be a non-empty string of at most 200 characters',
      'products[2].id must be a lower-case slug of at most 64 characters',
    ]);
  });
});
